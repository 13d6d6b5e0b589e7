"""While a window is open, Qt objects left in reference cycles die on the GUI thread, never on
the job or stage thread that happened to allocate (app/window/gc_guard.py says why)."""
import gc
import threading
import weakref

from PySide6.QtCore import QObject

from app.window import gc_guard


def test_a_qt_object_in_a_cycle_dies_on_the_gui_thread_while_a_worker_allocates(qtbot, window):
    assert gc_guard.active() and not gc.isenabled()
    died_on = []
    obj = QObject()
    obj.me = obj                                    # a cycle: only the collector can free it
    weakref.finalize(obj, lambda: died_on.append(threading.current_thread()))
    del obj

    kept = []

    def allocate():                                 # what torch.export does on the stage thread
        kept.append([[i] for i in range(50_000)])   # fills generation 0 many times over

    worker = threading.Thread(target=allocate)
    worker.start()
    worker.join()
    assert died_on == []                            # the worker did not collect it
    qtbot.waitUntil(lambda: bool(died_on), timeout=60_000)  # the GUI thread's timer did
    assert died_on == [threading.main_thread()]


def test_closing_the_window_gives_collection_back(qtbot, window):
    window.close()
    assert gc.isenabled() and not gc_guard.active()

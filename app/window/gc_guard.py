"""While a window is open, Python's cyclic garbage collector runs on the GUI thread only.

Why: the collector runs on whichever thread happens to allocate when a generation is full. The
window's job thread allocates a lot (the results it unpickles from the worker, the cache it
reads), and in a test process other threads run torch, so it can be they that collect a Qt
object left in a reference cycle: a finished Job, the catalogue loader, a window of an earlier
run with all its widgets. Qt objects must be destroyed on the thread they live on. Full
test-suite runs segfaulted about one run in three when torch ran on the window's stage thread
(inside torch's FakeTensor code, where the allocation that triggered the collection was), and
once on the GUI thread in QObject::event, delivering a posted event to an object destroyed
elsewhere.

The cure is pyqtgraph's GarbageCollector, done here in a few lines (importing pyqtgraph for it
cost every start 0.35 s, app.widgets.plot_slot): automatic collection off, the same generation
thresholds checked on a GUI-thread timer. It is held while any window is open; when the last one
closes, what is left is collected here, on the GUI thread, and automatic collection comes back
(the command line and the headless core never run without it).
"""
from __future__ import annotations

import gc

from PySide6.QtCore import QTimer

INTERVAL_S = 0.5        # garbage from a torch stage waits at most this long

_holders = 0
_collector: GuiThreadCollector | None = None


class GuiThreadCollector:
    """Automatic collection off; every INTERVAL_S, on this (the GUI) thread, each generation that
    passed its threshold is collected, as the interpreter would have (pyqtgraph's recipe)."""

    def __init__(self, interval_s: float) -> None:
        self.threshold = gc.get_threshold()
        gc.disable()
        self.timer = QTimer()
        self.timer.timeout.connect(self.check)
        self.timer.start(int(interval_s * 1000))

    def check(self) -> None:
        counts = gc.get_count()
        for generation in range(3):
            if counts[generation] <= self.threshold[generation]:
                return
            gc.collect(generation)


def hold() -> None:
    """A window opened: collect on the GUI thread from now on."""
    global _holders, _collector
    _holders += 1
    if _collector is None:
        _collector = GuiThreadCollector(INTERVAL_S)


def release() -> None:
    """A window closed: with none left, collect what is left here and give collection back."""
    global _holders, _collector
    _holders = max(_holders - 1, 0)
    if _holders or _collector is None:
        return
    _collector.timer.stop()
    _collector = None
    gc.collect()
    gc.enable()


def active() -> bool:
    return _collector is not None and not gc.isenabled()

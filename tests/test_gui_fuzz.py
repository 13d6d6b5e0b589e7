"""pytest-qt: what a user types, pastes or clicks never reaches an uncaught exception.

- A name the system refuses pasted into the model box (5,000 characters) and Return: one sentence
  in a dialog and the status bar, before any job; the graph on screen stays, the box names it.
- The window's random-input (monkey) test, short and seeded: clicks, keys, wheel, text pasted
  into every editable field, runs started and cancelled, on the real window with resnet8; it
  fails on any uncaught exception (a slot, a virtual method, a thread) or Qt critical message.
  The same monkey, longer and with another seed each time: `python -m tools.monkey`.
"""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

RUN_TIMEOUT_MS = 180_000


def _paste(widget, text: str) -> None:
    """Ctrl+V of `text` into `widget` (through the clipboard, as a user pastes)."""
    QApplication.clipboard().setText(text)
    widget.setFocus()
    widget.selectAll()
    widget.paste()


def test_a_pasted_name_the_system_refuses_is_a_message_and_the_graph_stays(qtbot, window, run_and_wait, error_box):
    shown = run_and_wait(window, {"model": "resnet8"})
    scene = window.graph_view.graph_scene()
    line = window.controls.model.lineEdit()
    jobs_before = window.runs.jobs.running_job()
    _paste(line, "x" * 5000)
    assert line.text() == "x" * 5000
    with qtbot.waitSignal(window.runs.failed, timeout=10_000) as blocker:
        qtbot.keyClick(line, Qt.Key.Key_Return)
    error = blocker.args[0]
    box = error_box()
    assert box.text() == error.message == (
        "Cannot load " + "x" * 44 + "…" + "x" * 24 + " (5000 characters): the path is too long "
        "(5000 bytes; the system allows 4095).")
    box.close()
    assert window.runs.jobs.running_job() is jobs_before          # refused before any job
    assert window.state.result is shown and window.graph_view.graph_scene() is scene
    assert window.controls.model_spec() == "resnet8" and line.text() == "resnet8"
    assert window.controls.model.findData("x" * 5000) < 0        # the refused name left the list
    assert "too long" in window.status.summary.text()


def test_every_way_to_name_a_file_refuses_what_the_system_refuses(qtbot, window, run_and_wait, error_box, tmp_path):
    """Open…, drag & drop and the calibration and profile pickers end in the same sentences: no
    job, the graph stays (an OSError escaped open_model_path before: Path.exists raised)."""
    shown = run_and_wait(window, {"model": "resnet8"})
    long_py, files = "x" * 300 + ".py", window.files
    cases = [(lambda: files.open_model_path(long_py, trusted=True), "the name is too long (303 bytes"),
             (lambda: files.open_model_path(str(tmp_path), trusted=True), "it is a folder, not a file"),
             (lambda: files.open_calibration_path("/dev/zero"), "not a regular file"),
             (lambda: files.open_calibration_path("a\nb.npz"), "control character (\\n)")]
    for start, needle in cases:
        with qtbot.waitSignal(window.runs.failed, timeout=10_000) as blocker:
            start()
        assert needle in blocker.args[0].message
        error_box().close()
        assert window.state.result is shown and window.state.config == shown.config
    recent = window.state.recent_profiles
    files.open_profile_path("p\x00.toml")        # a ValueError in add_recent_profile before (the monkey)
    assert "the name contains a NUL character" in error_box().text()
    assert window.state.recent_profiles == recent and window.state.config == shown.config


@pytest.mark.qt_log_level_fail("CRITICAL")
def test_monkey_clicks_keys_pastes_and_runs_end_in_no_uncaught_exception(qtbot, window, run_and_wait, tmp_path,
                                                                           monkeypatch):
    """150 seeded random actions; pytest-qt fails the test on an exception escaping a slot or a
    virtual method and on a Qt critical message; threads are watched here."""
    import random
    import threading

    from tools.monkey import Monkey, fuzz_paths

    escaped: list[str] = []
    monkeypatch.setattr(threading, "excepthook", lambda a: escaped.append(f"{a.exc_type.__name__}: {a.exc_value}"))
    run_and_wait(window, {"model": "resnet8"})
    monkey = Monkey(window, random.Random(43), fuzz_paths(tmp_path))
    monkey.answer_dialogs(monkeypatch.setattr)
    monkey.run(150)
    assert sum(monkey.actions.values()) == 150 and len(monkey.actions) == 6     # every kind was tried
    window.runs.cancel()
    qtbot.waitUntil(lambda: not window.runs.is_running(), timeout=RUN_TIMEOUT_MS)
    assert escaped == []

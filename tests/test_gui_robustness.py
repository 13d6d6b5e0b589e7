"""pytest-qt: bad inputs and bugs end in the error dialog, the previous graph stays, the window
keeps working. Real runs: a truncated .pt2, a .py with a syntax error, a model
torch.export cannot trace, calibration data with a NaN; then uncaught exceptions in a thread
and in a Qt slot.
"""
from __future__ import annotations

import sys
import threading
from dataclasses import replace

import pytest
import torch
from PySide6.QtCore import QTimer

RUN_TIMEOUT_MS = 180_000

NO_EXPORT = """
import torch
from torch import nn

class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)

    def forward(self, x):
        y = self.conv(x)
        if y.sum() > 0:          # data-dependent control flow: torch.export cannot trace it
            return torch.relu(y)
        return y

def get_model():
    return Branchy(), (torch.randn(1, 3, 8, 8),)
"""


def _fails_with_dialog(qtbot, win, start, error_box) -> str:
    """Start a run that must fail; return the dialog's one line after checking it is the error's."""
    with qtbot.waitSignal(win.runs.failed, timeout=RUN_TIMEOUT_MS) as blocker:
        start()
    box = error_box()
    error = blocker.args[0]
    assert box.text() == error.message and "\n" not in box.text()
    assert box.detailedText() == (error.detail or "")
    box.close()
    return box.text()


@pytest.mark.slow
def test_bad_inputs_end_in_a_dialog_and_the_window_stays_usable(qtbot, window, tmp_path, run_and_wait, error_box):
    good = run_and_wait(window, {"model": "conv_relu", "quantizer": "vpu"})
    shown = window.graph_view.graph_scene()

    pt2 = tmp_path / "program.pt2"
    module, inputs = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU()), (torch.randn(16, 3, 8, 8),)
    torch.export.save(torch.export.export(module, inputs), str(pt2))
    truncated = tmp_path / "truncated.pt2"
    truncated.write_bytes(pt2.read_bytes()[: pt2.stat().st_size // 2])
    syntax = tmp_path / "syntax_error.py"
    syntax.write_text("import torch\ndef get_model(:\n    pass\n", encoding="utf-8")
    branchy = tmp_path / "branchy.py"
    branchy.write_text(NO_EXPORT, encoding="utf-8")
    nan_data = tmp_path / "nan_samples.pt"
    samples = torch.randn(32, 3, 16, 16)
    samples[5, 1, 2, 3] = float("nan")
    torch.save(samples, nan_data)

    files = window.files
    line = _fails_with_dialog(qtbot, window, lambda: files.open_model_path(str(truncated), trusted=True), error_box)
    assert "truncated.pt2" in line
    line = _fails_with_dialog(qtbot, window, lambda: files.open_model_path(str(syntax), trusted=True), error_box)
    assert "syntax_error.py" in line and "syntax error on line 2" in line
    line = _fails_with_dialog(qtbot, window, lambda: files.open_model_path(str(branchy), trusted=True), error_box)
    assert "torch.export could not trace" in line and "branchy.py:12" in line
    assert window.state.result is good and window.graph_view.graph_scene() is shown   # the graph stayed
    assert window.controls.model_spec() == "conv_relu"          # …and the model box names it

    line = _fails_with_dialog(qtbot, window, lambda: files.open_calibration_path(str(nan_data)), error_box)
    assert "nan_samples.pt" in line and "NaN" in line
    assert window.controls.config() == good.config              # the toolbar shows what is on screen
    assert window.state.result is good and "Run failed" in window.summary.text()

    # still usable: another configuration runs and is shown
    after = run_and_wait(window, {"model": "conv_relu", "quantizer": "xnnpack", "calib_batches": 1})
    assert window.state.result is after and after.analysis.quantizer == "xnnpack"
    assert window.graph_view.graph_scene() is not shown and "Run failed" not in window.summary.text()


@pytest.mark.qt_no_exception_capture
def test_uncaught_exceptions_in_any_thread_open_the_error_dialog(qtbot, window, error_box):
    from app.window import excepthook

    saved = sys.excepthook, threading.excepthook
    router = excepthook.install()
    try:
        worker = threading.Thread(target=lambda: 1 / 0, name="helper")
        worker.start()
        worker.join()
        box = error_box()
        assert box.text() == "Unexpected error in thread 'helper': ZeroDivisionError: division by zero"
        assert "Traceback" in box.detailedText() and box.windowTitle() == "Internal error"
        box.close()

        def broken_slot():
            raise KeyError("no such node")
        QTimer.singleShot(0, broken_slot)          # escapes a Qt slot: PySide hands it to sys.excepthook
        box = error_box()
        assert box.text() == "Unexpected error: KeyError: 'no such node'"
        box.close()
        assert [e.message for e in router.shown][-2:] == [
            "Unexpected error in thread 'helper': ZeroDivisionError: division by zero",
            "Unexpected error: KeyError: 'no such node'"]
        assert window.isVisible()                  # never an abort: the window is still there
    finally:
        sys.excepthook, threading.excepthook = saved


@pytest.mark.slow
def test_a_failing_compare_side_is_named_and_the_graph_stays(qtbot, window, run_and_wait, error_box):
    from vpu_core.config import RunConfig

    good = run_and_wait(window, {"model": "conv_relu", "quantizer": "vpu"})
    window.compare_bar.set_config(RunConfig(quantizer="vpu", dynamic_batch=True))
    line = _fails_with_dialog(qtbot, window, lambda: window.compare.set_mode(True), error_box)
    assert line.startswith("B · VPU · dynamic batch: ") and "dynamic" in line.lower()
    assert window.state.comparison is None and window.state.result is good
    assert window.graph_stack.currentWidget() is window.graph_view      # A's graph is still shown
    # fix B from the compare bar: the comparison runs (A from the worker's memory: nothing of it
    # runs again) and is shown
    result = run_and_wait(window, action=lambda: window.compare_bar.batch.setCurrentIndex(0))
    assert replace(result.a.analysis, timings_s={}) == replace(good.analysis, timings_s={})
    assert window.state.showing_compare
    assert set(result.a.stages_run) <= {"int_sim", "layout"}

"""Run ▸ Run on this CPU in the real window: a job with progress and cancel, the measured µs overlay,
the node panel's and status bar's numbers, and a model ExecuTorch cannot run (slow: real lowering)."""
from __future__ import annotations

import html
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

RANKED = str(Path(__file__).parent / "models" / "ranked_scores.py")


def plain(text: str) -> str:
    return " ".join(text.split())


def test_run_on_this_cpu_measures_and_colours_by_measured_us(qtbot, window, run_and_wait):
    shown = run_and_wait(window, {"model": "conv_relu", "quantizer": "xnnpack", "calib_batches": 2})
    assert shown.attached.runtime is None and window.state.metric is None
    assert window.measure_action.isEnabled() and not window.measure_action.isChecked()
    stages = []
    window.state.run_changed.connect(lambda: stages.append(window.state.run.stage))
    measured = run_and_wait(window, action=window.measure_action.trigger)     # menu entry / Ctrl+Shift+R
    runtime = measured.attached.runtime
    assert window.state.measure and window.measure_action.isChecked()
    assert runtime is not None and runtime.refused is None and runtime.latency.runs == 20
    assert "Running on this CPU (ExecuTorch)" in stages                        # progress of the job
    # the overlay switched to the measured µs (the user had chosen no other colouring)
    assert window.state.metric == "measured_us" and window.graph_view.highlights.metric == "measured_us"
    assert window.view_bar.metric_combo.currentData() == "measured_us"
    values = window.graph_view.full_model().metrics["measured_us"]
    assert values["conv2d"] == pytest.approx(runtime.op_us()["conv2d"])
    assert "CPU " in window.summary.text() and "median (XNNPACK)" in window.summary.text()
    window.state.show_node("a", "conv2d")
    qtbot.waitUntil(lambda: "MEASURED ON THIS CPU" in window.panels.node_panel.toPlainText())
    text = plain(window.panels.node_panel.toPlainText())
    assert "XNNPACK delegate 0" in text and "Convolution" in text


def test_cancelling_the_measurement_keeps_the_result_and_turns_it_off(qtbot, window, run_and_wait):
    # a seed no other test uses: its program is lowered in no cache, the job takes long enough
    shown = run_and_wait(window, {"model": "conv_relu", "quantizer": "xnnpack", "calib_batches": 2, "seed": 31})
    with qtbot.waitSignal(window.runs.jobs.cancelled, timeout=180_000):
        window.measure_action.trigger()
        qtbot.waitUntil(lambda: window.runs.is_running())
        window.runs.cancel()                                                   # Ctrl+. / Cancel
    assert window.state.result is shown and shown.attached.runtime is None
    assert not window.state.measure and not window.measure_action.isChecked()


def test_a_model_executorch_cannot_run_shows_the_check_and_a_dialog_naming_the_op(
        qtbot, window, run_and_wait, error_box):
    run_and_wait(window, {"model": RANKED, "quantizer": "xnnpack", "calib_batches": 2})
    measured = run_and_wait(window, action=window.measure_action.trigger)
    assert measured.attached.runtime.refused is not None                        # not a failed run
    box = error_box()
    assert box.windowTitle() == "Cannot run on this CPU" and "aten::sort.values" in box.text()
    box.close()
    assert window.state.result is measured
    # the refusal says why wherever it is shown: the status line (its chip, or the whole line in
    # the tooltip when the chip does not fit) and the model's summary in the node panel
    sentence = measured.attached.runtime.refused
    assert f"CPU run refused: {sentence}" in window.summary.toolTip()
    assert all(sentence in html.unescape(chip) for chip in window.summary.shown_chips() if "refused" in chip)
    panel = window.panels.node_panel.toPlainText().replace("\u200b", "")     # break hints
    assert " ".join(sentence.split()) in " ".join(panel.split())
    assert window.state.metric is None                                          # nothing measured to colour

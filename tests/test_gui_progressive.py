"""Progressive results in the window: the predicted partition of the float graph first, replaced
in place by the quantized analysis. The worker really waits (tests/models/gated_resnet8.py: a gate
op that blocks in calibration until the test creates its file), so the prediction stays on screen
for as long as the test looks at it; the runs are real."""
import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from vpu_core.config import RunConfig

RUN_TIMEOUT_MS = 180_000
GATED = str(Path(__file__).parent / "models" / "gated_resnet8.py")


@pytest.fixture
def gate(tmp_path, monkeypatch):
    """Create the returned path to let the worker go on past the prediction."""
    path = tmp_path / "open"
    monkeypatch.setenv("VPU_TEST_GATE", str(path))
    yield path
    path.touch()


def _ops(inspection) -> set[str]:
    return {n.id for n in inspection.graph.grouped.flat.nodes if n.category in ("vpu", "cpu")}


def test_the_quantized_graph_replaces_the_prediction_keeping_ids_view_and_selection(qtbot, window, gate):
    config = RunConfig(model=GATED, calib_batches=1, seed=31)      # a seed no other test uses
    window.runs.start(config)
    qtbot.waitUntil(lambda: window.state.predicted, timeout=RUN_TIMEOUT_MS)
    predicted, view = window.state.result, window.graph_view
    assert window.runs.is_running() and "predicted — quantizing" in window.summary.text()
    assert window.view_bar.violation_label.text() == ""           # no verdict before the rules ran
    assert window.state.show_node("a", "add_1")                    # the user picks an op meanwhile
    qtbot.waitUntil(lambda: view.graph_scene().selected == "add_1")
    box = view.graph_scene().items["add_1"].box
    where, zoom = view.mapFromScene(box.center()), view.zoom()

    with qtbot.waitSignal(window.runs.succeeded, timeout=RUN_TIMEOUT_MS):
        gate.touch()
    final = window.state.result
    assert not final.analysis.predicted and final.config == config and final.analysis.tensors
    assert _ops(final) == _ops(predicted)                          # the same node ids
    assert window.state.selection.node == "add_1" == view.graph_scene().selected
    assert view.zoom() == zoom                                     # the same view
    # the op stays where it was on screen (across: as far as the canvas lets a graph narrower
    # than the window move — it centres it)
    now = view.mapFromScene(view.graph_scene().items["add_1"].box.center())
    assert abs(now.y() - where.y()) <= 1
    assert view.visible_scene_rect().contains(view.graph_scene().items["add_1"].box)
    assert window.state.prediction_changes == () and "predicted" not in window.summary.text()
    assert "no violations" in window.view_bar.violation_label.text()


def test_cancel_while_quantizing_keeps_the_prediction_on_screen_and_stops_the_worker(qtbot, window, gate):
    from vpu_core.worker.host import default_host

    window.runs.start(RunConfig(model=GATED, calib_batches=1, seed=32))
    qtbot.waitUntil(lambda: window.state.predicted, timeout=RUN_TIMEOUT_MS)
    predicted, worker = window.state.result, default_host().worker_pid
    with qtbot.waitSignal(window.runs.jobs.cancelled, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(window.controls.cancel_button, Qt.MouseButton.LeftButton)
    assert window.state.result is predicted and not window.runs.is_running()
    assert window.graph_view.graph_scene().model.nodes                  # still drawn
    assert "not quantized" in window.summary.text() and "Cancelled" in window.stage.text()
    assert worker is not None and not os.path.exists(f"/proc/{worker}/cmdline") or \
        Path(f"/proc/{worker}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")


def test_a_prediction_the_quantized_partition_changed_is_shown_as_such(qtbot, window, run_and_wait):
    """The window hears of the quantized result replacing a prediction that placed an op
    otherwise (as a per-op limit only the Q/DQ graph shows would): the summary says which."""
    import dataclasses

    from vpu_core.analysis.results import CpuNode

    final = run_and_wait(window, {"model": "conv_relu", "calib_batches": 1, "seed": 33})
    a = final.analysis
    conv = next(n for n, info in a.nodes.items() if info.op.startswith("conv2d"))
    predicted = dataclasses.replace(final, analysis=dataclasses.replace(a, predicted=True))
    moved = dataclasses.replace(a.partition, assignment={**a.partition.assignment, conv: "cpu"},
                                cpu_nodes=(CpuNode(conv, "conv2d.default", "conv2d: kernel 3×3 > 1×1"),))
    later = dataclasses.replace(final, analysis=dataclasses.replace(a, partition=moved))
    window.runs.jobs.preview.emit(predicted)
    assert window.state.predicted
    window.runs.jobs.succeeded.emit(later)
    (change,) = window.state.prediction_changes
    assert (change.node, change.predicted, change.final) == (conv, "vpu", "cpu")
    # the status line is drawn when the window next paints (the result's follow-ups may redraw it first)
    qtbot.waitUntil(lambda: "placed otherwise than predicted" in window.summary.text(), timeout=10_000)
    assert "kernel 3×3" in window.summary.text()

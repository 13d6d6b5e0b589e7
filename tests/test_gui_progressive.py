"""Progressive results in the window: the predicted partition of the float graph first, replaced
in place by the quantized analysis. Prepare is held (vpu_core.pipeline._prepare waits for the
test) so the prediction stays on screen for as long as the test looks at it; the runs are real."""
import threading

import pytest
from PySide6.QtCore import Qt

from vpu_core import pipeline
from vpu_core.config import RunConfig
from vpu_core.progress import abandoned_work

RUN_TIMEOUT_MS = 180_000


@pytest.fixture
def held_prepare(monkeypatch):
    """Set the event to let prepare (and so the quantization) go on."""
    release, real = threading.Event(), pipeline._prepare

    def waiting(*args):
        release.wait(120)
        return real(*args)

    monkeypatch.setattr(pipeline, "_prepare", waiting)
    yield release
    release.set()


def _ops(inspection) -> set[str]:
    return {n.id for n in inspection.graph.grouped.flat.nodes if n.category in ("vpu", "cpu")}


def test_the_quantized_graph_replaces_the_prediction_keeping_ids_view_and_selection(qtbot, window, held_prepare):
    config = RunConfig(model="resnet8", calib_batches=1, seed=31)      # a seed no other test uses
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
        held_prepare.set()
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


def test_cancel_while_quantizing_keeps_the_prediction_on_screen(qtbot, window, held_prepare):
    window.runs.start(RunConfig(model="conv_relu", calib_batches=1, seed=32))
    qtbot.waitUntil(lambda: window.state.predicted, timeout=RUN_TIMEOUT_MS)
    predicted = window.state.result
    with qtbot.waitSignal(window.runs.jobs.cancelled, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(window.controls.cancel_button, Qt.MouseButton.LeftButton)
    assert window.state.result is predicted and not window.runs.is_running()
    assert window.graph_view.graph_scene().model.nodes                  # still drawn
    assert "not quantized" in window.summary.text() and "Cancelled" in window.stage.text()
    held_prepare.set()                                                  # the abandoned prepare ends
    qtbot.waitUntil(lambda: not abandoned_work(), timeout=RUN_TIMEOUT_MS)


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
    assert "placed otherwise than predicted" in window.summary.text() and "kernel 3×3" in window.summary.text()

"""The accuracy story at 1280×720, in the real window: Analyse on the Sensitivity dock → the worst
layer (its bar) → its fixes → Apply → the before / after card with dB, the user's metric, CPU ops
and subgraphs — on the probe chain (tests/models/sensitivity_probe.py) with a metric of its own."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from vpu_core.config import RunConfig

PROBE = str(Path(__file__).parent / "models" / "sensitivity_probe.py")
TIMEOUT_MS = 300_000


@pytest.fixture
def metric_file(tmp_path):
    """A metric of the probe: minus the mean absolute error against the float model on 8 inputs."""
    path = tmp_path / "probe_metric.py"
    path.write_text(
        "import torch, importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('probe', {PROBE!r})\n"
        "probe = importlib.util.module_from_spec(spec); spec.loader.exec_module(probe)\n"
        "model, _ = probe.get_model()\n"
        "x = torch.randn(8, 4, 8, 8, generator=torch.Generator().manual_seed(5))\n"
        "with torch.no_grad():\n    ref = model(x)\n"
        "def closeness(m):\n    return -float((m(x) - ref).abs().mean())\n", encoding="utf-8")
    return f"{path}:closeness"


def test_the_story_from_the_worst_layer_to_the_card(window, run_and_wait, qtbot, metric_file):
    window.resize_for(1280, 720)
    state, panel = window.state, window.sensitivity_panel
    state.eval_spec = metric_file
    before = run_and_wait(window, RunConfig(model=PROBE)).analysis
    window.sensitivity.show()
    assert panel.run_button.isEnabled()
    qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: state.sensitivity is not None and not window.sensitivity.jobs.is_running(),
                    timeout=TIMEOUT_MS)
    report = state.sensitivity
    assert report.metric_float is not None and report.baseline.metric is not None
    assert panel._chart_rows_shown and panel._chart_rows_shown[0] == report.layers[0].node
    assert panel.layers.rowCount() == sum(1 for r in report.layers if r.kind == "op")
    worst = report.layers[0].node
    panel.layer_selected.emit(worst)                             # its bar
    qtbot.waitUntil(lambda: state.selection is not None and state.selection.node == worst)
    fixes = report.fixes_for(worst)
    assert fixes and panel.fixes.rowCount() == len(fixes) and panel.apply_button.isVisible()
    best = max(range(len(fixes)), key=lambda i: fixes[i].gain_db or 0.0)
    panel.pick_fix(best)
    assert " ".join(fixes[best].args) in panel.fix_detail.text()
    qtbot.mouseClick(panel.apply_button, Qt.MouseButton.LeftButton)
    card = window.graph_stack.card
    qtbot.waitUntil(lambda: card.isVisible() and "metric" in card.cells and card.texts("metric")[1] != "—",
                    timeout=TIMEOUT_MS)
    after = state.result.analysis
    f = fixes[best]
    assert state.result.config.keep_float or state.result.config.observers
    assert len(after.partition.cpu_nodes) == f.predicted.cpu_ops          # predicted = applied
    assert len(after.partition.subgraphs) == f.predicted.subgraphs
    assert after.sqnr_db == pytest.approx(f.predicted.sqnr_db, abs=1e-9)
    assert card.texts("sqnr_db")[:2] == (f"{before.sqnr_db:.1f} dB", f"{after.sqnr_db:.1f} dB")
    assert card.texts("cpu_ops")[:2] == (f"{len(before.partition.cpu_nodes)}", f"{len(after.partition.cpu_nodes)}")
    assert card.texts("metric")[1] == f"{f.predicted.metric:.4g}"
    assert (window.width(), window.height()) == (1280, 720)               # the window never grew

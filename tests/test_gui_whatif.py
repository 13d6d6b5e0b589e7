"""pytest-qt tests of the What-if dock over real runs: the profile editor (edit → save → load with
--profile → same result; Apply re-runs only what the change needs; the profile in use shows),
the constraint-cost chart as a job with progress and cancel, and the op-candidates / economics
tables. The what-if feature (app.features.whatif) is tested over its own AppState where no run
is needed, and in the real window where Apply or the ablation runs."""
from __future__ import annotations

import json
from pathlib import Path

import pyqtgraph as pg
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget

from app import dialogs
from app.cli import main
from app.features.whatif import TAB_ABLATION, TAB_PROFILE, WhatIfController
from app.state import AppState
from app.widgets.op_candidates import OpCandidatesPanel
from app.widgets.profile_editor import OP_ROLE
from app.widgets.whatif_panel import WhatIfPanel
from vpu_core.config import RunConfig
from vpu_core.profile import load_profile
from vpu_core.reports.whatif_text import constraint_name
from vpu_core.session import Session
from vpu_core.whatif.profile_edit import same_profile

CHAIN = str(Path(__file__).parent / "models" / "whatif_chain.py")
CHAIN_CONFIG = RunConfig(model=CHAIN, batch_size=1, calib_batches=2)
RUN_TIMEOUT_MS = 180_000


@pytest.fixture(scope="module")
def chain():
    """The chain model's Inspection (no drawing): what a window run would put in AppState."""
    return Session().inspect(CHAIN_CONFIG, view=None, whatif=True)


@pytest.fixture
def whatif(qtbot, tmp_path, chain):
    """The what-if feature over its own state with the chain model on screen (no window)."""
    state, panel, dock = AppState(), WhatIfPanel(), QDockWidget()
    dock.setWidget(panel)
    qtbot.addWidget(dock)
    controller = WhatIfController(state, panel, dock, profile_dir=tmp_path / "applied")
    assert not panel.editor.save_button.isEnabled()                  # nothing run yet
    state.set_result(chain)
    return controller


def _check_op(editor, name: str) -> None:
    item = next(editor.op_list.item(i) for i in range(editor.op_list.count())
                if editor.op_list.item(i).data(OP_ROLE) == name)
    item.setCheckState(Qt.CheckState.Checked)


def test_editor_round_trip_edit_save_load_with_profile(whatif, tmp_path, capsys):
    editor = whatif.panel.editor
    assert not whatif.is_modified() and editor.save_button.isEnabled()
    assert editor.in_use_label.text() == "<b>In use:</b> vpu-default (shipped profile)"
    names = [editor.op_list.item(i).data(OP_ROLE) for i in range(editor.op_list.count())]
    assert "sigmoid.default" in names and "softmax.int" in names     # this model's CPU ops are offered
    editor.op_search.setText("soft")
    shown = [editor.op_list.item(i).data(OP_ROLE) for i in range(editor.op_list.count())
             if not editor.op_list.item(i).isHidden()]
    assert shown == ["softmax.int"]
    _check_op(editor, "softmax.int")
    editor.switches["pow2_scale"].setChecked(False)
    editor.max_shift.setValue(24)
    editor.break_even.setValue(2.0)
    editor.rounding.setCurrentText("round_half_even")
    assert whatif.is_modified() and "constraints.pow2_scale" in editor.needs_label.text()
    assert "edited, not applied" in editor.in_use_label.text() and editor.apply_button.isEnabled()
    assert editor.diff_view.toPlainText().splitlines() == [
        "ops.vpu: + softmax.int", "constraints.pow2_scale: true → false", "requant.max_shift: 31 → 24",
        "requant.rounding: 'round_half_up' → 'round_half_even'", "economics.break_even_bytes_per_mac: 0.25 → 2.0"]
    path = tmp_path / "next_chip.toml"
    whatif.save_to(path)
    assert same_profile(load_profile(path), whatif.edited_profile())
    # The saved file through the command line gives the run the editor describes.
    code = main(["check", CHAIN, "--profile", str(path), "--batch-size", "1", "--calib-batches", "2",
                 "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code in (0, 1)
    assert "softmax.int" in data["partition"]["vpu_ops"]
    assert [c["op"] for c in data["partition"]["cpu_nodes"]] == ["sigmoid.default"]
    assert {r["id"]: r["enabled"] for r in data["rules"]}["pow2_scale"] is False
    assert data["economics"]["break_even_bytes_per_mac"] == 2.0
    editor.revert_button.click()
    assert not whatif.is_modified() and not editor.apply_button.isEnabled()
    assert editor.diff_view.toPlainText() == "Same as the shipped profile."


def test_editor_refuses_an_unknown_op_and_a_bad_save(whatif, tmp_path, monkeypatch):
    errors = []
    monkeypatch.setattr(dialogs, "show_error", lambda parent, error, **kw: errors.append(error.message))
    editor = whatif.panel.editor
    editor.add_op.setText("warp_drive")
    editor.add_op.returnPressed.emit()
    assert errors == ["'warp_drive' is not an ATen op."] and not whatif.is_modified()
    editor.add_op.setText("gelu")
    editor.add_op.returnPressed.emit()
    assert "gelu" in whatif.edited_profile().vpu_ops and editor.add_op.text() == ""
    editor.fused_edit.setText("relu, warp_drive")
    editor.fused_edit.textEdited.emit(editor.fused_edit.text())
    editor.save_requested.emit(str(tmp_path / "bad.toml"))
    assert "unknown ATen op 'warp_drive'" in errors[-1] and not (tmp_path / "bad.toml").exists()


def test_op_candidates_panel_ranks_and_jumps(qtbot, chain):
    panel = OpCandidatesPanel()
    qtbot.addWidget(panel)
    panel.set_whatif(chain.attached)
    t = panel.candidates
    rows = [[t.item(r, c).text() for c in range(t.columnCount())] for r in range(t.rowCount())]
    assert rows == [["sigmoid", "1", "1", "0", "1.2 KiB", "1"], ["softmax", "1", "0", "0", "0 B", "1"]]
    assert t.item(1, 0).toolTip().startswith("softmax.int")                 # the full op name
    with qtbot.waitSignal(panel.node_activated) as jumped:
        t.cellClicked.emit(0, 0)
    sigmoid = next(c.node for c in chain.analysis.partition.cpu_nodes if c.op == "sigmoid.default")
    assert jumped.args == [sigmoid]
    e = panel.economics
    assert [e.item(r, 6).text() for r in range(e.rowCount())] == ["✗"] * 2
    assert "transfer outweighs the work" in e.item(0, 6).toolTip()
    with qtbot.waitSignal(panel.node_activated) as jumped:
        e.cellClicked.emit(1, 0)
    assert jumped.args == ["conv2d_1"]                                # the second subgraph's conv
    assert "a one-op island: 1.2 KiB in and out for 1.0 kMAC" in panel.economics_note.text()


def test_window_apply_reruns_only_what_the_change_needs(qtbot, window, run_and_wait, tmp_path):
    whatif = window.whatif
    whatif.profile_dir = tmp_path / "applied"
    first = run_and_wait(window, CHAIN_CONFIG)
    assert whatif.panel.candidates.candidates.item(0, 0).text() == "sigmoid"
    table = whatif.panel.candidates.candidates
    table.cellClicked.emit(0, 0)                                     # the table row shows its node
    sigmoid = next(c.node for c in first.analysis.partition.cpu_nodes if c.op == "sigmoid.default")
    assert window.state.selection is not None and window.state.selection.node == sigmoid
    window.whatif.show(TAB_PROFILE)
    editor = whatif.panel.editor
    assert window.whatif_dock.isVisible() and whatif.panel.currentWidget() is editor
    assert editor.in_use_label.text().startswith("<b>In use:</b> vpu-default")
    assert "VPU · default profile" in window.summary.text()

    # A shift range: no export, no quantization (the worker re-reads the program it has, or
    # rebuilds one from the cached stages and recorded qparams): the stages the result computed.
    editor.min_shift.setValue(30)
    assert "re-analyses the current Q/DQ graph only" in editor.needs_label.text()
    second = run_and_wait(window, action=editor.apply_button.click)
    assert not {"export", "prepare", "calibrate", "convert"} & set(second.stages_run), second.stages_run
    assert second.config.profile.startswith(str(tmp_path / "applied"))
    assert all(s.out_of_range for s in second.analysis.requant)
    assert second.analysis.sqnr_db == first.analysis.sqnr_db
    # The profile in use shows in the toolbar and in the editor, which holds no edit any more.
    assert window.controls.config().profile == second.config.profile
    assert window.controls.profile.currentText() == Path(second.config.profile).stem
    assert f"VPU · {Path(second.config.profile).stem}" in window.summary.text()        # even at 1280 px
    assert "In use:</b> vpu-default" in editor.in_use_label.text() and "applied" in editor.in_use_label.text()
    assert not whatif.is_modified() and not editor.apply_button.isEnabled()
    # A change the quantizer reads: quantized again from the same export and calibration data.
    editor.switches["pow2_scale"].setChecked(False)
    assert "quantizes again from the same export" in editor.needs_label.text()
    third = run_and_wait(window, action=editor.apply_button.click)
    assert "export" not in third.stages_run and {"prepare", "convert"} <= set(third.stages_run)
    assert not next(r for r in third.analysis.rules if r.rule.id == "pow2_scale").enabled


def test_window_apply_of_an_invalid_form_explains_and_runs_nothing(qtbot, window, run_and_wait, tmp_path,
                                                                    monkeypatch):
    whatif = window.whatif
    whatif.profile_dir = tmp_path / "applied"
    run_and_wait(window, CHAIN_CONFIG)
    errors = []
    monkeypatch.setattr(dialogs, "show_error", lambda parent, error, **kw: errors.append(error.message))
    editor = whatif.panel.editor
    editor.fused_edit.setText("relu, warp_drive")
    editor.fused_edit.textEdited.emit(editor.fused_edit.text())
    assert whatif.apply() is None
    assert errors and "unknown ATen op 'warp_drive'" in errors[0]
    assert not window.runs.is_running() and not (tmp_path / "applied").exists()
    assert whatif.is_modified()                                       # the edit stays to be fixed


@pytest.mark.slow
def test_window_ablation_runs_as_a_job_with_progress_and_cancel(qtbot, window, run_and_wait):
    run_and_wait(window, RunConfig(model="conv_relu", batch_size=4, calib_batches=2, seed=11))
    whatif, chart = window.whatif, window.whatif_panel.chart
    whatif.show(TAB_ABLATION)
    assert chart.run_button.isEnabled() and "Run ablation" in chart.hint.text()
    # Cancelled part-way: nothing is kept, Run is offered again.
    chart.run_button.click()
    assert whatif.ablations.is_running() and chart.cancel_button.isEnabled() and not chart.run_button.isEnabled()
    qtbot.waitUntil(lambda: chart.progress.value() > 0 or not whatif.ablations.is_running(),
                    timeout=RUN_TIMEOUT_MS)
    chart.cancel_button.click()
    qtbot.waitUntil(lambda: not whatif.ablations.is_running(), timeout=RUN_TIMEOUT_MS)
    assert chart.status.text() == "Cancelled" and chart.report is None and chart.run_button.isEnabled()
    # Run to the end: the window's own run queue stays free meanwhile.
    seen = []
    chart.progress.valueChanged.connect(seen.append)
    with qtbot.waitSignal(whatif.ablations.succeeded, timeout=RUN_TIMEOUT_MS) as done:
        chart.run_button.click()
        assert not window.runs.is_running()
    report = done.args[0]
    assert chart.report is report and whatif.current_ablation() is report
    assert [e.constraint for e in report.entries][2] == "pow2_scale" and seen and max(seen) == 1000
    ranked = report.ranked()
    names = [i for i in chart.plot_slot.plot.getPlotItem().items if isinstance(i, pg.TextItem)][::2]
    assert [n.toPlainText() for n in names] == [constraint_name(e) for e in ranked]
    assert ranked[0].delta_db == max(e.delta_db for e in report.entries)   # the costliest first
    assert "pow2 scales cost" in chart.sentences.toPlainText() and chart.status.text().startswith("Done in")

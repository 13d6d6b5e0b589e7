"""pytest-qt tests of the what-if widgets over real runs: the profile editor (edit → save → load
with --profile → same result; Apply re-runs only what the change needs), the ablation chart in a
worker with progress and cancel, and the op-candidates / economics tables."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from app import dialogs, theme
from app.cli import main
from app.settings import ENV_VAR
from app.widgets.ablation_chart import AblationChart
from app.widgets.op_candidates import OpCandidatesPanel
from app.widgets.profile_editor import OP_ROLE, ProfileEditor
from vpu_core.config import RunConfig
from vpu_core.profile import load_profile
from vpu_core.reports.whatif_text import constraint_name
from vpu_core.session import Session, default_session
from vpu_core.whatif.profile_edit import same_profile

CHAIN = str(Path(__file__).parent / "models" / "whatif_chain.py")
CHAIN_OPTIONS = {"model": CHAIN, "batch_size": 1, "calib_batches": 2}
RUN_TIMEOUT_MS = 180_000


@pytest.fixture(scope="module")
def chain():
    return Session().inspect(RunConfig(**CHAIN_OPTIONS), view=None).analysis


def _check_op(editor: ProfileEditor, name: str) -> None:
    item = next(editor.op_list.item(i) for i in range(editor.op_list.count())
                if editor.op_list.item(i).data(OP_ROLE) == name)
    item.setCheckState(Qt.CheckState.Checked)


def test_editor_round_trip_edit_save_load_with_profile(qtbot, tmp_path, chain, capsys):
    editor = ProfileEditor(tmp_path / "applied")
    qtbot.addWidget(editor)
    assert not editor.is_modified() and not editor.save_button.isEnabled()   # nothing run yet
    editor.set_analysis(chain)                                  # the shipped profile, in use
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
    assert editor.is_modified() and "constraints.pow2_scale" in editor.needs_label.text()
    assert editor.diff_view.toPlainText().splitlines() == [
        "ops.vpu: + softmax.int", "constraints.pow2_scale: true → false", "requant.max_shift: 31 → 24",
        "requant.rounding: 'round_half_up' → 'round_half_even'", "economics.break_even_bytes_per_mac: 0.25 → 2.0"]
    path = tmp_path / "next_chip.toml"
    editor.save_to(path)
    assert same_profile(load_profile(path), editor.edited_profile())
    # The saved file through the command line gives the run the editor describes.
    code = main(["check", CHAIN, "--profile", str(path), "--batch-size", "1", "--calib-batches", "2",
                 "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code in (0, 1)
    assert "softmax.int" in data["partition"]["vpu_ops"]
    assert [c["op"] for c in data["partition"]["cpu_nodes"]] == ["sigmoid.default"]
    assert {r["id"]: r["enabled"] for r in data["rules"]}["pow2_scale"] is False
    assert data["economics"]["break_even_bytes_per_mac"] == 2.0
    editor.revert()
    assert not editor.is_modified() and not editor.apply_button.isEnabled()


def test_editor_apply_writes_a_validated_file_or_explains(qtbot, tmp_path, chain, monkeypatch):
    editor = ProfileEditor(tmp_path)
    qtbot.addWidget(editor)
    editor.set_analysis(chain)
    editor.max_shift.setValue(20)
    assert "re-analyses the current Q/DQ graph only" in editor.needs_label.text()
    with qtbot.waitSignal(editor.apply_requested) as applied:
        editor.apply()
    path = Path(applied.args[0])
    assert path.parent == tmp_path and load_profile(path).max_shift == 20
    assert editor.in_use.path == str(path) and not editor.is_modified()
    errors = []
    monkeypatch.setattr(dialogs, "show_error", lambda parent, error, **kw: errors.append(error.message))
    editor.fused_edit.setText("relu, warp_drive")
    editor.fused_edit.textEdited.emit(editor.fused_edit.text())
    assert editor.apply() is None
    assert errors and "unknown ATen op 'warp_drive'" in errors[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name]


def test_op_candidates_panel_ranks_and_jumps(qtbot, chain):
    panel = OpCandidatesPanel()
    qtbot.addWidget(panel)
    panel.set_analysis(chain)
    t = panel.candidates
    rows = [[t.item(r, c).text() for c in range(t.columnCount())] for r in range(t.rowCount())]
    assert rows == [["sigmoid.default", "1", "1", "0", "1.2 KiB", "1"], ["softmax.int", "1", "0", "0", "0 B", "1"]]
    with qtbot.waitSignal(panel.node_activated) as jumped:
        t.cellClicked.emit(0, 0)
    sigmoid = next(c.node for c in chain.partition.cpu_nodes if c.op == "sigmoid.default")
    assert jumped.args == [sigmoid]
    e = panel.economics
    assert [e.item(r, 6).text() for r in range(e.rowCount())] == ["transfer outweighs work"] * 2
    assert "a one-op island: 1.2 KiB in and out for 1.0 kMAC" in panel.economics_note.text()


def test_ablation_chart_runs_in_a_worker_with_progress_and_cancel(qtbot):
    chart = AblationChart()
    qtbot.addWidget(chart)
    options = {"model": "conv_relu", "batch_size": 4, "calib_batches": 2, "seed": 11}
    default_session().inspect(RunConfig(**options), view=None)          # what the window has run
    chart.set_options(options)
    seen = []
    chart.progress.valueChanged.connect(seen.append)
    with qtbot.waitSignal(chart.report_ready, timeout=RUN_TIMEOUT_MS) as done:
        chart.start()
        assert chart.is_running() and chart.cancel_button.isEnabled() and not chart.run_button.isEnabled()
    report = done.args[0]
    assert [e.constraint for e in report.entries][2] == "pow2_scale" and seen and max(seen) == 1000
    ticks = chart.plot.getPlotItem().getAxis("left")._tickLevels[0]
    ranked = report.ranked()
    assert [label for _, label in ticks] == [constraint_name(e.constraint) for e in ranked]
    assert ranked[0].delta_db == max(e.delta_db for e in report.entries)   # the costliest first
    assert "pow2 scales cost" in chart.sentences.text() and not chart.is_running()
    # Another configuration: cancelled part-way, the window-side state is clean again.
    chart.set_options({**options, "seed": 12})
    chart.start()
    qtbot.waitUntil(lambda: chart.progress.value() > 0 or not chart.is_running(), timeout=RUN_TIMEOUT_MS)
    chart.cancel()
    qtbot.waitUntil(lambda: not chart.is_running(), timeout=RUN_TIMEOUT_MS)
    assert chart.status.text() == "Cancelled" and chart.report is None and chart.run_button.isEnabled()
    chart.set_options(options)                                          # the first one is remembered
    assert chart.report is report


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "settings.ini"))
    theme.apply_theme(QApplication.instance())
    from app.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    win.resize(1600, 1000)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.jobs.shutdown()


def _wait_run(qtbot, win, action):
    outcome = []
    win.jobs.succeeded.connect(outcome.append)
    win.jobs.failed.connect(outcome.append)
    action()
    qtbot.waitUntil(lambda: bool(outcome), timeout=RUN_TIMEOUT_MS)
    win.jobs.succeeded.disconnect(outcome.append)
    win.jobs.failed.disconnect(outcome.append)
    return outcome[0]


def test_window_apply_reanalyses_without_requantizing(qtbot, window, tmp_path, monkeypatch):
    whatif = window.whatif
    whatif.editor.profile_dir = tmp_path / "applied"
    first = _wait_run(qtbot, window, lambda: window.start_run({**CHAIN_OPTIONS, "quantizer": "vpu"}))
    assert whatif.candidates.candidates.item(0, 0).text() == "sigmoid.default"
    whatif.show(0)
    assert whatif.dock.isVisible() and whatif.tabs.currentWidget() is whatif.editor
    assert whatif.editor.in_use_label.text().startswith("<b>In use:</b> vpu-default")

    def no_pipeline(*args, **kwargs):
        raise AssertionError("Apply of a shift-range change quantized again")

    monkeypatch.setattr("vpu_core.pipeline.run_pipeline", no_pipeline)
    whatif.editor.min_shift.setValue(30)
    second = _wait_run(qtbot, window, whatif.editor.apply)
    assert not isinstance(second, Exception), getattr(second, "message", second)
    assert second.options["profile"].startswith(str(tmp_path / "applied"))
    assert all(s.out_of_range for s in second.analysis.requant)
    assert second.analysis.sqnr_db == first.analysis.sqnr_db
    assert window.controls.options()["profile"] == second.options["profile"]   # the profile in use shows
    assert "In use:</b> vpu-default" in whatif.editor.in_use_label.text() and "applied" in \
        whatif.editor.in_use_label.text()

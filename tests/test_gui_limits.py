"""pytest-qt tests of the per-op limits in the window's widgets: the limits editor (edit → the draft
profile → save → load gives the same limits; Apply re-analyses only), and what a limit-reason node
shows in the node panel, the Partition table, the status bar and the Next-kernel table. One real
run of the small chain model (tests/models/whatif_chain.py: two 1×1 convs over 4 channels) under a
profile whose conv2d needs input channels in multiples of 8."""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QDockWidget

from app.features.whatif import WhatIfController
from app.state import AppState
from app.widgets.node_html import node_html, summary_html
from app.widgets.op_candidates import OpCandidatesPanel
from app.widgets.status import single_html
from app.widgets.tables import PartitionTable
from app.widgets.whatif_panel import WhatIfPanel
from vpu_core.config import RunConfig
from vpu_core.hardware.limits import LIMITS
from vpu_core.profile import load_profile
from vpu_core.session import Session

CHAIN = str(Path(__file__).parent / "models" / "whatif_chain.py")


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    """The chain model's Inspection under the shipped profile plus conv2d in_channels_multiple = 8."""
    from resources import DEFAULT_PROFILE

    path = tmp_path_factory.mktemp("profiles") / "channels8.toml"
    path.write_text(DEFAULT_PROFILE.read_text(encoding="utf-8")
                    + "\n[op.conv2d]\nin_channels_multiple = 8\n", encoding="utf-8")
    return Session().inspect(RunConfig(model=CHAIN, batch_size=1, calib_batches=2, profile=str(path)), whatif=True)


def _text(html: str) -> str:
    import re
    from html import unescape

    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def test_a_limit_reason_node_says_cause_and_limit(limited):
    a = limited.analysis
    conv = next(c for c in a.partition.cpu_nodes if c.op.startswith("conv2d"))
    assert conv.cause == "limit" and conv.limit == "conv2d.in_channels_multiple"
    text = _text(node_html(a, limited.graph.model, conv.node))
    assert "cause limit — over a per-op limit" in text
    assert "input channels 4 not a multiple of 8 (conv2d.in_channels_multiple)" in text
    assert text.index("PARTITION") < text.index("OPERATION")          # where it runs comes first
    summary = _text(summary_html(a, limited.graph.model))
    assert "MACs on the VPU 0 %" in summary and "2 over a per-op limit" in summary


def test_tables_status_and_next_kernel_follow_the_cause(qtbot, limited):
    a = limited.analysis
    table = PartitionTable()
    qtbot.addWidget(table)
    table.set_analysis(a)
    cpu = next(table.tree.topLevelItem(i) for i in range(table.tree.topLevelItemCount())
               if table.tree.topLevelItem(i).text(0).startswith("CPU ops"))
    groups = [cpu.child(i).text(0) for i in range(cpu.childCount())]
    assert groups[0] == "over a per-op limit (2)" and groups[0] != groups[-1]
    status = _text(single_html(a, limited.graph.model, profile="channels8"))
    n = len(a.partition.subgraphs)
    assert status.startswith(f"whatif_chain · VPU · channels8 · ■ VPU {n} partition{'s' if n != 1 else ''} · VPU 0 % of")
    assert "0 violations — no conv / linear runs on the VPU (2 of 2 weights quantized) ·" in status
    panel = OpCandidatesPanel()
    qtbot.addWidget(panel)
    panel.set_whatif(limited.attached)
    names = [panel.candidates.item(r, 0).text() for r in range(panel.candidates.rowCount())]
    assert "conv2d in_channels_multiple 8→4" in names
    relaxed = next(c for c in limited.attached.op_candidates if c.kind == "limit")
    assert relaxed.nodes_moved == 2 and relaxed.bound_to == 4


def test_the_limits_editor_edits_the_draft_and_apply_only_reanalyses(qtbot, tmp_path, limited):
    state, panel, dock = AppState(), WhatIfPanel(), QDockWidget()
    dock.setWidget(panel)
    qtbot.addWidget(dock)
    whatif = WhatIfController(state, panel, dock, profile_dir=tmp_path / "applied")
    state.set_result(limited)
    limits = panel.editor.limits
    assert list(limits.values()) == [k.id for k in LIMITS]
    rows = limits._rows
    assert rows["conv2d.in_channels_multiple"].check.isChecked()
    assert rows["conv2d.in_channels_multiple"].hits.text() == "2 ops over"
    assert not whatif.is_modified()
    rows["conv2d.in_channels_multiple"].spins[0].setValue(4)           # relax it
    rows["conv2d.kernel_max"].check.setChecked(True)                  # and add a kernel bound
    rows["conv2d.kernel_max"].spins[1].setValue(5)
    rows["memory.sram_bytes"].check.setChecked(True)
    rows["memory.sram_bytes"].spins[0].setValue(4096)
    draft = state.profile_draft
    assert draft.limits == {"conv2d.in_channels_multiple": 4, "conv2d.kernel_max": (3, 5),
                            "memory.sram_bytes": 4096}
    assert whatif.is_modified() and whatif.needs() == ()          # limits never re-quantize
    assert "re-analyses the current Q/DQ graph only" in panel.editor.needs_label.text()
    diff = panel.editor.diff_view.toPlainText().splitlines()
    assert "op.conv2d.kernel_max: not set → 3×5" in diff and "memory.sram_bytes: not set → 4096" in diff
    saved = whatif.save_to(tmp_path / "next.toml")
    assert load_profile(tmp_path / "next.toml").limits == saved.limits == draft.limits
    rows["conv2d.kernel_max"].check.setChecked(False)                 # unchecked: not set
    assert "conv2d.kernel_max" not in state.profile_draft.limits


def test_an_empty_weight_plot_says_why(qtbot, tmp_path):
    """No conv / linear on the VPU: the scale histogram's weight plot says why it is empty."""
    import pyqtgraph as pg

    from app.widgets.plots import ScaleHistogram
    from resources import DEFAULT_PROFILE

    path = tmp_path / "no_conv.toml"
    path.write_text(DEFAULT_PROFILE.read_text(encoding="utf-8").replace('"conv2d", "linear", ', "", 1),
                    encoding="utf-8")
    analysis = Session().inspect(RunConfig(model="conv_relu", calib_batches=1, profile=str(path)),
                                 view=None).analysis
    plot = ScaleHistogram()
    qtbot.addWidget(plot)
    plot.set_analysis(analysis)
    notes = [item.toPlainText() for item in plot.series_plots[1].getViewBox().childItems()
             if isinstance(item, pg.TextItem)]
    assert "No weight quantized: none of 1 conv / linear runs on the VPU." in notes
    plot.set_analysis(analysis)                                       # shown again: one note, not two
    notes = [item.toPlainText() for item in plot.series_plots[1].getViewBox().childItems()
             if isinstance(item, pg.TextItem)]
    assert notes.count("No weight quantized: none of 1 conv / linear runs on the VPU.") == 1


def test_the_profile_box_offers_the_shipped_edge_profile(qtbot):
    from app.widgets.profile_combo import ProfileCombo
    from resources import EDGE_NPU_PROFILE

    box = ProfileCombo()
    qtbot.addWidget(box)
    box.set_recent([str(EDGE_NPU_PROFILE), "/tmp/mine.toml"])
    items = [box.itemText(i) for i in range(box.count())]
    assert items[:3] == ["VPU default", "edge_npu (shipped)", "mine"]   # listed once
    assert box.itemData(1) == str(EDGE_NPU_PROFILE)


# -- "Try it on the VPU" for a node over a limit ------------------------------------------------

def test_a_limit_fix_relaxes_every_failing_limit_to_the_nodes_value(limited, tmp_path):
    from vpu_core.profile import load_profile
    from vpu_core.whatif.profile_edit import profile_to_toml
    from vpu_core.whatif.try_on_vpu import before_after, fixed_profile, vpu_fix

    before = limited.analysis
    conv = next(c.node for c in before.partition.cpu_nodes if c.op.startswith("conv2d"))
    fix = vpu_fix(before, conv)
    assert (fix.kind, fix.limit, fix.bounds) == ("limit", "conv2d.in_channels_multiple",
                                                 (("conv2d.in_channels_multiple", 4),))
    assert fix.text == "relax conv2d.in_channels_multiple to 4"
    profile = fixed_profile(load_profile(limited.config.profile), fix)
    assert profile.limits["conv2d.in_channels_multiple"] == 4
    path = tmp_path / "relaxed.toml"
    path.write_text(profile_to_toml(profile), encoding="utf-8")
    after = Session().inspect(RunConfig(model=CHAIN, batch_size=1, calib_batches=2, profile=str(path)),
                              view=None).analysis
    card = before_after(before, after, fix.text)
    share = card.row("vpu_mac_share")                       # the card's MAC share is the real one
    assert (share.before, share.after, share.improved) == (0.0, 1.0, True)
    assert card.row("cpu_ops").delta == -2


def test_try_it_on_the_vpu_opens_the_limits_editor_on_the_relaxed_key(qtbot, tmp_path, limited):
    from app.features.whatif import TAB_PROFILE
    from app.widgets.node_html import node_html
    from vpu_core.whatif.try_on_vpu import vpu_fix

    state, panel, dock = AppState(), WhatIfPanel(), QDockWidget()
    dock.setWidget(panel)
    qtbot.addWidget(dock)
    whatif = WhatIfController(state, panel, dock, profile_dir=tmp_path / "applied")
    state.set_result(limited)
    conv = next(c.node for c in limited.analysis.partition.cpu_nodes if c.op.startswith("conv2d"))
    html = _text(node_html(limited.analysis, limited.graph.model, conv, fix=vpu_fix(limited.analysis, conv)))
    assert "Try it on the VPU ▸ (relax conv2d.in_channels_multiple to 4; T)" in html
    assert whatif.try_on_vpu(conv)
    assert panel.currentIndex() == TAB_PROFILE
    assert state.profile_draft.limits == {"conv2d.in_channels_multiple": 4}
    row = panel.editor.limits._rows["conv2d.in_channels_multiple"]
    assert panel.editor.limits.selected == "conv2d.in_channels_multiple" and row.check.font().bold()
    assert row.check.isChecked() and row.spins[0].value() == 4
    assert whatif.is_modified() and whatif.needs() == ()           # Apply re-partitions only

"""pytest-qt: compare mode (resnet8, VPU vs XNNPACK) and the real XNNPACK overlay, on real runs.

One user story per test (each real run costs seconds): the comparison on screen is the core's,
the two canvases select, pan and zoom together, the diff table shows each matched op's two
sides, the presenter walks the violations, and both sides export.
"""
from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QImage

from app.widgets.compare_table import pair_row
from app.widgets.delegation_legend import DelegationLegend
from vpu_core.compare import compare
from vpu_core.config import RunConfig
from vpu_core.graph.build import build_graph_model, display_id
from vpu_core.session import InspectionPair


def plain(text: str) -> str:
    return text.replace("\u200b", "")


def _click_node(qtbot, view, node: str) -> None:
    view.center_on(node)
    view.select_node(None)
    point = view.mapFromScene(view.graph_scene().items[node].box.center())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=point)


def _offset(view, node: str) -> QPointF:
    """Viewport centre minus the node's centre, in scene units."""
    center = view.mapToScene(view.viewport().rect().center())
    return QPointF(center) - view.graph_scene().items[node].box.center()


@pytest.mark.slow
def test_compare_mode_matches_syncs_diffs_walks_and_exports(qtbot, window, tmp_path, run_and_wait):
    single = run_and_wait(window, {"model": "resnet8", "quantizer": "vpu"})
    result = run_and_wait(window, action=lambda: qtbot.mouseClick(window.view_bar.compare,
                                                                  Qt.MouseButton.LeftButton))
    assert isinstance(result, InspectionPair) and window.state.showing_compare
    # A was on screen: nothing of it runs again (read back, not quantized: results cross from the
    # worker process, so it is an equal analysis, not the same object)
    assert replace(result.a.analysis, timings_s={}) == replace(single.analysis, timings_s={})
    assert not {"export", "prepare", "calibrate", "convert", "analyze"} & set(result.a.stages_run)
    a, b = result.a.analysis, result.b.analysis
    assert (a.quantizer, b.quantizer) == ("vpu", "xnnpack") and a.model == b.model == "resnet8"
    cmp = result.comparison
    assert (cmp.a_label, cmp.b_label) == ("VPU", "XNNPACK")
    core = compare(a, b)
    assert [(p.a.node, p.b.node) for p in cmp.pairs] == [(p.a.node, p.b.node) for p in core.pairs]
    assert len(cmp.pairs) == 22 and cmp.only_a == cmp.only_b == ()
    views = window.compare_view.views
    # both legends start folded to their chip: unfolded, they covered a half-width pane's first nodes
    from app.widgets.compare_view import FOLDED_BELOW_W

    assert all(v.legend_collapsed() and v.viewport().width() < FOLDED_BELOW_W for v in views.values())
    assert views["a"].full_model() == build_graph_model(a)
    assert views["b"].full_model() == build_graph_model(b)
    # the single view's grouping, the same groups open on both sides
    assert views["a"].groups.grouped is not None
    assert views["a"].groups.opened() == views["b"].groups.opened()
    views["a"].groups.expand_all()                       # opening on one side opens the other
    assert views["b"].groups.opened() == views["a"].groups.opened() == set(views["a"].groups.grouped.tree.groups)

    # at 1280×720 both headers show all their facts (wrapped, never cut: "SQNR 31.4 d"),
    # as high as each other, and the canvases open at a zoom that draws the labels
    from app.graph_view.nodes import LOD_TEXT

    window.resize_for(1280, 720)
    qtbot.wait(10)
    heads = window.compare_view.headers
    assert heads["a"].height() == heads["b"].height()
    for side in ("a", "b"):
        assert heads[side].heightForWidth(heads[side].width()) <= heads[side].height()
        assert "SQNR" in heads[side].toolTip() and "violations" in heads[side].toolTip()
        assert views[side].zoom() >= LOD_TEXT
        assert views[side]._legend.isVisibleTo(views[side])        # each side its own legend
    # the canvases keep half the window; the toolbar's counter is whole ("A 0 · B 75 violations")
    area = sum(v.width() * v.height() for v in views.values())
    assert area >= 0.5 * window.width() * window.height(), area / (window.width() * window.height())
    counter = window.view_bar.violation_label
    assert counter.width() >= counter.sizeHint().width() and "violations" in counter.text()

    # the diff table: one row per matched op, both sides' qparams and rules
    table = window.panels.compare
    assert window.panels.tables.currentWidget() is table
    assert table.rows() == [pair_row(p) for p in cmp.pairs]
    first = table.rows()[0]
    assert first[:2] == ["conv2d", "entry.0 (Conv2d)"]
    assert re.fullmatch(r"w 16 ch 2\^-\d+…2\^-\d+ · b int32", first[2])       # VPU: pow2 scales
    assert first[3].startswith("w 16 ch 0.") and "2^" not in first[3]        # XNNPACK: float scales
    assert first[4] == "✓" and "pow2" in first[5] and "bias int32" in first[5]
    assert {r[6] for r in table.rows()} == {"VPU"}                              # nothing moved
    add_row = next(r for r in table.rows() if r[0] == "add")
    assert add_row[4] == "✓" and add_row[5] == "shared"

    # synchronised selection: click a conv on B, its A partner is selected; by op, not by name
    pair = next(p for p in cmp.pairs if p.key.startswith("stages.1.skip"))
    _click_node(qtbot, views["b"], pair.b.node)
    assert views["b"].selected() == pair.b.node and views["a"].selected() == pair.a.node
    panel = plain(window.panels.node_panel.toPlainText())
    assert "B · XNNPACK" in panel and "⇄" in panel and pair.b.node in panel
    assert window.tables_dock.windowTitle() == "Report — B: XNNPACK"       # the docks follow B
    quant = next(n for n in b.nodes[pair.b.node].outputs if "quantize" in b.nodes[n].op)
    window.compare_view.select("b", quant)                                  # a Q/DQ: its op's partner
    assert views["a"].selected() == pair.a.node
    row = next(i for i, p in enumerate(cmp.pairs) if p.key.startswith("stages.2.path_a.3"))
    item = table.tree.topLevelItem(row)
    table.tree.scrollToItem(item)
    qtbot.mouseClick(table.tree.viewport(), Qt.MouseButton.LeftButton, pos=table.tree.visualItemRect(item).center())
    assert (views["a"].selected(), views["b"].selected()) == (cmp.pairs[row].a.node, cmp.pairs[row].b.node)

    # synchronised zoom and pan: B follows A's zoom and keeps the same ops in the middle
    views["a"].zoom_by(0.5)
    assert abs(views["b"].zoom() - views["a"].zoom()) < 1e-9
    views["a"].verticalScrollBar().setValue(views["a"].verticalScrollBar().value() + 250)
    centre = views["a"].mapToScene(views["a"].viewport().rect().center())
    near = min(cmp.pairs, key=lambda p: (views["a"].graph_scene().items[p.a.node].box.center()
                                         - QPointF(centre)).manhattanLength())
    drift = _offset(views["a"], near.a.node) - _offset(views["b"], near.b.node)
    assert drift.manhattanLength() < 60, drift

    # presenter: V walks the violations (A has none, B all 53), the status bar says where
    views["b"].setFocus()
    qtbot.keyClick(views["b"], Qt.Key.Key_V)
    message = window.statusBar().currentMessage()
    assert message.startswith(f"Violation 1 of {len(b.violations)} (XNNPACK): ")
    first_v = window.presenter._walk[0][2]
    assert views["b"].selected() == display_id(views["b"].graph_scene().model, first_v.node)
    assert first_v.message in message and first_v.message in plain(window.panels.node_panel.toPlainText())
    qtbot.keyClick(views["b"], Qt.Key.Key_V, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(views["b"], Qt.Key.Key_V, Qt.KeyboardModifier.ShiftModifier)
    assert window.statusBar().currentMessage().startswith(f"Violation {len(b.violations) - 1} of ")
    qtbot.keyClick(views["b"], Qt.Key.Key_PageDown)
    assert window.statusBar().currentMessage().startswith(f"Violation {len(b.violations)} of ")

    # exports in compare mode: both panes as on screen, both whole graphs, the report's comparison
    shot = window.exports.export_image(tmp_path / "compare_view.png", "view")
    image = QImage(str(shot))
    assert (image.width(), image.height()) == (window.compare_view.width(), window.compare_view.height())
    svg = window.exports.export_image(tmp_path / "both_graphs.svg", "graph").read_text(encoding="utf-8")
    assert "A · VPU" in svg and "B · XNNPACK" in svg and svg.count("conv2d") >= 18
    report = window.exports.export_report_to(tmp_path / "compare.html").read_text(encoding="utf-8")
    assert 'id="comparison"' in report and report.count("data:image/png;base64,") >= 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["both_graphs.svg", "compare.html", "compare_view.png"]

    # leaving compare mode shows A at once, without another run
    window.compare.set_mode(False)
    assert not window.runs.is_running() and window.graph_stack.currentWidget() is window.graph_view
    assert window.graph_view.groups.grouped.flat == build_graph_model(a)
    assert not window.panels.tables.isTabVisible(window.panels.compare_index)


@pytest.mark.slow
def test_xnnpack_overlay_colours_by_what_executorch_delegated(qtbot, window, run_and_wait):
    probe = str(Path(__file__).parent / "models" / "delegation_probe.py")
    before = run_and_wait(window, {"model": probe, "quantizer": "vpu"})
    assert before.attached.delegation is None                   # not lowered until asked
    simulated = window.state.graph().model
    assert window.controls.target_sources()[:2] == ["simulated", "xnnpack"]   # the target registry
    # Ctrl+D's path: the same graph judged by XNNPACK (the quantizer stays: the override)
    after = run_and_wait(window, action=lambda: window.overlay.set_source("xnnpack"))
    # only lowered: PTQ was not re-run (the same quantized program, so the same stage timings)
    assert after.analysis.timings_s["convert"] == before.analysis.timings_s["convert"]
    delegation = after.attached.delegation
    assert delegation is not None and delegation.source == "xnnpack"
    overlay = window.graph_view.groups.grouped.flat            # drawn with its module groups
    assert overlay == build_graph_model(after.analysis, partition_source="xnnpack", delegation=delegation)
    # through the VPU quantizer: XNNPACK takes the conv, the transpose (a CPU op for the VPU) and
    # the linear; it has no embedding or layer_norm kernel and rejects the int64 add
    not_delegated = {c.node for c in delegation.cpu_nodes}
    assert not_delegated == {"embedding", "layer_norm", "add_1"}
    assert {n.id for n in overlay.nodes if n.category == "cpu"} == not_delegated
    assert {n.id for n in simulated.nodes if n.category == "cpu"} == {"transpose", "embedding", "layer_norm", "add_1"}
    legend = window.overlay.delegation_legend(window.graph_view)
    assert isinstance(legend, DelegationLegend) and legend.isVisible() and legend.title == "XNNPACK"
    assert [text for _, text, _ in legend.rows][:2] == ["on XNNPACK", "on the CPU"]
    assert "ops XNNPACK leaves on the CPU" in [text for _, text, _ in legend.rows]     # its badges
    part = delegation
    status = plain(window.summary.toolTip())
    assert "XNNPACK 1 partition" in status and f"{len(not_delegated)} CPU ops" in status
    assert "violation" not in status
    # the overlay's numbers agree everywhere: status bar, node panel summary and the tables
    assert f"{len(part.boundaries)} boundaries" in window.summary.text()
    assert window.state.selection is None                        # the node panel shows the summary
    summary = " ".join(plain(window.panels.node_panel.toPlainText()).split())
    assert f"CPU ops {len(not_delegated)}" in summary and "VPU rule violations" not in summary
    assert f"Boundary transfers {len(part.boundaries)} edges" in summary
    titles = window.panels.partition.top_titles()            # XNNPACK's verdict only
    assert titles[0] == "Totals" and "XNNPACK partitions (1)" in titles and f"CPU ops ({len(not_delegated)})" in titles
    assert window.panels.tables.tabText(1) == f"Partition ({len(not_delegated)} CPU)"
    window.navigation.select_in("a", "layer_norm")
    text = plain(window.panels.node_panel.toPlainText())
    assert "CPU (XNNPACK leaves it there)" in text and "XNNPACK has no kernel for native_layer_norm.default" in text
    count = re.sub(r"<[^>]+>", "", window.view_bar.violation_label.text())
    assert count == f"{len(not_delegated)} CPU ops"                 # the walk is XNNPACK's CPU ops
    n = len(after.analysis.violations)

    # back to the VPU's partition: no job, the inspection keeps its delegation
    window.overlay.set_source("simulated")
    assert re.sub(r"<[^>]+>", "", window.view_bar.violation_label.text()) == (f"{n} violations" if n else "no violations")
    assert not window.runs.is_running() and not legend.isVisible()
    assert window.graph_view.groups.grouped.flat == build_graph_model(after.analysis)
    assert f"VPU partitions ({len(after.analysis.partition.subgraphs)})" in window.panels.partition.top_titles()


def test_presentation_options_reach_every_canvas_the_docks_and_persist(qtbot, window):
    from PySide6.QtWidgets import QApplication

    from app import theme

    qtbot.mouseClick(window.view_bar.large_font, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(window.view_bar.high_contrast, Qt.MouseButton.LeftButton)
    for view in window.overlay.all_views():                # the single canvas and both compare sides
        assert view.theme().large_font and view.theme().high_contrast
    sheet = QApplication.instance().styleSheet()
    assert f"font-size: {theme.LARGE_PT}pt" in sheet and theme.HC_MUTED in sheet
    assert window.panels.node_panel.font().pointSizeF() == theme.LARGE_PT
    # the large font still fits a 1280×720 window (the op list's 8 larger rows made it 721 px high)
    from app.widgets.profile_editor import OP_ROWS_LARGE

    ops = window.whatif_panel.editor.op_list
    assert window.minimumSizeHint().height() <= 720
    assert ops.minimumHeight() == OP_ROWS_LARGE * (ops.fontMetrics().lineSpacing() + 4) + 2 * ops.frameWidth() + 4
    assert window.store.view_option("large_font") and window.store.view_option("high_contrast")
    qtbot.mouseClick(window.view_bar.large_font, Qt.MouseButton.LeftButton)
    assert not window.graph_view.theme().large_font and window.graph_view.theme().high_contrast
    assert "font-size: %spt" % theme.LARGE_PT not in QApplication.instance().styleSheet()
    assert not window.store.view_option("large_font")
    qtbot.mouseClick(window.view_bar.high_contrast, Qt.MouseButton.LeftButton)
    assert QApplication.instance().styleSheet() == theme.stylesheet()


VIEWY = """
import torch
from torch import nn

class Viewy(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 8 * 8, 5)

    def forward(self, x):
        y = torch.relu(self.conv(x))
        return self.fc(y.reshape(x.shape[0], -1))   # a dynamic batch adds a sym_size op

def get_model():
    torch.manual_seed(0)
    return Viewy(), (torch.randn(1, 3, 8, 8),)
"""


@pytest.mark.slow
def test_ops_without_counterpart_are_marked_and_listed(qtbot, window, tmp_path, run_and_wait):
    from app.widgets.compare_view import MarkItem

    path = tmp_path / "viewy.py"
    path.write_text(VIEWY, encoding="utf-8")
    a = RunConfig(model=str(path), quantizer="xnnpack")
    window.controls.set_config(a)
    window.compare_bar.set_config(RunConfig(model=str(path), quantizer="xnnpack", dynamic_batch=True))
    result = run_and_wait(window, action=lambda: window.compare.set_mode(True))
    cmp = result.comparison
    assert (cmp.a_label, cmp.b_label) == ("XNNPACK · static batch", "XNNPACK · dynamic batch")
    assert cmp.only_a == () and len(cmp.only_b) == 1
    extra = cmp.only_b[0]
    assert result.b.analysis.nodes[extra].op == "sym_size.int"
    assert {p.op for p in cmp.pairs} == {"conv2d.default", "relu.default", "reshape.default", "linear.default"}

    view = window.compare_view.views["b"]
    marks = window.compare_view.marks["b"]
    assert len(marks) == 1 and isinstance(marks[0], MarkItem) and marks[0].scene() is view.graph_scene()
    assert marks[0].tag == "no match in XNNPACK · static batch"
    assert marks[0].rects[0].contains(view.graph_scene().items[extra].box)
    assert window.compare_view.marks["a"] == []
    assert "1 unmatched" in window.compare_view.headers["b"].toolTip()     # the plain text
    last = window.panels.compare.rows()[-1]
    assert last[:4] == ["sym_size", "only in XNNPACK · dynamic batch", "", extra]
    assert "1 unmatched" in window.summary.text()

    window.navigation.select_in("a", "conv2d")
    window.navigation.select_in("b", extra)           # no partner: the other side clears
    assert view.selected() == extra and window.compare_view.views["a"].selected() is None
    assert "no counterpart in XNNPACK · static batch" in plain(window.panels.node_panel.toPlainText())


def test_an_op_placed_differently_is_marked_on_both_sides(qtbot, window, tmp_path, run_and_wait):
    from resources import DEFAULT_PROFILE

    profile = tmp_path / "no_relu.toml"         # the same VPU without a relu kernel
    text = DEFAULT_PROFILE.read_text(encoding="utf-8")
    profile.write_text(text.replace('"conv2d", "linear", "relu",', '"conv2d", "linear",'), encoding="utf-8")
    window.controls.set_config(RunConfig(model="conv_relu", quantizer="vpu", calib_batches=1))
    window.compare_bar.set_config(RunConfig(quantizer="vpu", profile=str(profile)))
    result = run_and_wait(window, action=lambda: window.compare.set_mode(True))
    cmp = result.comparison
    assert (cmp.a_label, cmp.b_label) == ("VPU · default profile", "VPU · no_relu")
    moved = cmp.partition_changes
    assert [(p.op, p.a.placement, p.b.placement) for p in moved] == [("relu.default", "vpu", "cpu")]
    row = next(r for r in window.panels.compare.rows() if r[0] == "relu")
    assert row[6] == "VPU → CPU"
    for side, node in (("a", moved[0].a.node), ("b", moved[0].b.node)):
        marks = window.compare_view.marks[side]
        assert [m.tag for m in marks] == ["placed differently"]
        assert marks[0].rects[0].contains(window.compare_view.views[side].graph_scene().items[node].box)
    assert "1 placed differently" in window.summary.text()
    # the toolbar's violation count names both sides
    assert re.sub(r"<[^>]+>", "", window.view_bar.violation_label.text()) == "A 0 · B 0 violations"

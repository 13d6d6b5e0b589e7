"""Module groups on the canvas (pytest-qt, offscreen): expand / collapse in place by double-click,
keys and menu, reveal, breadcrumbs, minimap, zoom range, fit, metric overlay, shared scales.
Real resnet8 / transformer analyses; a synthetic graph for the tall-graph navigation."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent
from PySide6.QtWidgets import QApplication

from app.graph_view import GraphView
from app.graph_view.info_html import group_html, shared_scale_html
from app.graph_view.nodes import SHARED
from vpu_core.config import ViewOptions
from vpu_core.layout.grouped import GroupedGraph
from vpu_core.graph.groups import group_id
from tools.layouts.synthetic import synthetic_qdq_graph, synthetic_tree
from vpu_core.session import display_graph


def _view(qtbot, w=1000, h=700) -> GraphView:
    v = GraphView()
    qtbot.addWidget(v)
    v.resize(w, h)
    v.show()
    qtbot.waitExposed(v)
    return v


@pytest.fixture
def resnet(qtbot, analysis):
    dg = display_graph(analysis("resnet8"), ViewOptions())
    v = _view(qtbot)
    v.set_graph(dg.model, dg.layout, dg.grouped, depth=1)
    return v, dg


def _screen(v: GraphView, path: str) -> QPoint:
    return v.mapFromScene(v.graph_scene().items[group_id(path)].box.center())


def test_double_click_opens_a_group_in_place_and_its_title_closes_it(resnet, qtbot):
    v, dg = resnet
    s = v.graph_scene()
    assert group_id("stages") in s.items and not s.frames
    v.zoom_by(3.5, QPointF(_screen(v, "stages")))      # a scene bigger than the view: it can stay put
    box = s.items[group_id("stages")].box
    top = v.mapFromScene(QPointF(box.center().x(), box.top()))
    with qtbot.waitSignal(v.groups_changed):
        qtbot.mouseDClick(v.viewport(), Qt.MouseButton.LeftButton, pos=_screen(v, "stages"))
    s = v.graph_scene()
    assert "stages" in s.frames and group_id("stages") not in s.items
    assert {group_id(p) for p in ("stages.0", "stages.1", "stages.2")} <= set(s.items)
    frame = s.frames["stages"].box
    assert (v.mapFromScene(QPointF(frame.center().x(), frame.top())) - top).manhattanLength() <= 2
    title = v.mapFromScene(frame.left() + 30, frame.top() + 8)
    with qtbot.waitSignal(v.groups_changed):
        qtbot.mouseDClick(v.viewport(), Qt.MouseButton.LeftButton, pos=title)
    assert group_id("stages") in v.graph_scene().items and not v.graph_scene().frames
    assert v.selected() == group_id("stages")


def test_keys_menu_and_collapse_to_depth(resnet, qtbot):
    v, dg = resnet
    assert v.select_node(group_id("stages"))
    qtbot.keyClick(v, Qt.Key.Key_E)
    assert "stages" in v.graph_scene().frames
    assert v.select_node(group_id("stages.1"))
    qtbot.keyClick(v, Qt.Key.Key_E)
    inner = next(n for n in dg.grouped.tree.groups["stages.1"].nodes if n in v.graph_scene().items)
    assert v.select_node(inner)
    qtbot.keyClick(v, Qt.Key.Key_C)                     # closes the group the node is in
    assert "stages.1" not in v.graph_scene().frames and group_id("stages.1") in v.graph_scene().items
    qtbot.keyClick(v, Qt.Key.Key_0)                     # everything open
    shown = v.graph_scene().model
    assert not [n for n in shown.nodes if n.category == "group"] and len(shown.frames) >= 5
    qtbot.keyClick(v, Qt.Key.Key_1)                     # back to the top-level blocks
    assert not v.graph_scene().frames
    menu = v.groups.menu(v.graph_scene().items[group_id("stages")].box.center())
    texts = [a.text() for a in menu.actions()]
    assert texts[0] == "Expand stages (Sequential)" and "Expand all" in texts and "Fit all" in texts
    depths = next(a.menu() for a in menu.actions() if a.menu() is not None)
    assert [a.text() for a in depths.actions()] == [str(d) for d in range(1, dg.grouped.tree.max_depth + 1)]
    next(a for a in depths.actions() if a.text() == "2").trigger()
    assert set(v.graph_scene().frames) == {"entry", "stages"}


def test_right_click_opens_the_group_menu(resnet):
    v, _ = resnet
    pos = _screen(v, "stages")
    shown = []

    def read_and_close():                                # runs inside the menu's own event loop
        menu = QApplication.activePopupWidget()
        shown.append([a.text() for a in menu.actions()] if menu is not None else [])
        if menu is not None:
            menu.close()

    QTimer.singleShot(0, read_and_close)
    QApplication.sendEvent(v.viewport(), QContextMenuEvent(QContextMenuEvent.Reason.Mouse, pos,
                                                           v.viewport().mapToGlobal(pos)))
    assert shown and shown[0][0] == "Expand stages (Sequential)" and "Fit all" in shown[0]


def test_selecting_a_hidden_node_reveals_it_with_breadcrumbs(resnet, qtbot):
    v, dg = resnet
    conv = "conv2d_4"                      # inside stages.1.path_a, hidden at depth 1
    assert conv not in v.graph_scene().items
    with qtbot.waitSignal(v.node_selected) as sig:
        assert v.center_on(conv)
    assert sig.args == [conv] and conv in v.graph_scene().items
    assert v.visible_scene_rect().contains(v.graph_scene().items[conv].box.center())
    crumbs = v._crumbs.texts()
    assert crumbs[:4] == ["model", "stages (Sequential)", "1 (_ResStage)", "path_a (Sequential)"]
    assert crumbs[-1] == conv and not any("." in t and "(" in t.split(".")[-1] for t in crumbs)
    assert crumbs[-2].endswith("(Conv2d)")              # its own one-op module, drawn as the op
    v.select_node(None)
    v._crumbs.group_clicked.emit(dg.grouped.full_tree.owner[conv])
    assert v.selected() == conv
    v._crumbs.group_clicked.emit("stages")             # a breadcrumb: select that group
    assert v.selected() == group_id("stages") and v.graph_scene().frame_selected == "stages"


def test_search_finds_nodes_inside_closed_groups(resnet):
    v, _ = resnet
    hits = v.search("conv2d_")
    assert len(hits) >= 8 and not any(h in v.graph_scene().items for h in hits)
    assert group_id("stages") in v.graph_scene().matches      # the box that hides them
    assert v.next_match() == hits[0] and hits[0] in v.graph_scene().items


def test_minimap_zoom_range_and_fit_on_a_tall_graph(qtbot):
    m = synthetic_qdq_graph(1500, seed=3)
    v = _view(qtbot, 900, 600)
    v.set_graph(m, None, GroupedGraph(m, synthetic_tree(m)), depth=9)     # all open: tall
    s = v.graph_scene()
    assert s.sceneRect().height() > 20 * s.sceneRect().width()
    assert v.zoom() >= 0.6                                   # opens legible, at the top
    mm = v._minimap
    assert mm.isVisible() and mm.marks() == sum(1 for it in s.items.values()
                                                if it.node.violations or it.node.category == "cpu")
    lo, hi = v.zoom_range()
    v.zoom_by(1e-6)
    assert v.zoom() == pytest.approx(lo) and lo * s.sceneRect().height() > 0.7 * v.viewport().height()
    v.zoom_by(1e6)
    assert v.zoom() == pytest.approx(hi) == 4.0
    v.fit()                                                  # the width, legibly
    vis, r = v.visible_scene_rect(), s.sceneRect()
    assert v.zoom() >= 0.6 and vis.width() >= r.width() * 0.95 and vis.height() < r.height() / 5
    v.fit_all()
    assert v.visible_scene_rect().height() >= r.height() - 1
    v.fit()
    target = QPointF(mm.width() / 2, mm.height() * 0.8)
    qtbot.mouseClick(mm, Qt.MouseButton.LeftButton, pos=target.toPoint())
    assert v.visible_scene_rect().center().y() == pytest.approx(r.height() * 0.8, rel=0.05)


def test_metric_overlay_colours_ops_and_group_bars(resnet):
    v, dg = resnet
    v.highlights.set_metric("sqnr")
    s = v.graph_scene()
    ops = [n.id for n in s.model.nodes if n.category in ("vpu", "cpu")]
    assert ops and all(i in s.cache.overrides for i in ops)
    box = s.items[group_id("stages")]
    assert box.metric_bar is not None and sum(box.metric_bar[0].counts) > 0
    assert v._legend.gradient is not None and "SQNR" in v._legend.gradient.title
    v.groups.expand("stages")                             # the overlay stays on after a toggle
    assert v.graph_scene().cache.overrides and v.highlights.metric == "sqnr"
    v.highlights.set_metric(None)
    assert not v.graph_scene().cache.overrides and v._legend.gradient is None


@pytest.mark.slow
def test_shared_scale_group_is_outlined_and_listed(qtbot, analysis):
    a = analysis("resnet8", "xnnpack")
    dg = display_graph(a, ViewOptions())
    v = _view(qtbot)
    v.set_graph(dg.model, dg.layout, dg.grouped, depth=9)
    assert v.select_node("add")
    group = next(g for g in a.scale_groups if "add" in g.ops)
    shared = v.graph_scene().shared
    assert "add" in shared and all(m.producer in shared for m in group.members)
    assert all(v.graph_scene().items[i].state & SHARED for i in shared)
    html = shared_scale_html(a, "add", v.graph_scene().model)
    assert "scales differ" in html and html.count("<tr>") == len(group.members) + 1
    assert f"{group.members[0].scales[0]:.4g}" in html
    v.select_node(None)
    assert not v.graph_scene().shared
    vpu = analysis("resnet8", "vpu")
    assert "one scale: 2^" in shared_scale_html(vpu, "add")


def test_group_panel_html(resnet):
    _, dg = resnet
    text = group_html(dg.grouped.flat, group_id("stages"))
    stats = dg.grouped.stats["stages"]
    assert "stages (Sequential)" in text and f"{stats.vpu_ops} ops" in text and str(stats.nodes) in text
    assert group_html(dg.grouped.flat, "conv2d") is None

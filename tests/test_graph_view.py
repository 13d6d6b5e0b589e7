"""The graph canvas (pytest-qt, offscreen): selection, centring, search, fit, LOD, export."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QImage

from app.graph_view import GraphView, Theme, render_to_image, render_view_to_image
from tools.bench.scene import measure_scene
from app.graph_view.nodes import MATCHED, NEIGHBOUR, SELECTED
from vpu_core.layout import layout_graph
from tools.layouts.synthetic import synthetic_qdq_graph


@pytest.fixture(scope="module")
def graph():
    m = synthetic_qdq_graph(300, seed=4)
    return m, layout_graph(m)


@pytest.fixture
def view(qtbot, graph):
    v = GraphView()
    qtbot.addWidget(v)
    v.resize(1000, 700)
    v.show()
    qtbot.waitExposed(v)
    v.set_graph(*graph)
    return v


def _visible(view, node_id):
    return view.visible_scene_rect().contains(view.graph_scene().items[node_id].box.center())


def _frame(view) -> QImage:
    img = QImage(view.viewport().size(), QImage.Format.Format_ARGB32)
    view.viewport().render(img)
    return img


def test_scene_has_every_node(view, graph):
    m, lay = graph
    s = view.graph_scene()
    assert set(s.items) == {n.id for n in m.nodes}
    assert s.sceneRect().width() == pytest.approx(lay.width)
    assert s.itemIndexMethod() == s.ItemIndexMethod.BspTreeIndex
    assert sum(len(b.routes) for b in s.bands) == len(lay.edges)


def test_select_highlights_node_edges_and_neighbours(view, graph, qtbot):
    m, _ = graph
    conv = next(n.id for n in m.nodes if n.label == "conv2d")
    with qtbot.waitSignal(view.node_selected) as sig:
        assert view.select_node(conv)
    assert sig.args == [conv]
    s = view.graph_scene()
    assert s.items[conv].state & SELECTED and view.selected() == conv
    ins = [e.src for e in m.edges if e.dst == conv]
    outs = [e.dst for e in m.edges if e.src == conv]
    assert all(s.items[n].state & NEIGHBOUR for n in ins + outs)
    assert not s.highlight.path.isEmpty()
    assert view.select_node("no-such-node") is False and view.selected() == conv
    with qtbot.waitSignal(view.node_selected) as sig:
        view.select_node(None)
    assert sig.args == [""] and not s.items[conv].state & SELECTED
    assert not any(s.items[n].state & NEIGHBOUR for n in ins + outs)


def test_center_on_selects_and_scrolls(view, graph):
    m, _ = graph
    last = m.nodes[-1].id
    view.fit()
    assert view.center_on(last)
    assert view.selected() == last and _visible(view, last)
    assert view.zoom() >= 0.6                        # zoomed in enough to read


def test_click_selects_and_drag_does_not(view, graph, qtbot):
    m, _ = graph
    target = m.nodes[5].id
    view.center_on(target)
    view.select_node(None)
    pos = view.mapFromScene(view.graph_scene().items[target].box.center())
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert view.selected() == target
    view.select_node(None)
    qtbot.mousePress(view.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    qtbot.mouseMove(view.viewport(), pos + QPoint(60, 60))
    qtbot.mouseRelease(view.viewport(), Qt.MouseButton.LeftButton, pos=pos + QPoint(60, 60))
    assert view.selected() is None


def test_search_and_match_cycling(view, graph):
    m, _ = graph
    hits = view.search("CONV")
    expected = [n.id for n in m.nodes if "conv" in n.id.lower() or "conv" in n.label.lower()]
    assert hits == expected and len(hits) > 2
    s = view.graph_scene()
    assert all(s.items[h].state & MATCHED for h in hits)
    assert view.next_match() == hits[0] and view.selected() == hits[0] and _visible(view, hits[0])
    assert view.next_match() == hits[1]
    assert view.prev_match() == hits[0]
    assert view.prev_match() == hits[-1]             # wraps around
    by_label = view.search("Softmax")
    assert by_label and all(m.node(i).label == "softmax" for i in by_label)
    assert view.search("") == [] and not any(it.state & MATCHED for it in s.items.values())
    assert view.next_match() is None


def test_fit_and_zoom_keys(view, qtbot):
    view.fit_all()
    vis = view.visible_scene_rect()
    r = view.sceneRect()
    assert vis.top() <= r.top() + 1 and vis.bottom() >= r.bottom() - 1
    z = view.zoom()
    qtbot.keyClick(view, Qt.Key.Key_Plus)
    assert view.zoom() == pytest.approx(z * 1.25)
    qtbot.keyClick(view, Qt.Key.Key_Minus)
    qtbot.keyClick(view, Qt.Key.Key_Minus)
    assert view.zoom() == pytest.approx(z * 0.8)
    view.center_on(view.graph_scene().ids[0])
    qtbot.keyClick(view, Qt.Key.Key_F, Qt.KeyboardModifier.ShiftModifier)   # Fit all
    assert view.zoom() == pytest.approx(z)


def test_wheel_zooms_around_the_cursor(view):
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QWheelEvent
    view.center_on(view.graph_scene().ids[20])
    pos = QPointF(200, 150)
    under = view.mapToScene(pos.toPoint())
    z = view.zoom()
    ev = QWheelEvent(pos, view.viewport().mapToGlobal(pos), QPoint(0, 0), QPoint(0, 240),
                     Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                     Qt.ScrollPhase.NoScrollPhase, False)
    view.wheelEvent(ev)
    assert view.zoom() == pytest.approx(z * 1.0015 ** 240)
    after = view.mapToScene(pos.toPoint())
    assert abs(after.x() - under.x()) < 3 and abs(after.y() - under.y()) < 3


def test_colours_and_painted_pixels(view, graph):
    t = Theme.make()
    vpu0, vpu1, cpu = t.fill("vpu", 0), t.fill("vpu", 1), t.fill("cpu", None)
    assert len({vpu0.name(), cpu.name(), t.fill("qdq", None).name(), t.fill("removed", None).name(),
                t.fill("param", None).name(), t.fill("io", None).name()}) == 6
    assert 15 <= cpu.hslHue() <= 50                                   # warm amber: the CPU
    # one green for every partition: a partition is told by its numbered tag, never a second shade
    assert {t.fill("vpu", i).name() for i in range(10)} == {vpu0.name()} == {vpu1.name()}
    assert 90 <= vpu0.hslHue() <= 160
    m, _ = graph
    node = next(n for n in m.nodes if n.category == "cpu")
    view.center_on(node.id)
    view.select_node(None)
    img = _frame(view)
    box = view.graph_scene().items[node.id].box
    p = view.mapFromScene(box.left() + 6, box.top() + 4)
    assert QColor(img.pixel(p)).name() == cpu.name()


def test_level_of_detail_and_overview(qtbot):
    m = synthetic_qdq_graph(4000, seed=1)
    v = GraphView()
    qtbot.addWidget(v)
    v.resize(900, 700)
    v.show()
    v.set_graph(m, layout_graph(m))
    s = v.graph_scene()
    assert not s.overview_mode                       # opens legible, at the top of the graph
    assert 0.6 <= v.zoom() <= 1.5 and v.visible_scene_rect().top() <= s.sceneRect().top() + 1
    v.fit_all()
    assert s.overview_mode                           # thousands of nodes: one raster item
    img = _frame(v)
    assert not img.isNull()
    some = m.nodes[len(m.nodes) // 2].id
    v.center_on(some)
    assert not s.overview_mode and _visible(v, some)


def test_large_font_and_high_contrast(view):
    view.set_large_font(True)
    assert view.theme().large_font and view.theme().label_font.pixelSize() > 11
    view.set_high_contrast(True)
    assert view.theme().high_contrast and view.theme().large_font
    assert not _frame(view).isNull()
    view.set_large_font(False)
    assert view.theme().label_font.pixelSize() == 11


def test_render_whole_graph_png_and_svg(graph, tmp_path, qapp):
    m, lay = graph
    png = render_to_image(m, lay, tmp_path / "g.png", scale=0.5)
    img = QImage(str(tmp_path / "g.png"))
    assert img.width() == png["size"][0] and img.height() == png["size"][1]
    assert img.height() >= lay.height * 0.5 - 1
    assert (tmp_path / "g.png").stat().st_size > 20_000
    svg = render_to_image(m, lay, tmp_path / "g.svg")
    text = (tmp_path / "g.svg").read_text()
    assert svg["scale"] == 1.0 and "<svg" in text and "softmax" in text
    assert "CPU ↔ VPU boundary" in text                                     # the legend
    assert (tmp_path / "g.svg").stat().st_size > 50_000


def test_png_scale_is_capped_for_huge_graphs(qapp, tmp_path):
    m = synthetic_qdq_graph(3000, seed=2)
    lay = layout_graph(m)
    out = render_to_image(m, lay, tmp_path / "big.png", scale=2.0)
    assert out["scale"] < 2.0 and max(out["size"]) <= 30_000


def test_render_current_view(view, tmp_path):
    view.center_on(view.graph_scene().ids[10])
    out = render_view_to_image(view, tmp_path / "v.png")
    img = QImage(str(tmp_path / "v.png"))
    assert (img.width(), img.height()) == out["size"] == (view.viewport().width(),
                                                          view.viewport().height())
    assert (tmp_path / "v.png").stat().st_size > 5_000
    render_view_to_image(view, tmp_path / "v.svg")
    assert "<svg" in (tmp_path / "v.svg").read_text()


def test_measure_scene(graph, qapp):
    """Every column is measured (how fast is `python -m tools.bench`'s to print, not a test's to bound)."""
    out = measure_scene(*graph, frames=4)
    for key in ("scene_build_s", "first_frame_s", "pan_frame_s", "fit_first_frame_s", "fit_frame_s",
                "zoomed_out_pan_frame_s"):
        assert isinstance(out[key], float) and out[key] > 0.0, key
    assert out["rss_mb"] > 10


def test_a_graph_that_fits_only_below_label_zoom_opens_with_its_labels(qtbot):
    """ds_cnn at 1280×720 opened as a whole graph at 0.55:1, every box without its label."""
    from app.graph_view.nodes import LOD_TEXT

    m = synthetic_qdq_graph(40, seed=3)
    lay = layout_graph(m)
    v = GraphView()
    qtbot.addWidget(v)
    v.resize(900, 700)
    v.show()
    v.set_graph(m, lay)
    r = v.graph_rect()                  # the graph (the view's sceneRect() adds the overlays' room)
    frame_w, frame_h = v.width() - v.viewport().width(), v.height() - v.viewport().height()
    v.resize(int(0.55 * r.width() + 20) + frame_w + 40, int(0.55 * r.height() + 20) + frame_h)
    v.set_graph(m, lay)
    assert 0.5 <= v._fit_scale() < LOD_TEXT           # the whole graph would be label-less boxes
    assert v.zoom() >= LOD_TEXT and v.visible_scene_rect().top() <= v.graph_rect().top() + 1

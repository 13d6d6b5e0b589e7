"""QA pass 1's readability bugs on the canvas (synthetic graphs, no pipeline run: cheap):
the violation badge beyond 99, the minimap's size and place, the overlays (breadcrumbs, legend,
minimap) never over the selected node, the first view leaving room for the breadcrumbs."""
from __future__ import annotations

import re
from dataclasses import replace

import pytest

from app.graph_view import GraphView
from vpu_core.layout import layout_graph
from tools.layouts.synthetic import synthetic_qdq_graph


@pytest.fixture(scope="module")
def tall():
    """A tall synthetic Q/DQ graph (≈ 600 nodes) whose first op carries 113 violations."""
    m = synthetic_qdq_graph(600, seed=7)
    first = next(n for n in m.nodes if n.label == "conv2d")
    m = replace(m, nodes=tuple(replace(n, violations=113) if n.id == first.id else n for n in m.nodes))
    return m, layout_graph(m), first.id


@pytest.fixture
def view(qtbot, tall):
    v = GraphView()
    qtbot.addWidget(v)
    v.resize(954, 567)                 # the canvas of a 1280×720 window
    v.show()
    qtbot.waitExposed(v)
    model, layout, _ = tall
    v.set_graph(model, layout)
    return v


def test_a_badge_beyond_99_says_99_plus_and_the_tooltip_the_full_count(view, tall):
    _, _, busy = tall
    item = view.graph_scene().items[busy]
    assert item.badge_text() == "99+"
    assert "113 VPU rule violations" in view.node_tooltip(item.box.center())
    quiet = next(i for i in view.graph_scene().items.values() if not i.node.violations)
    assert quiet.badge_text() == "" and view.node_tooltip(quiet.box.center()) == ""


def test_the_compare_toolbar_count_says_which_side(qtbot):
    from app.widgets.view_bar import ViewBar

    bar = ViewBar()
    qtbot.addWidget(bar)
    text = lambda: re.sub(r"<[^>]+>", "", bar.violation_label.text())   # noqa: E731
    bar.set_violation_position(None, 148, [("A", 0), ("B", 148)])
    assert text() == "A 0 · B 148 violations"
    bar.set_violation_position(2, 148, [("A", 0), ("B", 148)], "B")
    assert text() == "B 3 of 148"
    bar.set_violation_position(None, 5)
    assert text() == "5 violations"


def test_under_another_target_the_walk_counts_its_cpu_ops_not_the_vpus_violations(qtbot):
    """Coloured by a real backend, the badges and the walk are that backend's CPU ops: the count
    says "CPU ops", in the CPU's colour, never the VPU's red violations."""
    from app import theme
    from app.widgets.view_bar import ViewBar

    bar = ViewBar()
    qtbot.addWidget(bar)
    text = lambda: re.sub(r"<[^>]+>", "", bar.violation_label.text())   # noqa: E731
    bar.set_violation_position(None, 2, colouring="Ethos-U55-128")
    assert text() == "2 CPU ops" and theme.DANGER not in bar.violation_label.text()
    assert theme.WARN in bar.violation_label.text()
    assert "ops Ethos-U55-128 leaves on the CPU" in bar.violation_label.toolTip()
    bar.set_violation_position(1, 2, colouring="Ethos-U55-128")
    assert text() == "2 of 2 CPU ops"
    bar.set_violation_position(None, 0, colouring="Ethos-U55-128")
    assert text() == "no CPU ops"
    bar.set_violation_position(None, 467)
    assert text() == "467 violations" and theme.DANGER in bar.violation_label.text()
    assert "VPU's rule violations" in bar.violation_label.toolTip()


def test_the_node_plot_says_why_a_conv_has_nothing_per_channel(run, profiles):
    """A conv the profile leaves on the CPU is not quantized: the plot says so (it is a conv)."""
    from app.widgets.plots import ChannelPlot, no_channels_reason
    from resources import DEFAULT_PROFILE
    from vpu_core.analysis import analyze

    text = DEFAULT_PROFILE.read_text(encoding="utf-8").replace('"conv2d", ', "")
    a = analyze(run("conv_relu", profile=profiles.write("no_conv", text)))
    conv = next(n for n, i in a.nodes.items() if i.op.startswith("conv2d"))
    assert conv in {c.node for c in a.partition.cpu_nodes}
    reason = no_channels_reason(a, conv, ChannelPlot.HINT)
    assert reason.startswith(f"conv2d ({conv}) runs on the CPU in float") and "not quantized" in reason
    assert "Select a conv" not in reason
    relu = next(n for n, i in a.nodes.items() if i.op.startswith("relu"))
    assert no_channels_reason(a, relu, ChannelPlot.HINT).startswith(f"relu ({relu}) has no weights.")


def test_the_node_panel_wraps_names_between_their_parts(qtbot, analysis):
    """"normalized_shap / e" — a long identifier may break after "_" or ".", never
    mid-word; numbers and link targets stay whole."""
    from app.widgets.node_html import breakable_html
    from app.widgets.node_panel import NodePanel
    from vpu_core.graph.build import build_graph_model

    html = breakable_html('<td>normalized_shape</td> <a href="node:quantize_per_tensor_default_14">'
                          'quantize_per_tensor_default_14</a> 0.03125 scaled_dot_product_attention.default')
    assert "normalized_\u200bshape" in html and 'href="node:quantize_per_tensor_default_14"' in html
    assert "attention.\u200bdefault" in html and "0.03125" in html and "default_\u200b14<" in html
    a = analysis("conv_relu")
    panel = NodePanel()
    qtbot.addWidget(panel)
    conv = next(n for n, i in a.nodes.items() if i.op.startswith("conv2d"))
    panel.show_node(a, build_graph_model(a), conv)
    assert "conv2d.\u200bdefault" in panel.toPlainText()


def test_the_cost_tab_shows_no_empty_box_before_an_ablation(qtbot):
    from app.widgets.ablation_chart import AblationChart

    chart = AblationChart()
    qtbot.addWidget(chart)
    chart.resize(320, 520)
    chart.show()
    chart.show_idle("whisper_encoder", "Run ablation quantizes this model once per constraint…", can_run=True)
    assert chart.hint.isVisible() and not chart.sentences.isVisible()


def _covered(v: GraphView, ids=None) -> list[str]:
    """Ids of the nodes (all, or `ids`) drawn on screen under the legend, minimap or breadcrumbs."""
    vp = v.viewport().geometry()
    overlays = [w.geometry().translated(-vp.x(), -vp.y()) for w in (v._legend, v._minimap, v._crumbs)
                if w.isVisibleTo(v)]
    s = v.graph_scene()
    out = []
    for nid, it in s.items.items():
        if ids is not None and nid not in ids:
            continue
        box = v.mapFromScene(it.box).boundingRect()
        if box.intersects(v.viewport().rect()) and any(box.intersects(o) for o in overlays):
            out.append(nid)
    return out


@pytest.fixture(scope="module")
def comb():
    """A graph with a full first row: 8 inputs side by side, each feeding a chain of 30 ops
    (a node sits in every corner the overlays use)."""
    from vpu_core.graph.model import GraphEdge, GraphModel, GraphNode

    nodes, edges = [], []
    for c in range(8):
        nodes.append(GraphNode(f"in{c}", f"input_{c}", "1×16 fp32", "io"))
        for r in range(30):
            nodes.append(GraphNode(f"n{c}_{r}", "add", "1×16 int8", "vpu" if c % 3 else "cpu",
                                   subgraph=c if c % 3 else None))
            edges.append(GraphEdge(f"in{c}" if r == 0 else f"n{c}_{r - 1}", f"n{c}_{r}"))
    m = GraphModel(tuple(nodes), tuple(edges))
    return m, layout_graph(m)


def test_the_minimap_is_capped_by_the_canvas_and_the_first_view_keeps_clear_of_the_overlays(qtbot, comb):
    """A 176×265 minimap hid nodes at 1024×700; the legend covered the top nodes."""
    view = GraphView()
    qtbot.addWidget(view)
    view.resize(954, 567)
    view.show()
    qtbot.waitExposed(view)
    view.set_graph(*comb)
    mm, vp = view._minimap, view.viewport().rect()
    assert mm.isVisible() and view._legend.isVisible()
    assert mm.width() <= 0.2 * vp.width() + 2 and mm.height() <= 0.34 * vp.height() + 2
    assert _covered(view) == []
    assert view.zoom() >= 0.6                                 # still legible
    view.resize(954, 380)                                     # a short canvas: a smaller minimap
    assert mm.height() <= 0.34 * view.viewport().height() + 2 < 0.34 * vp.height()
    view.fit(top=True)
    assert _covered(view) == []


def test_a_selected_node_and_its_neighbours_are_clear_of_the_overlays(view, qtbot):
    """Centring on a node (--select, search, the violation walk) puts it where the
    legend, minimap and breadcrumbs are not, in presentation mode too (a larger legend)."""
    view.resize(700, 500)
    model = view.graph_scene().model
    for presentation in (False, True):
        view.set_presentation(presentation)
        for node in (model.nodes[100], model.nodes[len(model.nodes) // 2], model.nodes[-3]):
            view.select_node(None)
            assert view.center_on(node.id)
            near = {node.id} | {e.src for e in model.edges if e.dst == node.id} \
                | {e.dst for e in model.edges if e.src == node.id}
            assert _covered(view, near) == [], (presentation, node.id)


def test_compare_sides_fit_clear_of_either_sides_overlays(qtbot, tall):
    """Side B's legend covered B's nodes (A, with no legend, led the fit); the two
    views reserve the same room, so their synchronised centres still agree."""
    model, layout, _ = tall
    views = []
    for side in "ab":
        v = GraphView()
        qtbot.addWidget(v)
        v.resize(470, 480)
        v.show()
        qtbot.waitExposed(v)
        v.set_graph(model, layout)
        views.append(v)
    a, b = views
    a.room_partner, b.room_partner = b, a
    a.show_legend(False)
    a.fit(top=True)
    b.setTransform(a.transform())
    b.put(a.mapToScene(a.viewport().rect().center()), b.viewport().rect().center())
    assert a.room() == b.room() and a.room().top > 0
    assert _covered(a) == [] and _covered(b) == []


def test_a_view_at_the_legible_zoom_draws_its_labels(qtbot):
    """Compare panes open at exactly LEGIBLE (0.6), where Qt's level of detail is
    0.5999999…: the label threshold must let that zoom draw labels."""
    from PySide6.QtGui import QTransform
    from PySide6.QtWidgets import QStyleOptionGraphicsItem

    from app.graph_view.nodes import LOD_DETAIL, LOD_TEXT
    from app.graph_view.view import LEGIBLE

    lod = QStyleOptionGraphicsItem.levelOfDetailFromTransform
    assert lod(QTransform.fromScale(LEGIBLE, LEGIBLE)) >= LOD_TEXT
    assert lod(QTransform.fromScale(0.85, 0.85)) >= LOD_DETAIL


def test_the_canvas_legend_says_it_lists_the_whole_graph(view):
    """"VPU subgraph 8" was listed with no green node on screen (only in the minimap):
    the legend keeps the whole graph's colours (stable while panning) and its title says so."""
    from app.graph_view.legend import WHOLE_GRAPH, LegendOverlay, legend_size
    from vpu_core.graph.legend import legend_facts

    legend = view._legend
    assert isinstance(legend, LegendOverlay) and WHOLE_GRAPH == "In the whole graph"
    facts = legend_facts(view.graph_scene().model)
    assert legend.facts == facts and len(facts.subgraphs) > 1
    assert legend.full_size().height() > legend_size(view.theme(), facts).height()     # the title line
    view.zoom_by(4.0)                                         # far in: the legend stays the same
    assert legend.facts == facts


def _presenting(qtbot, model, layout) -> GraphView:
    """A canvas of a 1280×720 window in presentation mode showing `model`."""
    v = GraphView()
    qtbot.addWidget(v)
    v.set_presentation(True)
    v.resize(954, 567)
    v.show()
    qtbot.waitExposed(v)
    v.set_graph(model, layout)
    return v


def test_presentation_opens_at_1_to_1_clear_of_the_legend(qtbot, tall, comb):
    """Presentation mode fit-zoomed a short graph (the corpus Swin), so its larger labels were no
    larger on screen than the default view's: it opens at 1:1, its legend clear of the nodes
    (folded only where it would cover one: tests/test_corpus.py, GPT-2)."""
    from vpu_core.layout.types import node_sizer

    from app.graph_view.style import Theme

    scale = Theme.make(presentation=True).label_scale()
    assert scale > 1.2
    for graph in (comb, tall):                  # the legend's band keeps their tops clear
        model = graph[0]
        v = _presenting(qtbot, model, layout_graph(model, node_size=node_sizer(scale)))
        assert v.zoom() == 1.0
        legend = v.legend_geometry()
        assert legend is not None and not v.legend_collapsed()
        assert not [nid for nid, it in v.graph_scene().items.items()
                    if v.mapFromScene(it.box).boundingRect().intersects(legend)]
    short = synthetic_qdq_graph(12, seed=3)              # whole at ≥ LEGIBLE: fitted by default
    default = GraphView()
    qtbot.addWidget(default)
    default.resize(954, 567)
    default.show()
    default.set_graph(short, layout_graph(short))
    assert default.zoom() < 1.0                          # the whole graph, zoomed out
    assert _presenting(qtbot, short, layout_graph(short, node_size=node_sizer(scale))).zoom() == 1.0


def test_a_narrow_view_bar_keeps_colour_by_with_its_choice_and_its_separators_thin(qtbot):
    """At every width the "Colour by" label and its combo (the partition or a metric) are shown or
    moved into » together, and
    the room the moved items leave is never spread over the separators (grey blocks)."""
    from PySide6.QtWidgets import QLabel

    from app.widgets.view_bar import ViewBar

    bar = ViewBar()
    qtbot.addWidget(bar)
    bar.show()
    bar.set_violation_position(None, 113, colouring="XNNPACK")
    label = next(w for w in bar.findChildren(QLabel) if w.text() == "Colour by")
    seen = set()
    for width in range(700, 1500, 40):
        bar.resize(width, bar.sizeHint().height())
        qtbot.wait(5)
        seen.add(bar.metric_combo.isVisible())
        assert label.isVisible() == bar.metric_combo.isVisible(), width
        separators = [bar.widgetForAction(a) for a in bar.actions() if a.isSeparator()]
        assert all(s.width() <= 20 for s in separators if s.isVisible()), width
    assert seen == {True, False}                 # both cases were met

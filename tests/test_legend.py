"""Honest legends: a legend lists every colour its picture uses and no other, a metric
gradient says where it clips and what the true worst value is, and the canvas legend folds to a
chip and never covers the breadcrumbs."""
from __future__ import annotations

from dataclasses import replace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from app.graph_view.legend import LegendOverlay
from app.graph_view.style import (BOUNDARY, FRAME_FILLS, GROUP_FILL, MATCH, SHARED, VIOLATION, Theme,
                                  legend_entries)
from vpu_core.formatting import metric_legend_texts
from vpu_core.layout.grouped import GroupedGraph
from vpu_core.graph.legend import legend_facts
from vpu_core.graph.metrics import metric_range
from vpu_core.graph.model import GraphModel
from tools.layouts.synthetic import synthetic_qdq_graph, synthetic_tree


def _names(colors) -> set[str]:
    out = set()
    for c in colors:
        out |= _names(c) if isinstance(c, tuple) else {QColor(c).name()}
    return out


def colours_drawn(model: GraphModel, theme: Theme) -> set[str]:
    """Every colour a canvas paints for `model`, read from the model itself (not the facts)."""
    out = {theme.fill(n.category, n.subgraph).name() for n in model.nodes}
    if any(e.boundary for e in model.edges):
        out.add(QColor(BOUNDARY).name())
    if any(n.violations for n in model.nodes) or any(e.violations for e in model.edges):
        out.add(QColor(VIOLATION).name())
    if model.frames:
        out.add(QColor(FRAME_FILLS[0]).name())
    return out


def _with_violations(model: GraphModel) -> GraphModel:
    nodes = list(model.nodes)
    k = next(i for i, n in enumerate(nodes) if n.category == "vpu")
    nodes[k] = replace(nodes[k], violations=2)
    edges = list(model.edges)
    edges[3] = replace(edges[3], violations=1, folded=("q", "dq"), dtype="int8")
    return replace(model, nodes=tuple(nodes), edges=tuple(edges))


@pytest.fixture(scope="module")
def pictures():
    flat = synthetic_qdq_graph(600, seed=3)
    grouped = GroupedGraph(flat, synthetic_tree(flat))
    collapsed, _ = grouped.collapse_to(2)
    return {"flat": flat, "violations": _with_violations(flat), "collapsed": collapsed,
            "vpu only": replace(flat, nodes=tuple(n for n in flat.nodes if n.category == "vpu"), edges=())}


@pytest.mark.parametrize("name", ["flat", "violations", "collapsed", "vpu only"])
def test_the_legend_lists_every_colour_the_picture_uses_and_no_other(qapp, pictures, name):
    model, theme = pictures[name], Theme.make()
    rows = legend_entries(theme, legend_facts(model))
    listed = _names(color for _, _, color in rows)
    drawn = colours_drawn(model, theme)
    assert drawn <= listed, drawn - listed
    if name == "flat":
        subs = {n.subgraph for n in model.nodes if n.category == "vpu"}
        # one green for all of them, and the numbered tag that tells them apart
        assert len(subs) > 4 and [text for kind, text, _ in rows if kind == "tag"] == [
            f"partition number ({len(subs)} drawn)"]
        assert len({theme.fill("vpu", s).name() for s in subs}) == 1
    if name == "collapsed":
        kinds = {kind for kind, _, _ in rows}
        assert {"group", "frame"} <= kinds and QColor(GROUP_FILL).name() in listed
    if name == "violations":
        assert {"badge", "mark"} <= {kind for kind, _, _ in rows}
    if name == "vpu only":                   # nothing it does not use: no CPU, no boundary
        assert [text for _, text, _ in rows if "CPU" in text] == []


def test_a_clipped_metric_legend_says_so_and_shows_the_true_worst():
    values = [3.5, 6.0] + [9.17 + i for i in range(25)] + [80.0]       # very bad and very good ones
    r = metric_range("sqnr", values)
    assert r.beyond_worst == 1 and r.beyond_best == 1 and r.worst == 3.5 and r.percentiles
    assert r.ends == (6.0, pytest.approx(33.17))                      # the 5th and 95th percentile
    left, right, note = metric_legend_texts(r, "dB", neutral=False)
    assert (left, right) == ("≤ 6 dB (worse)", "≥ 33.2 dB (better)")
    assert "percentile" in note and "worst 3.5 dB" in note
    exact = metric_range("sqnr", [10.0, 20.0, 30.0])                  # few values: no clipping
    left, right, note = metric_legend_texts(exact, "dB", neutral=False)
    assert (left, right, note) == ("10 dB (worse)", "30 dB (better)", "")
    low = metric_range("boundary_bytes", [float(2 ** i) for i in range(30)])   # lower is better
    left, right, note = metric_legend_texts(low, "B", neutral=False)
    assert left.startswith("≥ ") and "worst 536,870,912 B" in note


def test_the_legend_folds_and_never_covers_the_breadcrumbs(qtbot, pictures):
    from app.graph_view.view import GraphView
    from vpu_core.layout import layout_graph

    view = GraphView()
    qtbot.addWidget(view)
    view.resize(520, 420)                          # narrow: crumbs and legend both want the top
    view.show()
    qtbot.waitExposed(view)
    flat = pictures["flat"]
    view.set_graph(flat, layout_graph(flat), GroupedGraph(flat, synthetic_tree(flat)))
    deep = max(flat.nodes, key=lambda n: len(flat.meta["module_stacks"].get(n.id, ())))
    assert view.select_node(deep.id)
    crumbs, legend = view._crumbs, view._legend
    assert crumbs.isVisible() and legend.isVisible()
    assert not crumbs.geometry().intersects(legend.geometry())
    full = legend.size()
    qtbot.keyClick(view, "l")                     # L folds it to a chip
    assert view.legend_collapsed() and legend.height() < full.height() / 3
    assert not crumbs.geometry().intersects(legend.geometry())
    qtbot.mouseClick(legend, Qt.MouseButton.LeftButton)
    assert not view.legend_collapsed() and legend.size() == full
    assert isinstance(legend, LegendOverlay)


def test_the_canvas_outlines_drawn_are_listed_too(qapp, pictures):
    """A view export with a shared-scale group or search matches outlined lists those outlines."""
    facts = legend_facts(pictures["flat"])
    plain = _names(c for _, _, c in legend_entries(Theme.make(), facts))
    marked = _names(c for _, _, c in legend_entries(Theme.make(), replace(facts, shared=True, matches=True)))
    assert marked - plain == {QColor(SHARED).name(), QColor(MATCH).name()}


def test_the_legend_follows_the_colouring_on_screen(qapp, pictures):
    """Ops coloured by a metric (the µs measured on this CPU, SQNR…): no VPU subgraph or CPU row,
    only what is still drawn in those colours (Q/DQ, groups…); back to the partition: they return."""
    theme, model = Theme.make(), pictures["flat"]
    facts = legend_facts(model)
    by_metric = legend_entries(theme, replace(facts, by_metric=True))
    op_fills = {theme.fill("vpu", n.subgraph).name() for n in model.nodes if n.category == "vpu"} \
        | {theme.fill("cpu", None).name()}
    assert not op_fills & _names(c for kind, _, c in by_metric if kind in ("box", "shades"))
    assert any(kind == "box" and text == "quantize / dequantize" for kind, text, _ in by_metric)
    assert op_fills <= _names(c for kind, _, c in legend_entries(theme, facts) if kind in ("box", "shades"))


def test_partitions_in_closed_groups_are_said(qapp, pictures):
    """A legend of the drawn picture says how many partitions only closed groups hold; partitions
    share one green (never two near-identical shades): a tag row says they are numbered."""
    theme = Theme.make()
    facts = legend_facts(pictures["collapsed"], pictures["flat"])
    assert facts.hidden_subgraphs == len(set(legend_facts(pictures["flat"]).subgraphs) - set(facts.subgraphs)) > 0
    notes = [text for kind, text, _ in legend_entries(theme, facts) if kind == "note"]
    assert f"{facts.hidden_subgraphs} more partitions inside closed groups" in notes
    one = legend_entries(theme, replace(facts, subgraphs=(0,), hidden_subgraphs=0))
    assert [t for k, t, _ in one if k in ("box", "tag")][0] == "on the VPU" and not [k for k, _, _ in one if k == "tag"]
    many = legend_entries(theme, replace(facts, subgraphs=(0, 1, 2), hidden_subgraphs=0))
    assert [t for k, t, _ in many if k == "tag"] == ["partition number (3 drawn)"]



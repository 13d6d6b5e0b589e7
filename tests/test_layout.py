"""Layered layout: invariants on synthetic Q/DQ graphs, hand-made corner cases and random DAGs."""
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vpu_core.graph.model import GraphEdge, GraphModel, GraphNode
from vpu_core.layout import (check_layout, count_crossings, default_node_size, layout_graph,
                             layout_stats, overlapping_boxes)
from tools.layouts.dot_reference import dot_available, parse_plain, run_dot, to_dot
from vpu_core.layout.metrics import count_polyline_crossings, edges_through_nodes
from tools.layouts.synthetic import synthetic_qdq_graph
from vpu_core.layout.types import OP_H, SMALL_H


def _model(edges, params=(), extra=()):
    names = []
    for e in edges:
        for n in e:
            if n not in names:
                names.append(n)
    names += [n for n in extra if n not in names]
    nodes = tuple(GraphNode(n, n, category="param" if n in params else "vpu", is_param=n in params)
                  for n in names)
    return GraphModel(nodes, tuple(GraphEdge(a, b) for a, b in edges))


def _ids(m):
    return [n.id for n in m.nodes]


@pytest.fixture(scope="module")
def syn1k():
    m = synthetic_qdq_graph(1000, seed=3)
    return m, layout_graph(m)


def test_synthetic_graphs_have_the_requested_size():
    for n in (1000, 5000, 20000):
        m = synthetic_qdq_graph(n)
        assert len(m.nodes) == n
        assert len({x.id for x in m.nodes}) == n
        ids = set(_ids(m))
        assert all(e.src in ids and e.dst in ids for e in m.edges)
        cats = {x.category for x in m.nodes}
        assert cats == {"vpu", "cpu", "qdq", "param", "io"}
        assert any(e.boundary for e in m.edges)
        assert any(x.is_param for x in m.nodes)
    assert synthetic_qdq_graph(1000, seed=1) != synthetic_qdq_graph(1000, seed=2)


def test_synthetic_layout_invariants(syn1k):
    m, lay = syn1k
    assert set(lay.boxes) == set(_ids(m))
    assert check_layout(lay, _ids(m)) == []
    assert len(lay.edges) == len(m.edges)
    for e in lay.edges:
        s, d = lay.boxes[e.src], lay.boxes[e.dst]
        assert d[1] > s[1] + s[3]                                   # strictly downward
        assert e.points[0] == pytest.approx((e.points[0][0], s[1] + s[3]))
        assert s[0] <= e.points[0][0] <= s[0] + s[2]               # leaves from src's bottom
        assert d[0] <= e.points[-1][0] <= d[0] + d[2]              # enters dst's top
    assert 0 < lay.width and 0 < lay.height
    assert all(x + w <= lay.width and y + h <= lay.height for x, y, w, h in lay.boxes.values())


def test_boundary_flags_survive(syn1k):
    m, lay = syn1k
    assert [e.boundary for e in lay.edges] == [e.boundary for e in m.edges]


def test_node_sizes():
    op = GraphNode("c", "conv2d", "1×16×32×32 int8", "vpu")
    q = GraphNode("q", "quantize", category="qdq")
    long = GraphNode("l", "x" * 40, category="cpu")
    assert default_node_size(GraphNode("c", "conv2d")) == (90.0, OP_H)     # minimum width
    assert default_node_size(op)[0] > 90.0                                # detail line fits
    assert default_node_size(q)[1] == SMALL_H < OP_H
    assert default_node_size(long)[0] == 40 * 7.5 + 24
    m = _model([("a", "b")])
    lay = layout_graph(m, node_size=lambda n: (200.0, 50.0))
    assert all(b[2:] == (200.0, 50.0) for b in lay.boxes.values())


def test_long_edges_get_bend_points():
    # a -> b -> c -> d plus the skip a -> d: the skip spans 3 layers
    m = _model([("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")])
    lay = layout_graph(m)
    skip = next(e for e in lay.edges if (e.src, e.dst) == ("a", "d"))
    short = next(e for e in lay.edges if (e.src, e.dst) == ("a", "b"))
    assert len(skip.points) >= 2 + 2 * 2          # two dummy layers, two points each
    assert len(short.points) <= 4
    assert edges_through_nodes(lay) == []
    # the skip runs beside b and c, never through them
    xs = {p[0] for p in skip.points[2:-2]}
    for n in ("b", "c"):
        x, y, w, h = lay.boxes[n]
        assert all(not (x < px < x + w) for px in xs)


def test_params_sit_beside_their_consumer():
    # spine: x -> q -> dq -> conv -> relu ; weight chain w -> wdq -> conv ; bias b -> conv
    edges = [("x", "q"), ("q", "dq"), ("dq", "conv"), ("conv", "relu"),
             ("w", "wdq"), ("wdq", "conv"), ("b", "conv")]
    m = _model(edges, params=("w", "wdq", "b"))
    lay = layout_graph(m)
    conv = lay.boxes["conv"]
    y_of = lambda n: lay.boxes[n][1] + lay.boxes[n][3] / 2        # noqa: E731
    for p in ("wdq", "b"):                         # one layer above the consumer
        assert y_of(p) == pytest.approx(y_of("dq"))
        assert lay.boxes[p][0] + lay.boxes[p][2] <= lay.boxes["dq"][0]   # left of the spine
    assert y_of("w") == pytest.approx(y_of("q"))   # the chain's source right above it
    assert y_of("w") < y_of("wdq") < conv[1]
    # the spine is straight: same centre x all the way down
    cx = {n: lay.boxes[n][0] + lay.boxes[n][2] / 2 for n in ("x", "q", "dq", "conv", "relu")}
    assert max(cx.values()) - min(cx.values()) < 0.5


def test_parallel_edges_disconnected_parts_and_multiple_io():
    m = GraphModel(
        nodes=tuple(GraphNode(n, n) for n in ("in1", "in2", "add", "out1", "out2", "lone", "u", "v")),
        edges=(GraphEdge("in1", "add"), GraphEdge("in2", "add"), GraphEdge("add", "out1"),
               GraphEdge("add", "out2"), GraphEdge("u", "v"), GraphEdge("u", "v"),
               GraphEdge("add", "add"), GraphEdge("ghost", "add")))
    lay = layout_graph(m)
    assert set(lay.boxes) == {n.id for n in m.nodes}
    assert check_layout(lay, _ids(m)) == []
    # parallel edges both drawn, dangling edge dropped, self-loop kept as a small loop
    assert [(e.src, e.dst) for e in lay.edges].count(("u", "v")) == 2
    assert all(e.src != "ghost" for e in lay.edges)
    loop = next(e for e in lay.edges if e.src == e.dst == "add")
    assert len(loop.points) > 2


def test_cycles_are_handled():
    m = _model([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("x", "x")])
    lay = layout_graph(m)
    assert set(lay.boxes) == set(_ids(m))
    assert overlapping_boxes(lay) == []
    rev = [e for e in lay.edges if e.reversed]
    assert len(rev) == 1                         # exactly one edge had to turn round
    assert check_layout(lay, _ids(m)) == []      # every other edge still goes down


def test_empty_and_single():
    assert layout_graph(GraphModel((), ())).boxes == {}
    lay = layout_graph(GraphModel((GraphNode("a", "a"),), ()))
    assert list(lay.boxes) == ["a"] and lay.edges == ()


def test_deterministic():
    m = synthetic_qdq_graph(600, seed=7)
    assert layout_graph(m) == layout_graph(m)
    shuffled_meta = GraphModel(m.nodes, m.edges, title="other", meta={"x": 1})
    assert layout_graph(shuffled_meta) == layout_graph(m)


def test_crossing_counter_on_known_drawings():
    lines = [((0.0, 0.0), (10.0, 10.0)), ((10.0, 0.0), (0.0, 10.0)), ((20.0, 0.0), (20.0, 10.0))]
    assert count_polyline_crossings(lines, [("a", "b"), ("c", "d"), ("e", "f")]) == 1
    assert count_polyline_crossings(lines, [("a", "b"), ("a", "d"), ("e", "f")]) == 0   # share a
    zig = [((0.0, 0.0), (300.0, 300.0), (0.0, 600.0)), ((150.0, -10.0), (150.0, 700.0))]
    assert count_polyline_crossings(zig, [("a", "b"), ("c", "d")]) == 2          # across cells
    m = _model([("a", "c"), ("b", "d"), ("a", "d"), ("b", "c")])
    lay = layout_graph(m)
    assert count_crossings(lay) == 1             # K2,2 drawn in two layers crosses once


def test_inversion_counters_agree_with_brute_force():
    from vpu_core.layout.ordering import _inversions, _inversions_np
    rnd = random.Random(5)
    for m in (0, 1, 5, 39, 40, 300, 1000):
        seq = [rnd.randrange(60) for _ in range(m)]
        brute = sum(1 for i in range(m) for j in range(i + 1, m) if seq[i] > seq[j])
        assert _inversions(seq, 60) == brute
        if m:
            assert _inversions_np(seq) == brute


def test_layered_drawing_few_crossings(syn1k):
    m, lay = syn1k
    stats = layout_stats(lay)
    assert stats["nodes"] == 1000 and stats["bend_points"] > 0
    assert stats["crossings"] <= 0.05 * len(m.edges)


def test_dot_plain_parser_roundtrip():
    m = _model([("a", "b"), ("a", "c")])
    text = "\n".join(["graph 1 2 1.5", "node n0 1 1.25 1.25 0.5 \"\" solid box black lightgrey",
                      "node n1 0.5 0.25 1 0.5 \"\" solid box black lightgrey",
                      "node n2 1.5 0.25 1 0.5 \"\" solid box black lightgrey",
                      "edge n0 n1 4 1 1 0.9 0.8 0.7 0.6 0.5 0.5 solid black",
                      "edge n0 n2 4 1 1 1.1 0.8 1.3 0.6 1.5 0.5 solid black", "stop"])
    lay = parse_plain(text, m)
    assert lay.boxes["a"] == pytest.approx((27.0, 0.0, 90.0, 36.0))
    assert lay.edges[0].points[0] == pytest.approx((72.0, 36.0))
    assert lay.edges[0].points[-1] == pytest.approx((36.0, 72.0))
    assert "n0 -> n1;" in to_dot(m)


@pytest.mark.skipif(not dot_available(), reason="Graphviz dot not installed")
def test_crossings_within_target_of_dot():
    for seed in (0, 1):
        m = synthetic_qdq_graph(400, seed=seed)
        ref = run_dot(m)
        assert ref is not None and set(ref["layout"].boxes) == set(_ids(m))
        assert count_crossings(layout_graph(m)) <= 1.5 * max(ref["crossings"], 1)


# ---- random DAGs ----------------------------------------------------------------------------
@st.composite
def dags(draw):
    n = draw(st.integers(1, 40))
    rnd = random.Random(draw(st.integers(0, 10**6)))
    density = draw(st.floats(0.0, 0.3))
    params = {i for i in range(n) if rnd.random() < 0.2}
    edges = [(i, j) for i in range(n) for j in range(i + 1, min(n, i + 12))
             if rnd.random() < density]
    edges += [edges[k] for k in range(0, len(edges), 7)]             # some parallel edges
    nodes = tuple(GraphNode(f"n{i}", "op" * rnd.randint(1, 12),
                            category=rnd.choice(("vpu", "cpu", "qdq", "param", "io")),
                            is_param=i in params) for i in range(n))
    return GraphModel(nodes, tuple(GraphEdge(f"n{a}", f"n{b}") for a, b in edges))


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dags())
def test_random_dags(m):
    lay = layout_graph(m)
    assert set(lay.boxes) == set(_ids(m))
    assert overlapping_boxes(lay) == []
    for e in lay.edges:
        s, d = lay.boxes[e.src], lay.boxes[e.dst]
        assert d[1] >= s[1] + s[3]
        assert all(p[1] <= q[1] for p, q in zip(e.points, e.points[1:]))
    assert edges_through_nodes(lay) == []

"""Property-based tests (hypothesis): partition invariants on random DAGs, exact shifts."""
import math

import networkx as nx
import pytest
import torch
from hypothesis import assume, given, settings, strategies as st
from torch.fx import Graph, GraphModule
from torch.fx.passes.fake_tensor_prop import FakeTensorProp

from vpu_core.analysis.partition import partition
from vpu_core.analysis.qgraph import QGraph
from vpu_core.analysis.requant import make_site
from vpu_core.profile import load_profile

PROFILE = load_profile()
aten = torch.ops.aten
# (target, arity, runs on the VPU under the default profile)
OPS = [(aten.relu.default, 1, True), (aten.add.Tensor, 2, True), (aten.hardtanh.default, 1, True),
       (aten.sigmoid.default, 1, False), (aten.mul.Tensor, 2, False), (aten.gelu.default, 1, False)]
SHAPE, BYTES = (2, 4), 2 * 4 * 4  # float32 tensors everywhere


@st.composite
def random_dag(draw):
    """A random fx graph of VPU and CPU ops, each reading random earlier values."""
    n = draw(st.integers(2, 25))
    graph = Graph()
    values = [graph.placeholder("x")]
    for _ in range(n):
        target, arity, _ = draw(st.sampled_from(OPS))
        args = tuple(values[draw(st.integers(0, len(values) - 1))] for _ in range(arity))
        values.append(graph.call_function(target, args))
    sinks = [v for v in values[1:] if not v.users]
    graph.output(tuple(sinks))
    gm = GraphModule(torch.nn.Module(), graph)
    FakeTensorProp(gm).propagate(torch.zeros(SHAPE))
    return gm


def _condensed(gm, assignment):
    """One vertex per VPU subgraph, one per CPU node; an edge per data edge between them."""
    def vertex(name):
        side = assignment[name]
        return ("sub", side) if side != "cpu" else ("cpu", name)

    g = nx.DiGraph()
    g.add_nodes_from(vertex(n.name) for n in gm.graph.nodes)
    for node in gm.graph.nodes:
        for src in node.all_input_nodes:
            if vertex(src.name) != vertex(node.name):
                g.add_edge(vertex(src.name), vertex(node.name))
    return g


@settings(max_examples=150, deadline=None)
@given(random_dag())
@pytest.mark.slow
def test_partition_invariants(gm):
    report = partition(QGraph(gm, PROFILE))
    names = [n.name for n in gm.graph.nodes]
    # every node assigned exactly once
    assert sorted(report.assignment) == sorted(names)
    members = [m for s in report.subgraphs for m in s.nodes]
    assert len(members) == len(set(members))
    assert set(members) == {n for n, side in report.assignment.items() if side != "cpu"}
    # only VPU-listed ops in subgraphs; CPU ops carry a reason
    vpu_targets = {t for t, _, on_vpu in OPS if on_vpu}
    by_name = {n.name: n for n in gm.graph.nodes}
    assert all(by_name[m].target in vpu_targets for m in members)
    assert all(c.reason for c in report.cpu_nodes)
    # no cycle between subgraphs, each subgraph connected
    assert nx.is_directed_acyclic_graph(_condensed(gm, report.assignment))
    for s in report.subgraphs:
        sub = nx.Graph()
        sub.add_nodes_from(s.nodes)
        sub.add_edges_from((a.name, m) for m in s.nodes for a in by_name[m].all_input_nodes
                           if a.name in s.nodes)
        assert nx.is_connected(sub)
    # boundaries: exactly the edges whose ends are on different sides, each moving the tensor
    crossing = {(src.name, node.name) for node in gm.graph.nodes for src in node.all_input_nodes
                if (report.assignment[src.name] == "cpu") != (report.assignment[node.name] == "cpu")}
    assert {(b.src, b.dst) for b in report.boundaries} == crossing
    assert all(b.bytes == BYTES and b.shape == SHAPE for b in report.boundaries)
    assert report.transfer_bytes == BYTES * len(crossing)


exponents = st.integers(-20, 4)


@settings(max_examples=300, deadline=None)
@given(exponents, st.lists(exponents, min_size=1, max_size=8), exponents)
def test_shift_recovers_power_of_two_multiplier(k_in, k_w, k_out):
    s_in, s_out = 2.0 ** k_in, 2.0 ** k_out
    multipliers = [s_in * 2.0 ** k / s_out for k in k_w]
    site = make_site("conv", multipliers, PROFILE)
    expected = tuple(k_out - k_in - k for k in k_w)
    assert site.exact and site.shifts == expected and site.max_rel_error == 0.0
    assert site.out_of_range == any(n < 0 or n > 31 for n in expected)


@settings(max_examples=200, deadline=None)
@given(st.floats(1e-6, 1.0), st.floats(1e-6, 1.0), st.floats(1e-6, 1.0))
def test_non_power_of_two_multiplier_is_inexact_with_nearest_shift(s_in, s_w, s_out):
    m = s_in * s_w / s_out
    # Scales are float32 in the graph: within ~1e-6 of 2^k counts as exact, so stay clear of it.
    assume(abs(math.log2(m) - round(math.log2(m))) > 1e-5)
    site = make_site("conv", [m], PROFILE)
    assert not site.exact and site.shifts is None
    n = site.nearest_shifts[0]
    assert n == round(-math.log2(m))
    assert math.isclose(site.max_rel_error, abs(m - 2.0 ** -n) / m, rel_tol=1e-9)

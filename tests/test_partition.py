"""partition: VPU subgraphs from the profile's op list, CPU fallbacks, boundary bytes."""
import pytest
import torch
from torch.fx import Interpreter

from resources import DEFAULT_PROFILE
from vpu_core.analysis.partition import partition
from vpu_core.analysis.qgraph import QGraph
from vpu_core.profile import load_profile


def _real_outputs(gm, batch):
    values = {}

    class Keep(Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            values[n.name] = out
            return out

    with torch.no_grad():
        Keep(gm).run(*batch)
    return values


@pytest.mark.parametrize("model", ["resnet8", "transformer", "inception_lite", "ds_cnn"])
def test_partition_assigns_every_node_once_without_cycles(model, run, analysis, partition_is_sound):
    partition_is_sound(run(model).converted, analysis(model).partition)


def test_boundary_bytes_are_the_real_transferred_tensor_sizes(run, analysis):
    qm, report = run("transformer"), analysis("transformer").partition
    values = _real_outputs(qm.converted, qm.example_inputs)
    assert report.boundaries
    for b in report.boundaries:
        t = values[b.src]
        assert b.bytes == t.numel() * t.element_size(), b
        assert b.shape == tuple(t.shape) and b.dtype == str(t.dtype).replace("torch.", "")
        src_cpu, dst_cpu = report.assignment[b.src] == "cpu", report.assignment[b.dst] == "cpu"
        assert src_cpu != dst_cpu
        assert b.direction == ("cpu->vpu" if src_cpu else "vpu->cpu")
    # A quantized value leaves the VPU as int8.
    assert any(b.direction == "vpu->cpu" and b.dtype == "int8" for b in report.boundaries)


def test_transformer_cpu_fallbacks_carry_the_op_and_reason(analysis):
    report = analysis("transformer").partition
    by_op = {c.op: c for c in report.cpu_nodes}
    assert by_op["softmax.int"].reason == "softmax.int is not in the VPU op list (profile vpu-default)"
    assert by_op["layer_norm.default"].reason == \
        "layer_norm.default is not in the VPU op list (profile vpu-default)"
    assert all(report.assignment[c.node] == "cpu" for c in report.cpu_nodes)
    on_vpu = {n for n, side in report.assignment.items() if side != "cpu"}
    assert {"linear", "linear_1", "add", "reshape"} <= on_vpu


def test_resnet8_is_one_vpu_subgraph_with_host_io_boundaries(run, analysis):
    qm, report = run("resnet8"), analysis("resnet8").partition
    assert len(report.subgraphs) == 1 and report.cpu_nodes == ()
    x = qm.example_inputs[0]
    first, last = report.boundaries[0], report.boundaries[-1]
    assert (first.src, first.direction, first.bytes) == ("x", "cpu->vpu", x.numel() * 4)
    assert last.direction == "vpu->cpu" and last.dtype == "int8" and last.bytes == x.shape[0] * 10
    assert report.assignment["x"] == "cpu" and report.assignment["output"] == "cpu"
    weights = [n.name for n in qm.converted.graph.nodes if n.op == "get_attr"]
    assert all(report.assignment[w] == 0 for w in weights)  # constants belong to their consumer


def test_profile_without_add_sends_adds_to_cpu_and_stays_acyclic(run, profiles, partition_is_sound):
    text = DEFAULT_PROFILE.read_text(encoding="utf-8").replace('"add.Tensor", "cat",', '"cat",')
    text = text.replace('shared_scale = ["add.Tensor", ', 'shared_scale = [').replace(
        'fusable = ["conv2d", "linear", "add.Tensor"]', 'fusable = ["conv2d", "linear"]')
    profile = load_profile(profiles.write("no_add", text))
    qm = run("resnet8")
    report = partition(QGraph(qm.converted, profile))
    partition_is_sound(qm.converted, report)
    adds = [c for c in report.cpu_nodes if c.op == "add.Tensor"]
    assert len(adds) == 3 and adds[0].reason == "add.Tensor is not in the VPU op list (profile vpu-default)"
    assert len(report.subgraphs) > 1


@pytest.mark.slow
def test_shape_scalars_of_a_dynamic_batch_are_not_boundaries(run_cached):
    """sym_size of a dynamic batch feeds reshapes on the VPU: host metadata, not a transfer."""
    from vpu_core.analysis import analyze

    a = analyze(run_cached(model="transformer", quantizer="xnnpack", dynamic_batch=True))
    assert a.partition.boundaries
    assert all(b.bytes > 0 and not b.src.startswith("sym_size") for b in a.partition.boundaries)
    assert a.partition.transfer_bytes == sum(b.bytes for b in a.partition.boundaries)


def test_two_subgraphs_that_would_wait_on_each_other_through_the_cpu_are_split(partition_is_sound):
    # Found by hypothesis: the capability partitioner keeps each subgraph convex on its own, but
    # {relu, relu_1, add_1} feeds {relu_2, add} (relu → add), which feeds the CPU sigmoid, which
    # feeds add_1 back: neither subgraph could run first.
    from torch.fx import Graph, GraphModule
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp

    aten, graph = torch.ops.aten, Graph()
    x = graph.placeholder("x")
    relu = graph.call_function(aten.relu.default, (x,))
    relu_1 = graph.call_function(aten.relu.default, (relu,))
    relu_2 = graph.call_function(aten.relu.default, (x,))
    add = graph.call_function(aten.add.Tensor, (relu, relu_2))
    sigmoid = graph.call_function(aten.sigmoid.default, (relu_2,))
    add_1 = graph.call_function(aten.add.Tensor, (relu_1, sigmoid))
    graph.output((add, add_1))
    gm = GraphModule(torch.nn.Module(), graph)
    FakeTensorProp(gm).propagate(torch.zeros(2, 4))
    report = partition(QGraph(gm, load_profile()))
    partition_is_sound(gm, report)                     # no cycle between units any more
    assert report.assignment["sigmoid_default"] == "cpu"
    # the second subgraph is split where the cycle entered it: add waits for relu, relu_2 does not
    assert [list(s.nodes) for s in report.subgraphs] == [
        ["relu_default", "relu_default_1", "add_tensor_1"], ["relu_default_2"], ["add_tensor"]]


def test_a_quantize_of_a_cpu_value_the_cpu_also_reads_stays_on_the_cpu(partition_is_sound):
    # T5 under XNNPACK: `to` (CPU) → quantize → {dequantize → add (VPU), dequantize →
    # mul (CPU) → … → add}. The quantize feeds both sides and could not join add's subgraph (a
    # cycle through mul), so it was a VPU subgraph of its own. The CPU quantizes it: int8 crosses.
    from torch.fx import Graph, GraphModule
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp

    aten, qd = torch.ops.aten, torch.ops.quantized_decomposed
    graph = Graph()

    def q_dq(value, scale=0.05):
        q = graph.call_function(qd.quantize_per_tensor.default, (value, scale, 0, -128, 127, torch.int8))
        return q, graph.call_function(qd.dequantize_per_tensor.default, (q, scale, 0, -128, 127, torch.int8))

    x = graph.placeholder("x")
    cpu = graph.call_function(aten.sigmoid.default, (x,))
    q, dq_add = q_dq(cpu)
    dq_mul = graph.call_function(qd.dequantize_per_tensor.default, (q, 0.05, 0, -128, 127, torch.int8))
    mul = graph.call_function(aten.mul.Tensor, (dq_mul, dq_mul))
    _, dq_back = q_dq(mul)
    add = graph.call_function(aten.add.Tensor, (dq_add, dq_back))
    _, out = q_dq(add)
    graph.output(out)
    gm = GraphModule(torch.nn.Module(), graph)
    FakeTensorProp(gm).propagate(torch.zeros(2, 4))
    report = partition(QGraph(gm, load_profile()))
    partition_is_sound(gm, report)
    assert report.assignment[q.name] == "cpu" and report.assignment[dq_mul.name] == "cpu"
    assert len(report.subgraphs) == 1 and add.name in report.subgraphs[0].nodes
    assert {(b.src, b.dst, b.dtype, b.bytes) for b in report.boundaries if b.dst == dq_add.name} == {
        (q.name, dq_add.name, "int8", 8)}

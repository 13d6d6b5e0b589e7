"""Scale statistics, histograms, per-layer / end-to-end SQNR, node infos, and a reloaded .pt2."""
import math

import pytest
import torch
from torch.utils._pytree import tree_leaves

from vpu_core.analysis import analyze
from vpu_core.analysis.results import Analysis
from vpu_core.pipeline import RunConfig, run_pipeline
from vpu_core.qdq import is_quantize

RESULT_FIELDS = ("rules", "partition", "requant", "tensors", "nodes", "edges", "histograms")


def test_every_quantized_tensor_is_listed_once_with_graph_qparams(run, analysis, fx):
    qm, a = run("resnet8"), analysis("resnet8")
    gm = qm.converted
    quantizes = [n for n in gm.graph.nodes if is_quantize(n)]
    acts = [t for t in a.tensors if t.kind == "activation"]
    assert [t.node for t in acts] == [q.name for q in quantizes]
    for t, q in zip(acts, quantizes):
        assert t.scales == (float(q.args[1]),) and t.zero_points == (int(q.args[2]),)
        assert t.consumer == q.args[0].name and t.dtype == "int8"
    weights = [t for t in a.tensors if t.kind == "weight"]
    biases = [t for t in a.tensors if t.kind == "bias"]
    assert len(weights) == 10 and len(biases) == 8 and all(b.dtype == "int32" for b in biases)
    conv = fx.node(gm, "conv2d")
    w = next(t for t in weights if t.consumer == "conv2d")
    assert w.scales == tuple(float(s) for s in fx.attr(gm, conv.args[1].args[1]))


def test_vpu_float_scales_show_the_cost_of_rounding_up_to_pow2(analysis):
    a = analysis("resnet8")
    with_float = [t for t in a.tensors if t.float_scales]
    assert {t.kind for t in with_float} == {"activation", "weight"}
    for t in with_float:
        for s, f in zip(t.scales, t.float_scales):
            assert f <= s < 2 * f + 1e-12  # rounded up, at most twice as coarse
            assert math.log2(s).is_integer()
    loss = a.histograms["pow2_resolution_loss"]
    assert sum(loss.counts) == sum(len(t.scales) for t in with_float)
    assert loss.edges[0] == 0.0 and loss.edges[-1] == 1.0


@pytest.mark.slow
def test_xnnpack_has_no_pow2_rounding_cost(analysis):
    a = analysis("resnet8", "xnnpack")
    assert all(t.float_scales == () for t in a.tensors)
    assert sum(a.histograms["pow2_resolution_loss"].counts) == 0


def test_scale_histograms_are_log2_with_integer_centred_bins(analysis):
    a = analysis("resnet8")
    act = a.histograms["log2_scale_activation"]
    logs = [math.log2(s) for t in a.tensors if t.kind == "activation" for s in t.scales]
    assert sum(act.counts) == len(logs)
    assert all((e + 0.5).is_integer() for e in act.edges)
    weight = a.histograms["log2_scale_weight"]
    assert sum(weight.counts) == sum(len(t.scales) for t in a.tensors if t.kind == "weight")


def _sqnr(f, q):
    f, q = f.double(), q.double()
    return 10 * math.log10(float((f * f).sum()) / float(((f - q) ** 2).sum()))


def test_end_to_end_sqnr_on_the_heldout_batch(run, analysis):
    qm, a = run("resnet8"), analysis("resnet8")
    assert len(qm.heldout_calls) == 2 and a.accuracy_samples == 8       # two calls at batch 4
    with torch.no_grad():
        pairs = [(tree_leaves(qm.float_graph(*b))[0], tree_leaves(qm.converted(*b))[0]) for b in qm.heldout_calls]
    ref, test = torch.cat([f.flatten() for f, _ in pairs]), torch.cat([q.flatten() for _, q in pairs])
    expected = _sqnr(ref, test)              # the energies of both calls summed, one signal
    assert a.sqnr_db == pytest.approx(expected, abs=1e-3)
    assert 15 < a.sqnr_db < 60


def test_layer_sqnr_covers_every_quantized_op(run, analysis):
    qm, a = run("resnet8"), analysis("resnet8")
    ops = {n.name for n in qm.converted.graph.nodes
           if n.op == "call_function" and n.name.startswith(("conv2d", "linear", "add", "relu"))}
    assert ops <= set(a.layer_sqnr)
    assert all(5 < v < 80 for v in a.layer_sqnr.values())
    # The final linear's quantized output compared with the float model's output is the
    # end-to-end number of the same pass.
    assert a.layer_sqnr["linear"] == pytest.approx(a.sqnr_db, abs=1e-3)
    assert a.nodes["conv2d"].sqnr_db == a.layer_sqnr["conv2d"]


def test_node_infos_cover_the_graph_with_numeric_qparams_named_arguments_and_modules(run, analysis, fx):
    from vpu_core.formatting import node_label, quant_params_rows

    qm, a = run("resnet8"), analysis("resnet8")
    names = [n.name for n in qm.converted.graph.nodes]
    assert list(a.nodes) == names
    assert len(a.edges) == sum(len(n.all_input_nodes) for n in qm.converted.graph.nodes)
    q = next(n for n in qm.converted.graph.nodes if is_quantize(n))
    qp = a.nodes[q.name].qparams                      # numbers, read from the graph
    assert qp.scales == (float(q.args[1]),) and qp.zero_points == (0,) and not qp.per_channel
    assert (qp.dtype, qp.quant_min, qp.quant_max) == ("int8", -128, 127)
    k = round(math.log2(float(q.args[1])))
    assert dict(quant_params_rows(qp))["scale"] == f"{float(q.args[1]):.6g} = 2^{k}"   # formatted once
    w_dq = fx.node(qm.converted, "conv2d_1").args[1]
    w_qp = a.nodes[w_dq.name].qparams
    assert w_qp.per_channel and w_qp.axis == 0 and len(w_qp.scales) == 16
    conv = a.nodes["conv2d_1"]
    assert conv.op == "conv2d.default" and conv.shape.startswith("[4, 16,")
    assert conv.source.startswith("stages.0.path_a.0 (Conv2d)")
    assert conv.inputs == tuple(i.name for i in fx.node(qm.converted, "conv2d_1").all_input_nodes)
    assert conv.outputs == ("relu_1",)
    # arguments named by the ATen schema; tensors by the node that produces them
    args = {arg.name: arg for arg in conv.arguments}
    assert list(args)[:5] == ["input", "weight", "bias", "stride", "padding"]
    assert args["stride"].value == (1, 1) and args["stride"].refs == ()
    assert args["weight"].value == w_dq.name and args["weight"].refs == (w_dq.name,)
    # module paths: an op its own, a quantize its producer's, a weight dequantize its consumer's
    assert conv.module == "stages.0.path_a.0" and node_label(conv) == "stages.0.path_a.0 · conv2d"
    assert a.nodes[w_dq.name].module == "stages.0.path_a.0"
    q_relu = next(u for u in fx.node(qm.converted, "relu_1").users if is_quantize(u))
    assert a.nodes[q_relu.name].module == "stages.0.path_a.2"


def test_timings_include_analyze(analysis):
    a = analysis("resnet8")
    assert a.timings_s["analyze"] > 0
    assert {"export", "prepare", "calibrate", "convert"} <= set(a.timings_s)


def test_reloaded_qdq_program_is_analysed_without_float_reference(tmp_path, run, analysis):
    qm = run("resnet8")
    path = tmp_path / "resnet8_vpu.pt2"
    torch.export.save(torch.export.export(qm.converted, qm.example_inputs, strict=False), str(path))
    loaded = run_pipeline(RunConfig(model=str(path), batch_size=4))
    assert loaded.already_quantized and loaded.float_graph is None
    a = analyze(loaded)
    assert isinstance(a, Analysis)
    assert a.sqnr_db is None and a.layer_sqnr == {}
    assert [(r.rule.id, r.violations) for r in a.rules] == \
        [(r.rule.id, r.violations) for r in analysis("resnet8").rules]
    original = analysis("resnet8")
    assert len(a.requant) == len(original.requant)
    assert [s.shifts for s in a.requant] == [s.shifts for s in original.requant]
    assert all(getattr(a, f) for f in RESULT_FIELDS)

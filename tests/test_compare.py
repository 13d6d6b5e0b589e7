"""vpu_core.compare on real runs: resnet8 through the VPU quantizer and through XNNPACK."""
import dataclasses
import math

import pytest

from vpu_core.analysis import analyze
from vpu_core.compare import (CompareSpecError, compare, config_variant, is_compute_op,
                              violation_owners)
from vpu_core.pipeline import RunConfig

MATCHED_OPS = ("conv2d", "linear", "add")


@pytest.fixture(scope="module")
def vpu(run_cached):
    return analyze(run_cached(model="resnet8", quantizer="vpu"))


@pytest.fixture(scope="module")
def xnn(run_cached):
    return analyze(run_cached(model="resnet8", quantizer="xnnpack"))


@pytest.fixture(scope="module")
def cmp(vpu, xnn):
    return compare(vpu, xnn)


def _ops(analysis, packet):
    return [n for n, info in analysis.nodes.items()
            if is_compute_op(info) and info.op.split(".", 1)[0] == packet]


@pytest.mark.slow
def test_every_conv_linear_add_is_paired_by_module_path(vpu, xnn, cmp):
    assert cmp.a_label == "VPU" and cmp.b_label == "XNNPACK"
    assert cmp.only_a == () and cmp.only_b == ()
    for packet in MATCHED_OPS:
        pairs = [p for p in cmp.pairs if p.op.split(".", 1)[0] == packet]
        assert {p.a.node for p in pairs} == set(_ops(vpu, packet))
        assert {p.b.node for p in pairs} == set(_ops(xnn, packet))
    conv_keys = [p.key.split(" ", 1)[0] for p in cmp.pairs if p.op == "conv2d.default"]
    assert conv_keys == ["entry.0", "stages.0.path_a.0", "stages.0.path_a.3", "stages.1.path_a.0",
                         "stages.1.path_a.3", "stages.1.skip", "stages.2.path_a.0", "stages.2.path_a.3",
                         "stages.2.skip"]
    for p in cmp.pairs:       # both sides compute the same thing from the same module
        assert vpu.nodes[p.a.node].op == xnn.nodes[p.b.node].op == p.op
        assert vpu.nodes[p.a.node].source == xnn.nodes[p.b.node].source == p.key


def _renamed(analysis):
    """The same analysis with its op names rotated (conv2d is now called what relu was, …) and
    every other node renamed: what a different export could have numbered."""
    ops = [n for n, info in analysis.nodes.items() if is_compute_op(info)]
    new = {name: f"n{i}" for i, name in enumerate(analysis.nodes)}
    new.update(zip(ops, ops[1:] + ops[:1]))
    r = lambda name: new.get(name, name)  # noqa: E731
    nodes = {r(n): dataclasses.replace(info, name=r(n), inputs=tuple(map(r, info.inputs)),
                                       outputs=tuple(map(r, info.outputs)))
             for n, info in analysis.nodes.items()}
    part = dataclasses.replace(analysis.partition,
                               assignment={r(k): v for k, v in analysis.partition.assignment.items()})
    tensors = tuple(dataclasses.replace(t, node=r(t.node), consumer=r(t.consumer)) for t in analysis.tensors)
    return new, dataclasses.replace(
        analysis, nodes=nodes, partition=part, tensors=tensors,
        violations=tuple(dataclasses.replace(v, node=r(v.node)) for v in analysis.violations),
        edges=tuple((r(s), r(d)) for s, d in analysis.edges))


@pytest.mark.slow
def test_matching_never_uses_node_names(vpu, xnn, cmp):
    # A name-based matcher would now pair VPU's conv2d with XNNPACK's first relu.
    new, renamed = _renamed(xnn)
    shifted = compare(vpu, renamed)
    assert [(p.key, p.op, p.occurrence) for p in shifted.pairs] == \
           [(p.key, p.op, p.occurrence) for p in cmp.pairs]
    assert [p.b.node for p in shifted.pairs] == [new[p.b.node] for p in cmp.pairs]
    assert [p.b.rules for p in shifted.pairs] == [p.b.rules for p in cmp.pairs]
    assert shifted.pairs[0].a.node == "conv2d" and shifted.pairs[0].b.node == "relu"


@pytest.mark.slow
def test_pow2_violations_only_on_the_xnnpack_side(cmp, xnn):
    assert not any(p.a.rules for p in cmp.pairs)         # the VPU quantizer breaks nothing
    pow2 = [p for p in cmp.pairs if "pow2_scale" in p.b.rules]
    assert {p.op for p in pow2} >= {"conv2d.default", "linear.default", "relu.default"}
    # Every XNNPACK violation is charged to exactly one matched op.
    assert sum(len(p.b.violations) for p in cmp.pairs) == len(xnn.violations)
    assert cmp.rule_counts_a["pow2_scale"] == 0
    assert cmp.rule_counts_b["pow2_scale"] == sum(1 for v in xnn.violations if v.rule == "pow2_scale") > 0


@pytest.mark.slow
def test_qparams_of_matched_convs_differ_as_the_quantizers_do(cmp):
    convs = [p for p in cmp.pairs if p.op == "conv2d.default"]
    for p in convs:
        assert p.qparams_differ
        a_scales, b_scales = p.a.weight.scales, p.b.weight.scales
        assert len(a_scales) == len(b_scales) > 1                      # per-channel on both sides
        assert all(math.log2(s).is_integer() for s in a_scales)        # VPU: powers of two
        assert not all(math.log2(s).is_integer() for s in b_scales)    # XNNPACK: float scales
        assert "bias_int32" not in p.a.rules
    # XNNPACK leaves biases fp32: the VPU-side int32 bias has no XNNPACK counterpart.
    biased = [p for p in convs if p.a.bias is not None]
    assert biased and all(p.b.bias is None and "bias_int32" in p.b.rules for p in biased)


@pytest.mark.slow
def test_partition_is_the_same_for_resnet8(cmp):
    # Every resnet8 op is in the VPU op list, whatever the quantizer: nothing moves.
    assert cmp.partition_changes == ()
    assert all(p.a.placement == p.b.placement == "vpu" for p in cmp.pairs)


@pytest.mark.slow
def test_an_analysis_compared_with_itself_has_no_differences(vpu):
    same = compare(vpu, vpu)
    assert same.differing == () and same.only_a == () and same.only_b == ()
    assert len(same.pairs) == sum(1 for info in vpu.nodes.values() if is_compute_op(info))


@pytest.mark.slow
def test_violation_owners_charge_qdq_and_weights_to_their_op(xnn):
    owners = violation_owners(xnn)
    for t in xnn.tensors:
        if t.kind == "weight":      # the weight's dequantize belongs to the op that reads it
            assert owners[t.node] == t.consumer
    first_q = next(n for n, info in xnn.nodes.items() if info.inputs == ("x",))
    assert xnn.nodes[owners[first_q]].op == "conv2d.default"   # graph input: its first reader


def test_config_variant_reads_a_quantizer_or_settings():
    base = RunConfig(model="resnet8")
    assert config_variant(base, "xnnpack") == dataclasses.replace(base, quantizer="xnnpack")
    other = config_variant(base, "quantizer=xnnpack, per-tensor=1,calib_batches=2")
    assert (other.quantizer, other.per_tensor, other.calib_batches) == ("xnnpack", True, 2)
    assert other.model == "resnet8"
    for bad in ("tflite", "quantizer=tflite", "colour=red", "per_tensor=maybe", "batch_size=0", ""):
        with pytest.raises(CompareSpecError):
            config_variant(base, bad)

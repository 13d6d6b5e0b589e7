"""check_vpu: the seven rules on real converted graphs, one broken rule at a time."""
import math

import pytest
import torch

from vpu_core.analysis import RULES
from vpu_core.analysis.qgraph import QGraph
from vpu_core.analysis.results import RuleInfo
from vpu_core.analysis.rules import check_vpu
from vpu_core.analysis.rules.base import Rule, RuleRegistry
from vpu_core.profile import RULE_IDS, load_profile

DEFAULT = load_profile()
_qd = torch.ops.quantized_decomposed


def _check(gm, profile=DEFAULT):
    return check_vpu(QGraph(gm, profile))


def test_registry_lists_the_seven_rules_in_constraint_order():
    assert [r.id for r in RULES] == list(RULE_IDS)
    assert [r.info.constraint for r in RULES] == [2, 3, 4, 5, 6, 7, 8]
    assert all(r.info.title and r.info.reason for r in RULES)


def test_registry_rejects_duplicate_ids():
    registry = RuleRegistry()
    rule = Rule(RuleInfo("x", 2, "t", "r"), lambda g: [])
    registry.register(rule)
    with pytest.raises(ValueError, match="duplicate rule id 'x'"):
        registry.register(Rule(RuleInfo("x", 3, "t2", "r2"), lambda g: []))


def test_each_rule_declares_its_label_and_what_the_quantizer_relaxes_without_it():
    from dataclasses import asdict

    from vpu_core.analysis.rules import QuantizerChoices, quantizer_choices
    from vpu_core.whatif.profile_edit import edit

    assert all(r.info.short and r.info.name for r in RULES)
    assert quantizer_choices(DEFAULT) == QuantizerChoices()
    for rule in RULES:
        off = asdict(quantizer_choices(edit(DEFAULT, constraints={rule.id: False})))
        assert {k for k, on in off.items() if not on} == set(rule.relaxes) != set()
    needs = {r.id for r in RULES if r.int_sim_blocker is not None}
    assert needs == {r.id for r in RULES if r.info.int_sim_need}
    assert needs == {"act_per_tensor_symmetric", "weight_per_channel_symmetric", "pow2_scale", "bias_int32"}


@pytest.mark.parametrize("model", ["conv_relu", "resnet8", pytest.param("mobilenet_v2", marks=pytest.mark.slow)])
def test_vpu_quantizer_graph_passes_all_seven(model, analysis):
    a = analysis(model, "vpu")
    assert [(r.rule.id, r.enabled, r.violations) for r in a.rules] == [(i, True, 0) for i in RULE_IDS]
    assert a.violations == ()


@pytest.mark.slow
def test_dynamic_per_channel_xnnpack_resnet8_fails_exactly_five(analysis):
    a = analysis("resnet8", "xnnpack", dynamic_batch=True)
    failing = {r.rule.id for r in a.rules if r.violations}
    assert failing == {"act_per_tensor_symmetric", "pow2_scale", "bias_int32", "shared_scale", "static_shape"}
    static = [v for v in a.violations if v.rule == "static_shape"]
    assert len(static) == 1 and static[0].node == "x"
    shape = dict(static[0].values)["shape"]
    assert shape.startswith("[s") and shape.endswith(", 3, 32, 32]")


@pytest.mark.slow
def test_xnnpack_add_reports_the_input_scales_read_from_the_graph(run, analysis, fx):
    qm, a = run("resnet8", "xnnpack"), analysis("resnet8", "xnnpack")
    add = fx.node(qm.converted, "add")
    in_scales = tuple(float(dq.args[1]) for dq in add.args)  # the DQ nodes feeding add
    v = next(v for v in a.violations if v.rule == "shared_scale" and v.node == "add")
    assert dict(v.values)["input_scales"] == in_scales
    assert in_scales[0] != in_scales[1]
    assert v.message.startswith(f"add inputs use scales {in_scales[0]:.4g} and {in_scales[1]:.4g}")


@pytest.mark.slow
def test_xnnpack_fp32_bias_is_reported_with_the_expected_scale(run, analysis, fx):
    qm, a = run("conv_relu", "xnnpack"), analysis("conv_relu", "xnnpack")
    conv = fx.node(qm.converted, "conv2d")
    s_in = float(conv.args[0].args[1])
    s_w = fx.attr(qm.converted, conv.args[1].args[1])
    v = next(v for v in a.violations if v.rule == "bias_int32")
    assert v.node == "conv2d" and v.message.startswith("bias is fp32, expected int32 with scale")
    expected = dict(v.values)["expected_scale"]
    assert expected == pytest.approx([s_in * float(s) for s in s_w], rel=1e-6)


@pytest.mark.parametrize("rule_id", RULE_IDS)
def test_profile_with_one_constraint_off_breaks_exactly_that_rule(rule_id, run, fx):
    qm = run("resnet8", "vpu", dynamic_batch=rule_id == "static_shape", rule_off=rule_id)
    _results, violations = _check(qm.converted)  # checked against the full default profile
    assert set(fx.fired(violations)) == {rule_id}
    # Checked against its own profile, the rule is reported switched off and never fires.
    results, own = _check(qm.converted, qm.profile)
    assert own == ()
    assert [r.rule.id for r in results if not r.enabled] == [rule_id]


def test_relaxed_bias_rule_names_the_conv_and_expected_pow2_scale(run, fx):
    qm = run("conv_relu", "vpu", rule_off="bias_int32")
    _r, violations = _check(qm.converted)
    conv = fx.node(qm.converted, "conv2d")
    s_in = float(conv.args[0].args[1])
    s_w = fx.attr(qm.converted, conv.args[1].args[1])
    expected = {s_in * float(s) for s in s_w}
    (v,) = violations
    assert v.node == "conv2d"
    if len(expected) == 1:
        k = round(math.log2(expected.pop()))
        assert v.message == f"bias is fp32, expected int32 with scale 2^{k}"
    else:
        lo, hi = (round(math.log2(e)) for e in (min(expected), max(expected)))
        assert v.message == f"bias is fp32, expected int32 with scale s_in·s_w per channel (2^{lo} … 2^{hi})"


def test_relaxed_fused_relu_reports_the_qdq_pair_between_conv_and_relu(run, fx):
    qm = run("conv_relu", "vpu", rule_off="fused_relu")
    _r, violations = _check(qm.converted)
    (v,) = violations
    conv = fx.node(qm.converted, "conv2d")
    q = next(iter(conv.users))
    assert v.rule == "fused_relu" and v.node == "conv2d"
    dq = next(iter(q.users))
    assert dict(v.values) == {"quantize": q.name, "dequantize": dq.name, "activation": "relu"}


def _set_qparam(gm, q_name: str, index: int, value, fx):
    """Edit one qparam of a quantize node and of every dequantize reading it."""
    q = fx.node(gm, q_name)
    q.update_arg(index, value)
    for dq in list(q.users):
        dq.update_arg(index, value)
    gm.recompile()


def test_edited_output_scale_breaks_only_pow2_on_that_quantize(run, fx):
    gm = fx.edited_copy(run("conv_relu", "vpu").converted)
    q_out = next(iter(fx.node(gm, "relu").users)).name
    _set_qparam(gm, q_out, 1, 0.02728, fx)
    _r, violations = _check(gm)
    (v,) = violations
    assert (v.rule, v.node) == ("pow2_scale", q_out)
    assert "scale 0.02728 is not a power of two" in v.message
    assert dict(v.values)["scale"] == 0.02728


def test_edited_zero_point_breaks_only_activation_symmetry(run, fx):
    gm = fx.edited_copy(run("conv_relu", "vpu").converted)
    q_out = next(iter(fx.node(gm, "relu").users)).name
    _set_qparam(gm, q_out, 2, -128, fx)
    _r, violations = _check(gm)
    (v,) = violations
    assert (v.rule, v.node) == ("act_per_tensor_symmetric", q_out)
    assert "zero point -128" in v.message and dict(v.values)["zero_point"] == -128


def test_edited_bias_scale_breaks_only_bias_rule_on_the_channel(run, fx):
    gm = fx.edited_copy(run("conv_relu", "vpu").converted)
    conv = fx.node(gm, "conv2d")
    bias_scale = fx.attr(gm, conv.args[2].args[1])
    expected = float(bias_scale[3])
    bias_scale[3] = expected * 2
    _r, violations = _check(gm)
    (v,) = violations
    assert (v.rule, v.node) == ("bias_int32", "conv2d")
    assert dict(v.values)["channel"] == 3 and dict(v.values)["expected_scale"] == pytest.approx(expected)


def test_per_tensor_weight_dequantize_breaks_only_weight_rule(run, fx):
    gm = fx.edited_copy(run("conv_relu", "vpu").converted)
    conv = fx.node(gm, "conv2d")
    w_dq = conv.args[1]
    scale = float(fx.attr(gm, w_dq.args[1]).max())
    with gm.graph.inserting_before(conv):
        # Dequantize the same int8 weight per-tensor with the largest channel scale.
        per_tensor = gm.graph.call_function(_qd.dequantize_per_tensor.default,
                                            (w_dq.args[0], scale, 0, -127, 127, torch.int8))
    conv.replace_input_with(w_dq, per_tensor)
    # Keep the bias consistent with s_in·s_w so only constraint 3 is broken.
    s_in = float(conv.args[0].args[1])
    fx.attr(gm, conv.args[2].args[1]).fill_(s_in * scale)
    gm.recompile()
    _r, violations = _check(gm)
    assert fx.fired(violations) == {"weight_per_channel_symmetric": 1}
    assert violations[0].node == "conv2d" and "per-tensor" in violations[0].message

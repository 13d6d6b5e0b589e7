"""Constraint 5: the bias of conv / linear is int32 with scale exactly s_in·s_w (per channel)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from torch.fx import Node

from vpu_core.analysis.qgraph import QGraph
from vpu_core.formatting import scale_text
from vpu_core.qdq import is_dequantize
from vpu_core.analysis.results import RuleInfo, Violation
from vpu_core.analysis.rules.base import Rule
from vpu_core.hardware.nodes import kernel_of, weighted_nodes

if TYPE_CHECKING:
    from torch.fx import GraphModule

    from vpu_core.hardware.profile import HardwareProfile

_REL_TOL = 1e-5  # s_in·s_w is formed in float32 by the quantizer, we recompute it in float64


def expected_bias_scales(g: QGraph, op: Node) -> tuple[float, ...] | None:
    """s_in·s_w[c] for a quantized conv / linear (None when the input is not dequantized)."""
    x, w = g.input_dq(op), g.weight_dq(op)
    if x is None or w is None or len(x.scales) != 1 or not w.scales:
        return None
    return tuple(x.scales[0] * s for s in w.scales)


def _short_dtype(dtype: torch.dtype) -> str:
    return {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16"}.get(dtype, str(dtype)[6:])


def _expected_text(expected: tuple[float, ...] | None) -> str:
    if not expected:
        return "s_in·s_w"
    if len(set(expected)) == 1:
        return scale_text(expected[0])
    lo, hi = min(expected), max(expected)
    return f"s_in·s_w per channel ({scale_text(lo)} … {scale_text(hi)})"


def _scale_mismatch(scales: tuple[float, ...], expected: tuple[float, ...]) -> int | None:
    """First channel whose bias scale differs from the expected one (None if all match)."""
    if len(scales) == 1:
        scales = scales * len(expected)
    if len(expected) == 1:  # per-tensor weight: one s_in·s_w for every bias channel
        expected = expected * len(scales)
    if len(scales) != len(expected):
        return 0
    for c, (s, e) in enumerate(zip(scales, expected)):
        if abs(s - e) > _REL_TOL * e:
            return c
    return None


def _check_op(g: QGraph, op: Node) -> Violation | None:
    bias = g.bias_arg(op)
    if bias is None:
        return None
    expected = expected_bias_scales(g, op)
    want = _expected_text(expected)
    if not (isinstance(bias, Node) and is_dequantize(bias)):
        meta = g.tensor_meta.get(bias.name) if isinstance(bias, Node) else None
        dtype = _short_dtype(meta[1]) if meta and meta[1] is not None else "fp32"
        return RULE.violation(op.name, f"bias is {dtype}, expected int32 with scale {want}",
                              bias_dtype=dtype, expected_scale=expected)
    qp = g.qp[bias]
    if qp.dtype != torch.int32:
        return RULE.violation(op.name, f"bias is {qp.dtype_text}, expected int32 with scale {want}",
                              bias_dtype=qp.dtype_text, expected_scale=expected)
    if any(z != 0 for z in qp.zero_points):
        return RULE.violation(op.name, f"bias zero point {qp.zero_points[0]}, expected 0",
                              zero_point=qp.zero_points[0])
    c = _scale_mismatch(qp.scales, expected) if expected else None
    if c is not None and expected is not None:
        got = qp.scales[min(c, len(qp.scales) - 1)]
        want_c = expected[min(c, len(expected) - 1)]
        where = f" on channel {c}" if max(len(expected), len(qp.scales)) > 1 else ""
        return RULE.violation(op.name, f"bias scale {scale_text(got)}{where}, expected "
                              f"s_in·s_w = {scale_text(want_c)}", channel=c, scale=got,
                              expected_scale=want_c)
    return None


def check(g: QGraph) -> list[Violation]:
    return [v for v in (_check_op(g, op) for op in g.weighted_ops) if v is not None]


def cannot_matter(gm: GraphModule, profile: HardwareProfile) -> str:
    def has_bias(n: Node) -> bool:
        k = kernel_of(n)
        return k.bias is not None and len(n.args) > k.bias and isinstance(n.args[k.bias], Node)

    with_bias = [n for n in weighted_nodes(gm, profile.vpu_ops) if has_bias(n)]
    return "" if with_bias else "no conv / linear with a bias on the VPU"


def int_sim_blocker(g: QGraph, op: Node) -> str:
    """A bias the integer accumulator cannot add as it is: float, wider than int32, or at a scale
    other than s_in·s_w of its channel."""
    if not g.kernel(op).weighted or g.weight_dq(op) is None:
        return ""
    bias = g.bias_arg(op)
    if bias is None:
        return ""
    if not (isinstance(bias, Node) and is_dequantize(bias)):
        return "its bias is float, not int32"
    b = g.qp[bias]
    if b.quant_min < -(2 ** 31) or b.quant_max > 2 ** 31 - 1 or b.dtype.is_floating_point:
        return f"bias dtype {b.dtype_text}"
    x, w = g.input_dq(op), g.weight_dq(op)
    if x is None or w is None or not x.scales or not w.scales or not b.scales:
        return ""
    expected = [x.scales[0] * s for s in w.scales]
    if len(b.scales) != len(expected) and len(b.scales) != 1:
        return f"{len(b.scales)} bias scales for {len(expected)} channels"
    scales = b.scales if len(b.scales) == len(expected) else b.scales * len(expected)
    bad = next(((s, e) for s, e in zip(scales, expected) if abs(s - e) > 1e-6 * e), None)
    return f"bias scale {bad[0]:.6g} ≠ s_in·s_w = {bad[1]:.6g}" if bad is not None else ""


RULE = Rule(RuleInfo(
    id="bias_int32", constraint=5,
    title="Bias int32 with scale s_in·s_w", short="bias int32",
    reason="The conv accumulates int8·int8 products in int32 at scale s_in·s_w; a bias quantized to "
           "exactly that scale is added straight into the accumulator, any other needs a rescale.",
    name="int32 bias", verb="costs",
    int_sim_need="an int32 bias at scale s_in·s_w, added in the accumulator"), check, cannot_matter,
    relaxes=("int32_bias",), int_sim_blocker=int_sim_blocker)

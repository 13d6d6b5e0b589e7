"""Can the VPU partitions of this graph run in integers at all? If not, which rule prevents it.

Integer simulation models a shift-only VPU. It handles zero points (through the zero-point
expansion) and differing power-of-two scales (through shifts), but it cannot requantize without
a power-of-two scale, cannot add a float bias in an integer accumulator, and keeps one scale per
activation tensor. The first broken prerequisite, in rule order, is the one sentence the user sees.
Only nodes of VPU subgraphs are looked at: the CPU runs in float anyway.
"""
from __future__ import annotations

from dataclasses import dataclass

from torch.fx import Node

from vpu_core.analysis.qgraph import QGraph
from vpu_core.formatting import is_pow2
from vpu_core.analysis.rules import RULES
from vpu_core.qdq import is_dequantize, is_qdq



@dataclass(frozen=True)
class Refusal:
    rule: str
    node: str
    sentence: str


def refusal(g: QGraph, assignment: dict) -> Refusal | None:
    found: dict[str, tuple[str, str]] = {}

    def note(rule: str, node: Node, detail: str) -> None:
        found.setdefault(rule, (node.name, detail))

    for node in g.nodes:
        if assignment.get(node.name, "cpu") == "cpu" or node.op != "call_function":
            continue
        if is_qdq(node):
            _check_qparams(g, node, note)
        elif node in g.weighted_ops:
            _check_weighted(g, node, note)
    for rule in RULES:
        if rule.id in found:
            node, detail = found[rule.id]
            sentence = (f"Integer simulation needs {rule.info.int_sim_need}: rule {rule.id} "
                        f"({rule.info.title}) does not hold at {node} ({detail}).")
            return Refusal(rule.id, node, sentence)
    return None


def _check_qparams(g: QGraph, node: Node, note) -> None:
    qp = g.qp[node]
    if not qp.scales:
        note("pow2_scale", node, "its scale is computed at run time")
        return
    bad = next((s for s in qp.scales if not is_pow2(s)), None)
    if bad is not None:
        users = [u.name for u in node.users] if node in g.constants else []
        note("pow2_scale", node, f"{'constant of ' + users[0] + ', ' if users else ''}scale {bad:.6g}")
    if qp.per_channel and node not in g.constants:
        note("act_per_tensor_symmetric", node, f"per-channel activation, axis {qp.axis}")


def _check_weighted(g: QGraph, op: Node, note) -> None:
    w, x = g.weight_dq(op), g.input_dq(op)
    if w is not None and w.per_channel and w.axis not in (g.weight_axis(op), None):
        note("weight_per_channel_symmetric", op, f"weight channel axis {w.axis}")
    bias = g.bias_arg(op)
    if bias is None:
        return
    if not (isinstance(bias, Node) and is_dequantize(bias)):
        note("bias_int32", op, "its bias is float, not int32")
        return
    b = g.qp[bias]
    if b.quant_min < -(2 ** 31) or b.quant_max > 2 ** 31 - 1 or b.dtype.is_floating_point:
        note("bias_int32", op, f"bias dtype {b.dtype_text}")
        return
    if x is None or w is None or not x.scales or not w.scales or not b.scales:
        return
    expected = [x.scales[0] * s for s in w.scales]
    if len(b.scales) != len(expected) and len(b.scales) != 1:
        note("bias_int32", op, f"{len(b.scales)} bias scales for {len(expected)} channels")
        return
    scales = b.scales if len(b.scales) == len(expected) else b.scales * len(expected)
    bad = next(((s, e) for s, e in zip(scales, expected) if abs(s - e) > 1e-6 * e), None)
    if bad is not None:
        note("bias_int32", op, f"bias scale {bad[0]:.6g} ≠ s_in·s_w = {bad[1]:.6g}")

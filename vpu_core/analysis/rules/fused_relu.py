"""Constraint 7: conv / linear / add and the relu (or ReLU6) after them are fused: no Q/DQ between."""
from __future__ import annotations

from typing import TYPE_CHECKING

from torch.fx import Node

from vpu_core.analysis.qgraph import QGraph
from vpu_core.analysis.results import RuleInfo, Violation
from vpu_core.analysis.rules.base import Rule
from vpu_core.fx_utils import op_name
from vpu_core.hardware.nodes import kernel_of, listed_nodes
from vpu_core.hardware.ops import listed, op_matches
from vpu_core.qdq import is_dequantize, is_quantize

if TYPE_CHECKING:
    from torch.fx import GraphModule

    from vpu_core.hardware.profile import HardwareProfile


def _split_activation(g: QGraph, op: Node) -> tuple[Node, Node, Node] | None:
    """(quantize, dequantize, activation) when `op`'s only consumer is a relu behind a Q/DQ pair.

    Only a value read by the activation alone could have been fused, so a Q/DQ whose value also
    feeds other ops is no violation.
    """
    if len(op.users) != 1:
        return None
    q = next(iter(op.users))
    if not is_quantize(q) or not all(is_dequantize(d) for d in q.users):
        return None
    consumers = [(d, u) for d in q.users for u in d.users]
    if len(consumers) != 1:
        return None
    dq, act = consumers[0]
    profile = g.profile
    name = op_name(act) if act.op == "call_function" else ""
    if name and op_matches(name, profile.fused_activations) and op_matches(name, profile.vpu_ops):
        return q, dq, act
    return None


def check(g: QGraph) -> list[Violation]:
    out = []
    for op in g.nodes:
        # only an op the VPU runs can be fused (the quantizer annotates listed ops alone)
        if op.op != "call_function" or not (g.listed(op, g.profile.fusable_ops)
                                            and g.listed(op, g.profile.vpu_ops)):
            continue
        split = _split_activation(g, op)
        if split is None:
            continue
        q, dq, act = split
        out.append(RULE.violation(
            op.name, f"requantized before its {op_name(act).split('.')[0]}: {q.name} → {dq.name} sit "
            f"between {op.name} and {act.name}; expected them fused",
            quantize=q.name, dequantize=dq.name, activation=act.name))
    return out


def cannot_matter(gm: GraphModule, profile: HardwareProfile) -> str:
    for n in listed_nodes(gm, profile.vpu_ops):
        if not listed(kernel_of(n), profile.fusable_ops) or len(n.users) != 1:
            continue
        user = next(iter(n.users))
        name = op_name(user) if user.op == "call_function" else ""
        if op_matches(name, profile.fused_activations) and op_matches(name, profile.vpu_ops):
            return ""
    return "no conv / linear / add followed by its relu on the VPU: nothing to fuse"


RULE = Rule(RuleInfo(
    id="fused_relu", constraint=7,
    title="conv / linear / add fused with their relu", short="fused",
    reason="The VPU runs conv/linear/add and the following relu as one instruction, clamping in the "
           "int32 accumulator; a Q/DQ pair between them costs an extra int8 round trip and a second "
           "requantization.",
    name="fused relu", verb="costs"), check, cannot_matter, relaxes=("fused_activations",))

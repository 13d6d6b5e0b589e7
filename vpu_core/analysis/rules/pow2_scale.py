"""Constraint 4: every scale is a power of two (requantization becomes a right shift)."""
from __future__ import annotations

from torch.fx import Node

from vpu_core.analysis.qgraph import QGraph, QTensor
from vpu_core.formatting import is_pow2
from vpu_core.analysis.results import RuleInfo, Violation
from vpu_core.analysis.rules.base import Rule


def _node_for(t: QTensor) -> str:
    # Weights and biases are reported on the op that reads them (where users look for them).
    return t.related if t.kind != "activation" and t.related else t.qp.node.name


def check(g: QGraph) -> list[Violation]:
    out = []
    for t in g.tensors:
        bad = [s for s in t.qp.scales if not is_pow2(s)]
        if not bad:
            continue
        # Activations are reported on their quantize node, so the message names the producer.
        subject = f"activation {t.related}" if t.kind == "activation" else t.kind
        if len(t.qp.scales) == 1:
            msg = f"{subject} scale {bad[0]:.4g} is not a power of two"
            out.append(RULE.violation(_node_for(t), msg, scale=bad[0], tensor=t.qp.node.name))
        else:
            msg = (f"{subject} scales: {len(bad)} of {len(t.qp.scales)} channels are not powers of two "
                   f"(e.g. {bad[0]:.4g})")
            out.append(RULE.violation(_node_for(t), msg, scales=tuple(bad), tensor=t.qp.node.name))
    return out


def int_sim_blocker(g: QGraph, node: Node) -> str:
    """A Q/DQ whose scale is no power of two (or is computed at run time): no exact shift."""
    qp = g.qp.get(node)
    if qp is None:
        return ""
    if not qp.scales:
        return "its scale is computed at run time"
    bad = next((s for s in qp.scales if not is_pow2(s)), None)
    if bad is None:
        return ""
    users = [u.name for u in node.users] if node in g.constants else []
    return f"{'constant of ' + users[0] + ', ' if users else ''}scale {bad:.6g}"


RULE = Rule(RuleInfo(
    id="pow2_scale", constraint=4,
    title="Every scale is a power of two", short="pow2",
    reason="With power-of-two scales the requantization multiplier s_in·s_w/s_out is 2^-n: a right "
           "shift by n, no multiplier in hardware.",
    name="pow2 scales", verb="cost",
    int_sim_need="every scale to be a power of two, so that requantization is a right shift"), check,
    relaxes=("pow2_scales",), int_sim_blocker=int_sim_blocker)

"""Constraint 2: activations are int8, per-tensor, symmetric (zero point 0)."""
from __future__ import annotations

import torch

from torch.fx import Node

from vpu_core.analysis.qgraph import QGraph
from vpu_core.analysis.results import RuleInfo, Violation
from vpu_core.analysis.rules.base import Rule


def check(g: QGraph) -> list[Violation]:
    out = []
    for t in g.tensors:
        if t.kind != "activation":
            continue
        qp = t.qp
        problems: list[str] = []
        values: dict[str, object] = {}
        if qp.per_channel:
            problems.append(f"per-channel (axis {qp.axis})")
            values["axis"] = qp.axis
        if qp.dtype != torch.int8:
            problems.append(f"dtype {qp.dtype_text}")
            values["dtype"] = qp.dtype_text
        nonzero = sorted({z for z in qp.zero_points if z != 0})
        if nonzero:
            problems.append("zero point " + ", ".join(str(z) for z in nonzero[:4]))
            values["zero_point"] = nonzero[0] if len(nonzero) == 1 else tuple(nonzero)
        if problems:
            what = f"activation {t.related}" if t.related else "activation"
            out.append(RULE.violation(qp.node.name, f"{what}: {', '.join(problems)}; expected int8 "
                                      "per-tensor with zero point 0", **values))
    return out


def int_sim_blocker(g: QGraph, node: Node) -> str:
    """A per-channel activation: the integer values keep one scale per activation tensor. (A
    scale computed at run time is pow2_scale's to refuse.)"""
    qp = g.qp.get(node)
    if qp is None or not qp.scales or not qp.per_channel or node in g.constants:
        return ""
    return f"per-channel activation, axis {qp.axis}"


RULE = Rule(RuleInfo(
    id="act_per_tensor_symmetric", constraint=2,
    title="Activations int8, per-tensor, symmetric", short="act sym",
    reason="With zero point 0 the z·Σq cross terms of an integer conv vanish; otherwise they must be "
           "accumulated per output position at run time. One scale per activation buffer keeps the "
           "requantization a single shift.",
    name="per-tensor symmetric activations", verb="cost",
    int_sim_need="one scale per activation tensor"), check,
    relaxes=("symmetric_activations",), int_sim_blocker=int_sim_blocker)

"""Constraint 3: weights of conv / linear (and their aliases) are int8, per-channel along the output
channels (axis 0; axis 1 for the [in, out] weight of an addmm / mm / matmul alias), symmetric."""
from __future__ import annotations

from typing import TYPE_CHECKING

import torch
from torch.fx import Node

from vpu_core.analysis.qgraph import QGraph
from vpu_core.formatting import scale_text
from vpu_core.analysis.results import RuleInfo, Violation
from vpu_core.analysis.rules.base import Rule
from vpu_core.hardware.nodes import weighted_nodes

if TYPE_CHECKING:
    from torch.fx import GraphModule

    from vpu_core.hardware.profile import HardwareProfile


def check(g: QGraph) -> list[Violation]:
    out = []
    for op in g.weighted_ops:
        w, axis = g.weight_dq(op), g.weight_axis(op)
        if w is None:                   # weighted_ops have a dequantized weight; nothing to judge
            continue
        problems: list[str] = []
        values: dict[str, object] = {"weight": w.node.name}
        if not w.per_channel:
            scale = scale_text(w.scales[0]) if w.scales else "?"
            problems.append(f"weight is per-tensor (scale {scale})")
            values["scale"] = w.scales[0] if w.scales else None
        elif w.axis != axis:
            problems.append(f"weight is per-channel on axis {w.axis}")
            values["axis"] = w.axis
        if w.dtype != torch.int8:
            problems.append(f"weight dtype {w.dtype_text}")
            values["dtype"] = w.dtype_text
        nonzero = [z for z in w.zero_points if z != 0]
        if nonzero:
            problems.append(f"zero point {nonzero[0]}" + (f" ({len(nonzero)} of {len(w.zero_points)} "
                                                          "channels non-zero)" if w.per_channel else ""))
            values["zero_point"] = nonzero[0] if not w.per_channel else tuple(w.zero_points)
        if problems:
            out.append(RULE.violation(op.name, f"{'; '.join(problems)}; expected int8 per-channel "
                                      "with zero points 0", **values))
    return out


def cannot_matter(gm: GraphModule, profile: HardwareProfile) -> str:
    return "" if weighted_nodes(gm, profile.vpu_ops) else "no conv / linear on the VPU: no weight is quantized"


def int_sim_blocker(g: QGraph, node: Node) -> str:
    """A weight quantized per channel along another axis than its output channels."""
    w = g.weight_dq(node) if g.kernel(node).weighted else None
    if w is not None and w.per_channel and w.axis not in (g.weight_axis(node), None):
        return f"weight channel axis {w.axis}"
    return ""


RULE = Rule(RuleInfo(
    id="weight_per_channel_symmetric", constraint=3,
    title="Weights int8, per-channel, symmetric", short="w per-ch",
    reason="A weight zero point z_w adds a z_w·Σq_x term that must be accumulated per output position "
           "at run time; z_w = 0 removes it. Per-channel scales cost nothing extra: every output "
           "channel has its own requantization shift anyway.",
    name="per-channel symmetric weights", verb="cost",
    int_sim_need="weight scales per output channel (axis 0; axis 1 for the [in, out] weight of an alias)"), check, cannot_matter,
    relaxes=("symmetric_weights",), int_sim_blocker=int_sim_blocker)

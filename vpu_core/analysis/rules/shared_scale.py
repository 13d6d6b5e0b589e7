"""Constraint 6: add / cat / pooling (the profile's shared_scale ops) use one scale for inputs and output."""
from __future__ import annotations

from typing import TYPE_CHECKING

from torch.fx import Node

from vpu_core.analysis.qgraph import QGraph, QParams
from vpu_core.formatting import scale_text
from vpu_core.analysis.results import RuleInfo, Violation
from vpu_core.analysis.rules.base import Rule
from vpu_core.fx_utils import op_name
from vpu_core.hardware.nodes import listed_nodes
from vpu_core.hardware.ops import LIST_INPUT_OPS, op_matches
from vpu_core.qdq import is_dequantize

if TYPE_CHECKING:
    from torch.fx import GraphModule

    from vpu_core.hardware.profile import HardwareProfile


def tensor_inputs(op: Node) -> list[Node]:
    """Tensor operands of `op` (cat takes a list as its first argument)."""
    args = op.args[0] if op_matches(op_name(op), LIST_INPUT_OPS) else op.args
    if isinstance(args, Node):
        args = [args]
    return [a for a in args if isinstance(a, Node)]


def shared_scale_ops(g: QGraph, patterns: tuple[str, ...] | None = None
                     ) -> list[tuple[Node, list[QParams], QParams | None]]:
    """(op, input qparams, output qparams) for every quantized op matching `patterns` (default:
    the profile's shared-scale ops) whose tensor inputs all come through a dequantize."""
    patterns = g.profile.shared_scale_ops if patterns is None else patterns
    out = []
    for op in g.nodes:
        if op.op != "call_function" or not op_matches(op_name(op), patterns):
            continue
        inputs = tensor_inputs(op)
        if not inputs or not all(is_dequantize(a) for a in inputs):
            continue  # not a quantized op: nothing to share
        out.append((op, [g.qp[a] for a in inputs], g.output_q(op)))
    return out


def _text(qp: QParams) -> str:
    return ", ".join(scale_text(s) for s in qp.scales) or "?"


def _check_op(op: Node, ins: list[QParams], out: QParams | None) -> Violation | None:
    every = ins + ([out] if out is not None else [])
    if all(qp.same_as(every[0]) for qp in every):
        return None
    in_scales = " and ".join(_text(qp) for qp in ins)
    kind = op_name(op).split(".")[0]
    if len({qp.scales for qp in ins}) > 1:
        msg = f"{kind} inputs use scales {in_scales}" + (f", output {_text(out)}" if out else "")
    elif out is not None and out.scales != ins[0].scales:
        msg = f"{kind} output scale {_text(out)} differs from its input scale {_text(ins[0])}"
    else:
        zps = ", ".join(str(qp.zero_points[0]) for qp in every if qp.zero_points)
        msg = f"{kind} inputs/output use zero points {zps}"
    values: dict[str, object] = {"input_scales": tuple(qp.scales[0] for qp in ins if qp.scales),
              "input_zero_points": tuple(qp.zero_points[0] for qp in ins if qp.zero_points)}
    if out is not None:
        values.update(output_scale=out.scales[0] if out.scales else None,
                      output_zero_point=out.zero_points[0] if out.zero_points else None)
    return RULE.violation(op.name, msg + "; expected one shared scale", **values)


def check(g: QGraph) -> list[Violation]:
    return [v for v in (_check_op(*site) for site in shared_scale_ops(g)) if v is not None]


def cannot_matter(gm: GraphModule, profile: HardwareProfile) -> str:
    shared = [n for n in listed_nodes(gm, profile.vpu_ops) if op_matches(op_name(n), profile.shared_scale_ops)]
    return "" if shared else "no add / cat / pooling op (shared-scale op) on the VPU"


RULE = Rule(RuleInfo(
    id="shared_scale", constraint=6,
    title="add / cat / pooling share one scale", short="shared",
    reason="With one scale on inputs and output the VPU adds, concatenates and pools int8 values "
           "directly: no requantization around these ops.",
    name="shared add / cat / pool scales", verb="cost"), check, cannot_matter, relaxes=("shared_scales",))

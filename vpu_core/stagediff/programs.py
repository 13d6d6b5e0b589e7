"""`vpu-inspector diff A B`: two programs of one model, structure and numerics, node by node.

Each side is a graph: a program's converted Q/DQ graph, or a model's float graph ("float:" before
its name on the command line). B's ops are matched to A's by module path, op and occurrence
(vpu_core.stagediff.matching), so the two may come from two quantizers, two versions of a model
file or another tool, as long as both were exported from the same nn.Module tree. Structure: the
ops only A has (removed), only B has (added), and matched ops whose output or weight qparams
differ (changed). Numerics: both graphs on the same calls (A's held-aside calls: --calib-data or
the model's example inputs), B's value at every matched op against A's, what B adds there on
A's own inputs (its op run on A's values, as float → qdq in `check --stages`), and the first
divergent op.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import torch
from torch.fx import GraphModule, Node

from vpu_core.analysis.qgraph import QGraph, QParams, is_op
from vpu_core.errors import InspectorError
from vpu_core.fx_utils import op_name
from vpu_core.profile import HardwareProfile
from vpu_core.stagediff.build import Accumulator
from vpu_core.stagediff.capture import converted_values, float_values, output_quantize, steps, value_node
from vpu_core.stagediff.matching import match, module_path
from vpu_core.stagediff.results import StageDiff, Unmatched


class DiffInputsError(InspectorError):
    """A and B do not take the same inputs."""


@dataclass(frozen=True)
class Change:
    node_a: str
    node_b: str
    module: str
    op: str
    what: tuple[tuple[str, str, str], ...]     # (tensor: "output" | "weight", A's qparams, B's)


@dataclass(frozen=True)
class ProgramDiff:
    structure_added: tuple[Unmatched, ...]     # ops only B has (stage "B")
    structure_removed: tuple[Unmatched, ...]   # ops only A has (stage "A")
    changed: tuple[Change, ...]
    stages: StageDiff


def diff_programs(a: GraphModule, b: GraphModule, calls: Sequence[tuple], profile: HardwareProfile) -> ProgramDiff:
    """B against A on `calls` (each a tuple of inputs both graphs take)."""
    pairs, lost = match(a, b)
    removed = tuple(Unmatched(n.name, "A", why) for n, why in lost)
    gb, ga = QGraph(b, profile), QGraph(a, profile)
    added = tuple(Unmatched(n.name, "B", "no op of A computes it (same module, op and occurrence)")
                  for n in gb.nodes if is_op(n) and n.name not in pairs)
    wanted = {value_node(n).name: n for n in pairs.values()}
    acc = Accumulator(("A", "B"))
    for batch in calls:
        try:
            values = float_values(a, batch, set(wanted))
            reference = {op: values[value_node(n).name] for op, n in pairs.items() if value_node(n).name in values}
            for op, value, _, local in converted_values(gb, batch, None, reference):
                ref = reference.get(op.name)
                acc.add(op.name, {"A": ref, "B": value} if ref is not None else {"B": value},
                        {"B": local} if local is not None else None)
        except (RuntimeError, TypeError, ValueError) as exc:
            raise DiffInputsError(f"A and B do not run on the same inputs: {exc}".split("\n")[0]) from None
        acc.calls += 1
    stages = acc.summary(b, steps(gb), {}, [*removed, *added])
    return ProgramDiff(added, removed, _changes(ga, gb, pairs), stages)


def _changes(ga: QGraph, gb: QGraph, pairs: dict[str, Node]) -> tuple[Change, ...]:
    out = []
    for node in gb.nodes:
        other = pairs.get(node.name)
        if other is None:
            continue
        what = []
        for tensor, qa, qb in (("output", _out_qp(ga, other), _out_qp(gb, node)),
                               ("weight", _weight_qp(ga, other), _weight_qp(gb, node))):
            if qa != qb:
                what.append((tensor, qa, qb))
        if what:
            out.append(Change(other.name, node.name, module_path(node), op_name(node), tuple(what)))
    return tuple(out)


def _out_qp(g: QGraph, node: Node) -> str:
    q = output_quantize(node)
    return _text(g.qp[q]) if q is not None else "float"


def _weight_qp(g: QGraph, node: Node) -> str:
    qp = g.weight_dq(node) if node.op == "call_function" else None
    return _text(qp) if qp is not None else "none"


def _text(qp: QParams) -> str:
    scales = qp.scales
    if not scales:
        scale = "scale computed at run time"
    elif len(scales) == 1:
        scale = f"scale {scales[0]:.4g}"
    else:
        scale = f"{len(scales)} scales {min(scales):.3g}..{max(scales):.3g}"
    zps = set(qp.zero_points)
    zp = f"zp {qp.zero_points[0]}" if len(zps) == 1 else "zero points per channel"
    return f"{qp.dtype_text} {scale} {zp}"


def same_inputs(a_inputs: tuple, b_inputs: tuple) -> None:
    """DiffInputsError unless B's example inputs have A's shapes and dtypes."""
    def sig(xs: tuple) -> list:
        return [(tuple(x.shape), x.dtype) if isinstance(x, torch.Tensor) else type(x) for x in xs]

    if sig(a_inputs) != sig(b_inputs):
        raise DiffInputsError(f"A and B take different inputs ({sig(a_inputs)} vs {sig(b_inputs)}): "
                              "diff compares two programs of one model on the same inputs.")

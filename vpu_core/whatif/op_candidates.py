"""Op-list what-if: which kernel should the next chip add first?

For each op type that falls back to the CPU because it is not in the VPU op list, the graph is
partitioned again with only that op added to the list (re-partition only: nothing is quantized
again, so this is cheap and runs with every analysis). Per candidate:
- subgraphs_merged: existing VPU subgraphs that join another one through the added op;
- bytes_saved: boundary bytes before minus after (negative when the op opens a new island);
- cpu_nodes_left: CPU nodes after the change.

One assumption beyond the partition itself: a tensor that a newly added op sends back to the CPU
is counted as int8 (one byte per element), because on the VPU that op's output would be quantized
like every other VPU output; in the current graph it is still float (the quantizer did not
annotate an op without a kernel). Tensors entering the added op are counted as they are.
"""
from __future__ import annotations

import copy
import dataclasses
import math

from vpu_core.analysis.partition import partition
from vpu_core.analysis.qgraph import QGraph, is_getitem
from vpu_core.analysis.results import PartitionReport
from vpu_core.profile import op_matches
from vpu_core.whatif.results import OpCandidate


def _with_op(g: QGraph, op: str) -> QGraph:
    """`g` checked against its profile plus `op`; shares g's parsed qparams and shape caches."""
    h = copy.copy(g)
    h.profile = dataclasses.replace(g.profile, vpu_ops=(*g.profile.vpu_ops, op))
    return h


def candidate_ops(g: QGraph, part: PartitionReport) -> list[str]:
    """Op types of CPU nodes that are not in the VPU op list, in graph order."""
    seen: dict[str, None] = {}
    for c in part.cpu_nodes:
        if not op_matches(c.op, g.profile.vpu_ops):
            seen.setdefault(c.op, None)
    return list(seen)


def _transfer_bytes(g: QGraph, after: PartitionReport, moved: set[str]) -> int:
    total = 0
    for b in after.boundaries:
        src = g.by_name[b.src]
        producer = src.args[0].name if is_getitem(src) else src.name
        floating = b.dtype.startswith(("float", "bfloat"))
        if b.direction == "vpu->cpu" and producer in moved and floating:
            total += math.prod(b.shape)          # leaves the VPU quantized: one byte per element
        else:
            total += b.bytes
    return total


def what_if_added(g: QGraph, part: PartitionReport, op: str) -> OpCandidate:
    """The partition of `g` with `op` added to the VPU op list, against `part` (without it)."""
    after = partition(_with_op(g, op))
    before_cpu = {c.node for c in part.cpu_nodes}
    moved = {n for n in before_cpu if after.assignment.get(n) != "cpu"}
    old_vpu = {n for s in part.subgraphs for n in s.nodes}
    holding_old = sum(1 for s in after.subgraphs if old_vpu.intersection(s.nodes))
    after_bytes = _transfer_bytes(g, after, moved)
    return OpCandidate(
        op=op, subgraphs_merged=len(part.subgraphs) - holding_old,
        bytes_saved=part.transfer_bytes - after_bytes, cpu_nodes_left=len(after.cpu_nodes),
        nodes_moved=len(moved), new_subgraphs=len(after.subgraphs) - holding_old,
        subgraphs_after=len(after.subgraphs), transfer_bytes_after=after_bytes,
        first_node=next((c.node for c in part.cpu_nodes if c.op == op), ""))


def op_candidates(g: QGraph, part: PartitionReport) -> tuple[OpCandidate, ...]:
    """Every candidate op, ranked: most bytes saved, then most subgraphs merged, fewest CPU nodes."""
    out = [what_if_added(g, part, op) for op in candidate_ops(g, part)]
    return tuple(sorted(out, key=lambda c: (-c.bytes_saved, -c.subgraphs_merged, c.cpu_nodes_left, c.op)))

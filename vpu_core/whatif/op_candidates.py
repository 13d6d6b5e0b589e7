"""Op-list and limit what-if: which kernel (or which relaxed limit) should the next chip add first?

For each op type that falls back to the CPU because it is not in the VPU op list, the graph is
partitioned again with only that op added to the list; for each per-op limit some CPU op breaks
(vpu_core.hardware.limits), with only that limit relaxed — to the smallest bound that lets at
least one of those ops through, and to the bound that lets all of them through ("conv2d
kernel_max 3×3→5×5"). Re-partition only: nothing is quantized again (the VPU quantizer does not
read the limits), so this is cheap and runs with every analysis. Per candidate:
- subgraphs_merged: existing VPU subgraphs that join another one through the added op;
- bytes_saved: boundary bytes before minus after (negative when the op opens a new island);
- cpu_nodes_left: CPU nodes after the change;
- nodes_moved / macs_moved: the CPU nodes that join the VPU, and their multiply-accumulates
  (CpuNode.macs): what the candidate really moves. An op added to the list moves none of its
  nodes that read an integer / bool tensor (embedding of token ids, attention with a bool mask):
  a candidate that moves nothing is not a candidate, like a limit relaxation that admits nothing.

One assumption beyond the partition itself: a tensor that a newly added op sends back to the CPU
is counted as int8 (one byte per element), because on the VPU that op's output would be quantized
like every other VPU output; in the current graph it is still float (the quantizer did not
annotate an op without a kernel). Tensors entering the added op are counted as they are.
"""
from __future__ import annotations

import copy
import dataclasses
import math

from vpu_core.analysis.partition import partition, verdicts
from vpu_core.analysis.qgraph import QGraph, is_getitem
from vpu_core.analysis.results import PartitionReport
from vpu_core.hardware.limits import BY_ID, relaxations
from vpu_core.whatif.results import OpCandidate


def _with_profile(g: QGraph, **changes) -> QGraph:
    """`g` checked against its profile with `changes`; shares g's parsed qparams and shape caches."""
    h = copy.copy(g)
    h.profile = dataclasses.replace(g.profile, **changes)
    return h


def _with_op(g: QGraph, op: str) -> QGraph:
    return _with_profile(g, vpu_ops=(*g.profile.vpu_ops, op))


def candidate_ops(g: QGraph, part: PartitionReport) -> list[str]:
    """Op types of CPU nodes that are not in the VPU op list, in graph order."""
    seen: dict[str, None] = {}
    for c in part.cpu_nodes:
        if c.cause == "op_list":
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
    """The partition of `g` with `op` added to the VPU op list, against `part` (without it).
    The quantizer would quantize the added op: it is not held back as left in float."""
    fallbacks = frozenset(c.node for c in part.cpu_nodes if c.op == op)
    after = partition(_with_op(g, op), assume_quantized=fallbacks)
    return _candidate(g, part, after, op=op, first_node=next((c.node for c in part.cpu_nodes if c.op == op), ""))


def _admits(g: QGraph, part: PartitionReport, op: str) -> bool:
    """Whether adding `op` to the list turns any of its CPU nodes into a VPU candidate. When none
    (an index op on int64 positions, a copy into the KV cache) the partition cannot change, and
    partitioning again for it (torch.fx's CapabilityBasedPartitioner, the bulk of a decoder's
    what-if) would be spent for nothing."""
    fallbacks = frozenset(c.node for c in part.cpu_nodes if c.op == op)
    decided = verdicts(_with_op(g, op), fallbacks)
    return any(v.on_vpu for n, v in decided.items() if n.name in fallbacks)


def what_if_relaxed(g: QGraph, part: PartitionReport, limit: str, bound: object) -> OpCandidate:
    """The partition of `g` with one per-op limit relaxed to `bound`, against `part`."""
    after = partition(_with_profile(g, limits={**g.profile.limits, limit: bound}))
    moved = {c.node for c in part.cpu_nodes} - {c.node for c in after.cpu_nodes}
    first = next((c.node for c in part.cpu_nodes if c.node in moved), "")
    return _candidate(g, part, after, op=BY_ID[limit].table, first_node=first, kind="limit",
                      limit=limit, bound_from=g.profile.limits[limit], bound_to=bound)


def _candidate(g: QGraph, part: PartitionReport, after: PartitionReport, **fields) -> OpCandidate:
    before_cpu = {c.node for c in part.cpu_nodes}
    moved = {n for n in before_cpu if after.assignment.get(n) != "cpu"}
    macs_moved = sum(c.macs for c in part.cpu_nodes if c.node in moved)
    old_vpu = {n for s in part.subgraphs for n in s.nodes}
    holding_old = sum(1 for s in after.subgraphs if old_vpu.intersection(s.nodes))
    after_bytes = _transfer_bytes(g, after, moved)
    return OpCandidate(
        subgraphs_merged=len(part.subgraphs) - holding_old,
        bytes_saved=part.transfer_bytes - after_bytes, cpu_nodes_left=len(after.cpu_nodes),
        nodes_moved=len(moved), macs_moved=macs_moved, new_subgraphs=len(after.subgraphs) - holding_old,
        subgraphs_after=len(after.subgraphs), transfer_bytes_after=after_bytes, **fields)


def limit_candidates(g: QGraph, part: PartitionReport) -> list[OpCandidate]:
    """Every relaxation of a limit some CPU op breaks that moves at least one op to the VPU."""
    out = []
    for limit, values in part.failing_limits().items():
        key, bound = BY_ID[limit], g.profile.limits[limit]
        for relaxed in relaxations(key, bound, values):
            candidate = what_if_relaxed(g, part, limit, relaxed)
            if candidate.nodes_moved:
                out.append(candidate)
    return out


def op_candidates(g: QGraph, part: PartitionReport) -> tuple[OpCandidate, ...]:
    """Every candidate op and limit relaxation that moves at least one node to the VPU, ranked:
    most bytes saved, then most subgraphs merged, fewest CPU nodes."""
    added = [what_if_added(g, part, op) for op in candidate_ops(g, part) if _admits(g, part, op)]
    out = [c for c in added if c.nodes_moved] + limit_candidates(g, part)
    return tuple(sorted(out, key=lambda c: (-c.bytes_saved, -c.subgraphs_merged, c.cpu_nodes_left,
                                            c.kind, c.op, str(c.bound_to))))

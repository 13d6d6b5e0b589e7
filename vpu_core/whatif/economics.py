"""Partition economics: does each VPU subgraph pay for the bytes it moves across the boundary?

For every VPU subgraph: the bytes entering and leaving it (each tensor counted once per
subgraph, however many of its nodes read it) against the multiply-accumulates it keeps on the
VPU, computed from shapes (vpu_core.analysis.macs.op_macs: conv, linear and their aliases,
matmul). Everything else (relu, add, pooling, layout) counts 0 MAC: a subgraph of only those
moves data to the VPU for no multiply-accumulate at all.

A subgraph pays when bytes_in + bytes_out ≤ break_even_bytes_per_mac × MACs, the break-even
assumption of the hardware profile ([economics] in the TOML).
"""
from __future__ import annotations

from vpu_core.analysis.macs import op_macs
from vpu_core.analysis.qgraph import QGraph, is_op
from vpu_core.analysis.results import PartitionReport
from vpu_core.whatif.results import Economics, SubgraphEconomics

__all__ = ["op_macs", "subgraph_economics"]


def subgraph_economics(g: QGraph, part: PartitionReport) -> Economics:
    """Boundary bytes against MACs for every VPU subgraph of `part` (a partition of `g`)."""
    moved = part.boundary_tensors()
    rows = []
    for s in part.subgraphs:
        ops = [g.by_name[n] for n in s.nodes if is_op(g.by_name[n])]
        macs = sum(op_macs(g, n) for n in ops)
        tensors = moved.get(s.id, {})
        moved_in = sum(n for (direction, _), n in tensors.items() if direction == "cpu->vpu")
        moved_out = sum(n for (direction, _), n in tensors.items() if direction != "cpu->vpu")
        pays = moved_in + moved_out <= g.profile.break_even_bytes_per_mac * macs
        rows.append(SubgraphEconomics(s.id, len(ops), macs, moved_in, moved_out, pays,
                                      ops[0].name if ops else (s.nodes[0] if s.nodes else "")))
    return Economics(g.profile.break_even_bytes_per_mac, tuple(rows))

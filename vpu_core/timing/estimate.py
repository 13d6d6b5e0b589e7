"""The VPU side of the timing model alone: what the profile's [timing] says each subgraph costs.

    estimate = vpu_estimate(partition, macs, profile.timing, profile.name)   # VpuEstimate

Per VPU subgraph: launch_overhead_us + MACs / vpu_macs_per_s, plus every boundary tensor it moves
(each once): transfer_latency_us + bytes / link_bytes_per_s. This is the VPU target's estimate;
split_timing puts the same figures against the CPU times measured by a run.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from vpu_core.hardware.timing import TimingAssumptions
from vpu_core.timing.results import SubgraphEstimate, VpuEstimate

if TYPE_CHECKING:
    from vpu_core.analysis.results import PartitionReport


def vpu_estimate(part: PartitionReport, macs: Mapping[str, int], assumptions: TimingAssumptions,
                 profile: str) -> VpuEstimate:
    """`macs`: node name -> its multiply-accumulates (vpu_core.analysis.macs), for the VPU's ops."""
    moved = part.boundary_tensors()
    rows = []
    for s in part.subgraphs:
        mac = sum(macs.get(n, 0) for n in s.nodes)
        tensors = moved.get(s.id, {})
        rows.append(SubgraphEstimate(
            s.id, mac, len(tensors), sum(tensors.values()), assumptions.launch_overhead_us,
            assumptions.compute_us(mac), sum(assumptions.transfer_us(b) for b in tensors.values())))
    on_vpu = {n for s in part.subgraphs for n in s.nodes}
    node_us = tuple((n, assumptions.compute_us(m)) for n, m in macs.items() if m and n in on_vpu)
    return VpuEstimate(assumptions, profile, tuple(rows), node_us)

"""Time instead of bytes: does each VPU subgraph pay, in microseconds?

    timing = split_timing(analysis, runtime, profile.timing, subgraphs=economics.subgraphs)   # SplitTiming

Per VPU subgraph of the partition (its MACs and boundary tensors from vpu_core.whatif.economics'
accounting):

    VPU estimate  = launch_overhead_us + MACs / vpu_macs_per_s                     (profile [timing])
    transfers     = Σ over tensors entering or leaving it, each once:
                    transfer_latency_us + bytes / link_bytes_per_s                 (profile [timing])
    CPU measured  = Σ over its nodes of their time in the lowered program on this CPU
                    (RuntimeReport.op_us: ETDump per-op time + the node's share of its XNNPACK
                    delegate's overhead)
    verdict       = pays (saves CPU − VPU − transfers) or costs (VPU + transfers − CPU)

End to end: the split = Σ subgraphs (estimate + transfers) + the CPU fallback nodes (measured),
next to all of it on the CPU (measured: the per-op sum, and the wall-clock latency). Ops without
multiply-accumulates (add, relu, pooling, layout) are assumed free on the VPU beside its MAC
array; the VPU's time is its MACs and its launch. Pure Python, no torch.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Protocol

from vpu_core.hardware.timing import TimingAssumptions
from vpu_core.timing.results import SplitTiming, SubgraphTiming

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis

__all__ = ["split_timing", "SplitTiming", "SubgraphTiming", "TimingAssumptions"]


class SubgraphMacs(Protocol):
    """What the timing model reads of a VPU subgraph's economics (vpu_core.whatif.results)."""

    @property
    def subgraph(self) -> int: ...
    @property
    def macs(self) -> int: ...
    @property
    def ops(self) -> int: ...
    @property
    def first_op(self) -> str: ...


class _Latency(Protocol):
    @property
    def median_ms(self) -> float: ...


class MeasuredRun(Protocol):
    """What the timing model reads of a run on this CPU (vpu_core.targets.results.RuntimeReport)."""

    @property
    def refused(self) -> str | None: ...
    @property
    def latency(self) -> _Latency | None: ...
    @property
    def runtime(self) -> str: ...
    @property
    def threads(self) -> int: ...
    @property
    def profiled_runs(self) -> int: ...
    def op_us(self) -> dict[str, float]: ...


def split_timing(a: Analysis, runtime: MeasuredRun, assumptions: TimingAssumptions,
                 profile: str = "", subgraphs: Iterable[SubgraphMacs] = ()) -> SplitTiming | None:
    """The timing model of `a`'s partition with `runtime`'s measured CPU times (None when the
    runtime refused: there is nothing measured to compare with); `subgraphs`: the MACs of each
    VPU subgraph (Economics.subgraphs of the what-if; a subgraph not given counts none)."""
    if runtime.refused or runtime.latency is None:
        return None
    measured = runtime.op_us()
    part = a.partition
    moved = part.boundary_tensors()
    macs = {e.subgraph: (e.macs, e.ops, e.first_op) for e in subgraphs}
    rows = []
    for s in part.subgraphs:
        mac, ops, first = macs.get(s.id, (0, 0, s.nodes[0] if s.nodes else ""))
        tensors = moved.get(s.id, {})
        compute_nodes = [n for n in s.nodes if _is_compute(a, n)]
        rows.append(SubgraphTiming(
            s.id, ops, mac, len(tensors), sum(tensors.values()), assumptions.launch_overhead_us,
            assumptions.compute_us(mac), sum(assumptions.transfer_us(b) for b in tensors.values()),
            sum(measured.get(n, 0.0) for n in s.nodes), sum(1 for n in compute_nodes if n in measured), first))
    cpu = [n for n, where in part.assignment.items() if where == "cpu"]
    lat = runtime.latency
    return SplitTiming(
        assumptions, tuple(rows), sum(measured.get(n, 0.0) for n in cpu),
        sum(1 for n in cpu if _is_compute(a, n)), sum(measured.values()), lat.median_ms * 1e3,
        profile or part.profile,
        f"{runtime.runtime}, XNNPACK, {runtime.threads} threads, {runtime.profiled_runs} profiled runs")


def _is_compute(a: Analysis, name: str) -> bool:
    info = a.nodes.get(name)
    return info is not None and info.kind == "call_function" and not info.op.startswith(
        ("quantized_decomposed.", "getitem"))

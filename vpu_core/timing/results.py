"""What the timing model reports: small frozen dataclasses of plain numbers (no torch)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from vpu_core.hardware.timing import TimingAssumptions


@dataclass(frozen=True)
class SubgraphTiming:
    """One VPU subgraph: its estimated VPU time and transfers against the same nodes measured on
    this CPU."""

    subgraph: int
    ops: int                       # compute ops in it
    macs: int
    transfers: int                 # boundary tensors moved (in + out, each counted once)
    transfer_bytes: int
    launch_us: float               # estimate (profile)
    compute_us: float              # estimate: macs / vpu_macs_per_s
    transfer_us: float             # estimate: per tensor latency + bytes / link_bytes_per_s
    cpu_us: float                  # measured: its nodes' times on this CPU (delegate overhead shares in)
    measured_ops: int = 0          # of its compute ops, how many the runtime timed (the rest: fused
                                   # into a neighbour or removed while lowering)
    first_op: str = ""

    @property
    def vpu_us(self) -> float:
        return self.launch_us + self.compute_us

    @property
    def total_us(self) -> float:
        """What offloading it costs: VPU time plus its transfers."""
        return self.vpu_us + self.transfer_us

    @property
    def saves_us(self) -> float:
        """Positive: offloading saves that much against the CPU; negative: it costs that much."""
        return self.cpu_us - self.total_us

    @property
    def pays(self) -> bool:
        return self.saves_us >= 0


@dataclass(frozen=True)
class SplitTiming:
    """The VPU + CPU split estimated end to end, next to everything on the CPU, measured."""

    assumptions: TimingAssumptions
    subgraphs: tuple[SubgraphTiming, ...]
    cpu_fallback_us: float         # measured: the nodes the partition leaves on the CPU
    cpu_fallback_ops: int
    all_cpu_ops_us: float          # measured: every node of the program (ETDump, per op)
    all_cpu_latency_us: float      # measured: wall-clock median of the whole program
    profile: str = ""
    runtime: str = ""              # "executorch 1.5.1, XNNPACK, 2 threads, 20 runs"

    @property
    def split_us(self) -> float:
        """VPU subgraphs (estimated, with their transfers) + the CPU fallback (measured)."""
        return sum(s.total_us for s in self.subgraphs) + self.cpu_fallback_us

    @property
    def not_paying(self) -> tuple[SubgraphTiming, ...]:
        return tuple(s for s in self.subgraphs if not s.pays)


@dataclass(frozen=True)
class SubgraphEstimate:
    """One VPU subgraph as the profile's [timing] model sees it (no measurement involved)."""

    subgraph: int
    macs: int
    transfers: int                 # boundary tensors moved (in + out, each counted once)
    transfer_bytes: int
    launch_us: float
    compute_us: float              # macs / vpu_macs_per_s
    transfer_us: float             # per tensor latency + bytes / link_bytes_per_s

    @property
    def total_us(self) -> float:
        return self.launch_us + self.compute_us + self.transfer_us


@dataclass(frozen=True)
class VpuEstimate:
    """The VPU target's estimate (vpu_core.targets.protocol.Estimate): every subgraph's launch,
    MACs and transfers under the profile's [timing] assumptions."""

    assumptions: TimingAssumptions
    profile: str
    subgraphs: tuple[SubgraphEstimate, ...]
    node_us: tuple[tuple[str, float], ...] = ()   # (op, its MACs / vpu_macs_per_s) for ops with MACs

    @property
    def unit(self) -> Literal["us"]:
        return "us"

    @property
    def total(self) -> float:
        return sum(s.total_us for s in self.subgraphs)

    @property
    def label(self) -> str:
        return f"[timing] of profile {self.profile} (estimate)"

    def per_node(self) -> dict[str, float]:
        """Each op's compute time; launches and transfers belong to the subgraph, not to one op."""
        return dict(self.node_us)

"""What a target returns: its judgement (TargetResult), a run of its program here (RuntimeReport)
and what it exported (Exported).

Small frozen dataclasses of plain numbers (no torch): the text / JSON / HTML reports and the window
read them (formatting: vpu_core.reports.runtime and vpu_core.formatting), the cache keeps TargetResult.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from vpu_core.analysis.results import PartitionReport
    from vpu_core.targets.protocol import Estimate


@dataclass(frozen=True)
class Exported:
    """What Target.export wrote (`vpu-inspector export`)."""

    path: str
    kind: str                 # "pte" (an ExecuTorch program) | "handoff" (the VPU's folder) | a target's own
    bytes: int
    detail: str               # one line for the terminal


@dataclass(frozen=True)
class TargetResult:
    """One target's judgement of one configuration's converted graph."""

    target: str                        # TargetInfo.name ("vpu", "xnnpack", …)
    title: str                         # TargetInfo.title, so a report needs no registry to name it
    verdict: PartitionReport           # every node on the accelerator (subgraph id) or the CPU (cause, reason)
    estimate: Estimate | None = None   # the target's own dataclass behind protocol.Estimate, or None
    seconds: float = 0.0               # judging it: verdict and estimate
    # judging it by stage ("to_edge", "tosa", "vela", "verdict", "estimate": what ran to make it)
    timings_s: dict[str, float] = field(default_factory=dict, compare=False)
    cached: bool = field(default=False, compare=False)   # read from the cache for this run, not judged now


@dataclass(frozen=True)
class Latency:
    """Wall-clock time of one `forward` of the program (ExecuTorch's Python runtime, no profiling
    attached), over `runs` timed runs after `warmup` untimed ones."""

    median_ms: float
    p10_ms: float
    p90_ms: float
    runs: int
    warmup: int
    min_ms: float = 0.0
    max_ms: float = 0.0


@dataclass(frozen=True)
class OpTime:
    """Measured time of one node of the converted Q/DQ graph (summed over the runtime events
    mapped to it), averaged over the profiled runs."""

    node: str                          # node name in the converted graph (Analysis.nodes)
    us: float                          # microseconds per inference
    kernels: tuple[str, ...]           # runtime events mapped to it ("Convolution (NHWC, QC8) IGEMM #1",
                                       # "native_call_native_layer_norm.out")
    delegate: int | None = None        # index of the XNNPACK delegate that ran it; None: a portable kernel
    overhead_us: float = 0.0           # its even share of its delegate's time no operator event covers
                                       # (XNNPACK logs whole µs: sub-µs operators log 0; the call's
                                       # hand-over and setup are nobody's)

    @property
    def total_us(self) -> float:
        """What running this node on the CPU costs, its delegate's overhead share included."""
        return self.us + self.overhead_us


@dataclass(frozen=True)
class DelegateTime:
    """One XNNPACK delegate call: its whole time, and how much of it its operators account for."""

    delegate: int                      # index in program order (0, 1, …)
    instruction: int                   # the program instruction that calls it
    us: float                          # the DELEGATE_CALL event
    ops_us: float                      # sum of the XNNPACK operator events inside it
    ops: int                           # operator events (profiled XNNPACK operators)
    nodes: tuple[str, ...] = ()        # converted-graph nodes its operators were mapped to

    @property
    def overhead_us(self) -> float:
        """Time inside the delegate call that no operator event covers (tensor hand-over, setup)."""
        return max(0.0, self.us - self.ops_us)


@dataclass(frozen=True)
class OutputDigest:
    """One output tensor of the program, summarised so another process can check it bit for bit."""

    shape: tuple[int, ...]
    dtype: str
    sha256: str                        # of the tensor's contiguous bytes
    sum: float
    abs_max: float


# What a target lowered and ran: the converted graph as it is, with its int32 biases folded to
# float (VPU graphs on XNNPACK, see targets.xnnpack.lowering), its TOSA partitions run in the
# reference model (an Arm TOSA target), or an Ethos-U program's portable kernels (its CPU side,
# targets.arm.cpu_cost). The JSON's runtime "graph".
GraphKind = Literal["qdq", "qdq, int32 bias folded", "qdq, TOSA partitions in the reference model",
                    "portable kernels (the CPU side of the Ethos-U program, measured on this CPU)"]


@dataclass(frozen=True)
class RuntimeReport:
    """A target's lowered program run here (Target.run; XNNPACK's on this CPU), or why it could not
    run (`refused`)."""

    backend: str                       # the target's name: "xnnpack"
    runtime: str = ""                  # "executorch 1.5.1"
    threads: int = 0                   # XNNPACK threadpool size
    graph_kind: GraphKind = "qdq"      # what was lowered
    latency: Latency | None = None
    sqnr_vs_float_db: float | None = None
    sqnr_vs_float_reason: str = ""     # why it is None
    sqnr_vs_qdq_db: float | None = None
    sqnr_vs_qdq_reason: str = ""
    outputs_identical: bool = False    # the program's outputs equal the Q/DQ graph's bit for bit
    ops: tuple[OpTime, ...] = ()       # graph order
    delegates: tuple[DelegateTime, ...] = ()
    outputs: tuple[OutputDigest, ...] = ()
    profiled_runs: int = 0             # runs averaged into `ops` (the ETDump pass)
    program_bytes: int = 0
    portable_ops: tuple[str, ...] = ()  # kernels run outside XNNPACK ("aten::native_layer_norm.out")
    folded_biases: int = 0
    lowering_s: float = 0.0            # 0.0 when the lowered program came from the cache
    seconds: float = 0.0               # the measurement (load, runs, ETDump, SQNR)
    refused: str | None = None         # one sentence: why the program could not be lowered / run
    refused_op: str | None = None      # the operator named in it
    refused_node: str | None = None
    max_lsb_diff: int | None = None    # the accelerator partitions' integer outputs against the Q/DQ
                                       # graph's, each partition fed the Q/DQ graph's own inputs: the
                                       # largest difference in LSBs (None: not measured; tosa-int)
    differing_share: float | None = None   # the share of those output elements that differ at all

    def op_us(self) -> dict[str, float]:
        """node name -> measured microseconds, its share of delegate overhead included."""
        return {o.node: o.total_us for o in self.ops}

    def slowest(self, n: int = 3) -> tuple[OpTime, ...]:
        """The `n` nodes that cost the most (delegate overhead shares included)."""
        return tuple(sorted(self.ops, key=lambda o: -o.total_us)[:n])

    @property
    def ops_us(self) -> float:
        return sum(o.us for o in self.ops)

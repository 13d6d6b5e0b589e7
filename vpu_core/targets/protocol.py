"""What a target implements, and what the session hands it: the Target and TargetJob protocols.

A target judges a quantized graph. The session gives it a `TargetJob` (one configuration: its
quantized model, its analysis, a run context and this session's caches) and asks for:

- `verdict(job)`: a PartitionReport (vpu_core.analysis.results) keyed by the node names of OUR
  converted graph (`job.quantized().converted`): `assignment` maps every node to a subgraph id
  (an int: one accelerator partition / delegate) or "cpu"; `subgraphs` lists the members of each
  id; every op left on the CPU is a CpuNode with its `cause` (a CpuCause of
  vpu_core.analysis.results: the VPU's, XNNPACK's, or the target's own subset, documented with it) and its `reason`,
  one sentence a user reads ("Vela: … not supported"); `boundaries` are the edges between the
  sides with the bytes they move (vpu_core.analysis.partition.boundaries computes them from an
  assignment, as every target should). `source` is the target's name (the VPU's is "simulated").
  A graph the target cannot take at all raises an InspectorError with one sentence.
- `estimate(job, verdict)`: what its part costs, or None when it has no cost model: a frozen
  dataclass of its own (the VPU's [timing] model, Vela's cycles) behind the small `Estimate`
  face below, so reports show any target's total and per-node figures the same way.
- `run(job, runs, warmup)`: the lowered program run here, as a RuntimeReport
  (vpu_core.targets.results); a target that cannot run on this machine returns one with
  `refused` set to the sentence that says why (data, never an exception).
- `export(job, output)`: the target's artefact for a deployment team (vpu_core.targets.results.Exported).

`TargetBase` gives the optional ones their "not available" answers, so the smallest target is a
TargetInfo and a `verdict`. A long library call (a lowering, a compiler) goes through
`job.ctx.call(fn, ...)` (between two cancel checks; the window stops its worker process
outright); `job.ctx.report(stage, fraction)` drives the progress bar (and raises Cancelled).
Results are cached by the session (memory and disk, under the analysis key and the target's
name): a verdict and estimate must be made of frozen dataclasses of plain values from torch-free
modules listed in TargetInfo.result_modules, so a warm start reads them without torch.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Literal, Protocol, TypeVar

from vpu_core.errors import InspectorError

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis, PartitionReport
    from vpu_core.cache.disk import DiskCache
    from vpu_core.cache.keys import StageKeys
    from vpu_core.cache.stage_store import MemoryCache
    from vpu_core.config import RunConfig
    from vpu_core.targets.results import Exported
    from vpu_core.pipeline import QuantizedModel
    from vpu_core.progress import RunContext
    from vpu_core.targets.results import RuntimeReport
    from vpu_core.targets.registry import TargetInfo

T = TypeVar("T")
EstimateUnit = Literal["us", "cycles"]


class Estimate(Protocol):
    """The common face of a target's cost estimate (each target's own frozen dataclass has it)."""

    @property
    def unit(self) -> EstimateUnit: ...

    @property
    def total(self) -> float:
        """The whole accelerator side, in `unit`."""
        ...

    @property
    def label(self) -> str:
        """What the figures are and who made them: "[timing] of profile vpu-default (estimate)",
        "Vela 5.1.0 estimate"."""
        ...

    def per_node(self) -> dict[str, float]:
        """Node name (of the converted graph) -> its share of `total`, in `unit`."""
        ...


class TargetJob(Protocol):
    """One configuration as the session offers it to a target (core-internal: torch objects).

    `quantized()` and `analysis()` are run or remembered on first call, so a target that finds
    what it needs in its own cache never quantizes. `remembered(what, make)` keeps `make()` in the
    session's memory for this program and target (e.g. a lowering that verdict, estimate and run
    share); `taken(what)` removes and returns it (a lowering that emitting changes); `timed(stage,
seconds)` notes a stage that ran for it. `keys`,
    `memory` and `disk` are for a target that keeps entries of its own (XNNPACK keeps its emitted
    program: vpu_core.targets.xnnpack.store)."""

    @property
    def config(self) -> RunConfig: ...

    @property
    def ctx(self) -> RunContext: ...

    @property
    def keys(self) -> StageKeys | None: ...

    @property
    def memory(self) -> MemoryCache: ...

    @property
    def disk(self) -> DiskCache | None: ...

    def quantized(self) -> QuantizedModel: ...

    def analysis(self) -> Analysis: ...

    def remembered(self, what: str, make: Callable[[], T]) -> T: ...

    def taken(self, what: str) -> Any: ...

    def remembered_by(self, target: str, what: str) -> Any:
        """What `target` remembered as `what` for this program (None: nothing): a target that can
        build on a sibling's work (an Ethos-U configuration on another's TOSA lowering)."""
        ...

    def timed(self, stage: str, seconds: float) -> None:
        """Note that `stage` of the target ran now and took `seconds` (a lowering's "to_edge",
        "tosa", "vela"): TargetResult.timings_s, the Timings line. A stage remembered from an
        earlier call is not noted again."""
        ...


class Target(Protocol):
    """A backend that judges a quantized graph (see the module docstring)."""

    info: TargetInfo

    def verdict(self, job: TargetJob) -> PartitionReport: ...

    def estimate(self, job: TargetJob, verdict: PartitionReport) -> Estimate | None: ...

    def run(self, job: TargetJob, runs: int, warmup: int) -> RuntimeReport: ...

    def export(self, job: TargetJob, output: Path) -> Exported: ...


class TargetBase:
    """Defaults for the optional parts of a Target: no estimate, does not run here, no export.
    A subclass sets `info` and implements `verdict`; `cannot_run` is the sentence `run` returns."""

    info: TargetInfo
    cannot_run = ""

    def verdict(self, job: TargetJob) -> PartitionReport:
        raise NotImplementedError

    def estimate(self, job: TargetJob, verdict: PartitionReport) -> Estimate | None:
        return None

    def run(self, job: TargetJob, runs: int, warmup: int) -> RuntimeReport:
        from vpu_core.targets.results import RuntimeReport

        return RuntimeReport(self.info.name, refused=self.cannot_run or
                             f"The {self.info.title} target does not run programs on this machine.")

    def export(self, job: TargetJob, output: Path) -> Exported:
        raise InspectorError(f"The {self.info.title} target has nothing to export.")

"""The XNNPACK target's run on ExecuTorch: lower once (cached), measure on every request.

    report = runtime_report(job, runs=20)     # XnnpackTarget.run (Session.runtime) calls this

The delegation overlay (`--xnnpack-delegation`, Ctrl+D) lowers through the same function
(lowering.lower_edge) and leaves that lowering in the job's memory (XnnpackTarget.verdict)
for the run that follows: one lowering for both.

Lowering changes process-wide state (torch.export, ExecuTorch's passes): the window runs it in
its worker process (vpu_core.worker), one job at a time, so it never overlaps another stage and
the measurement's timings are not shared with a quantization.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.config import RunConfig
    from vpu_core.targets.xnnpack.lowering import LoweredProgram, RuntimeRefusal
    from vpu_core.targets.results import RuntimeReport
    from vpu_core.targets.protocol import TargetJob
    from vpu_core.timing.results import SplitTiming
    from vpu_core.whatif.results import Economics

DEFAULT_RUNS = 20
DEFAULT_WARMUP = 3
EDGE = "edge"         # the lowering the delegation overlay made (XnnpackTarget.verdict), until emitted


def lowered_program(job: TargetJob) -> LoweredProgram | RuntimeRefusal:
    """The LoweredProgram of the job's configuration (or the RuntimeRefusal remembered for it),
    lowering it when neither memory nor disk has it."""
    from vpu_core.targets.xnnpack.lowering import RuntimeRefusal, lower_program
    from vpu_core.targets.xnnpack.store import ProgramStore

    store = ProgramStore(job.keys, job.memory, job.disk)
    hit = store.get()
    if hit is not None:
        return hit
    qm = job.quantized()
    job.ctx.report("lower", 0.0)
    edge = job.taken(EDGE)          # emitting changes the lowering: the overlay's is taken
    value: LoweredProgram | RuntimeRefusal
    try:
        value = job.ctx.call(lower_program, qm, job.ctx, edge)
    except RuntimeRefusal as refusal:
        value = refusal
    store.put(value)
    return value


def runtime_report(job: TargetJob, runs: int = DEFAULT_RUNS, warmup: int = DEFAULT_WARMUP) -> RuntimeReport:
    """Lower (or reuse) and run the job's converted graph; a refusal is returned, not raised."""
    from vpu_core.targets.xnnpack.lowering import BACKEND, RuntimeRefusal
    from vpu_core.targets.xnnpack.measure import run_program
    from vpu_core.targets.results import RuntimeReport

    lowered = lowered_program(job)
    if isinstance(lowered, RuntimeRefusal):
        return _refused(lowered)
    job.ctx.report("run", 0.0)
    try:
        report = job.ctx.call(run_program, lowered, runs, warmup, job.ctx)
    except RuntimeRefusal as refusal:
        return _refused(refusal)
    job.ctx.report("run", 1.0)
    assert isinstance(report, RuntimeReport) and report.backend == BACKEND
    return report


def timing_of(analysis: Analysis, economics: Economics | None, config: RunConfig,
              report: RuntimeReport) -> SplitTiming | None:
    """The timing model of the analysis' partition (vpu_core.timing) with the profile's [timing]
    assumptions, the what-if's MACs per subgraph and the run's measured CPU times."""
    from vpu_core.profile import load_profile
    from vpu_core.timing import split_timing

    profile = load_profile(config.profile)
    return split_timing(analysis, report, profile.timing, profile.name,
                        economics.subgraphs if economics is not None else ())


def _refused(refusal: RuntimeRefusal) -> RuntimeReport:
    from vpu_core.targets.xnnpack.lowering import BACKEND
    from vpu_core.targets.results import RuntimeReport

    return RuntimeReport(BACKEND, refused=refusal.message, refused_op=refusal.op, refused_node=refusal.node)


def program_bytes(job: TargetJob) -> LoweredProgram:
    """The lowered program of the job's configuration for `export`; a refusal is raised."""
    from vpu_core.targets.xnnpack.lowering import RuntimeRefusal

    lowered = lowered_program(job)
    if isinstance(lowered, RuntimeRefusal):
        raise lowered
    return lowered

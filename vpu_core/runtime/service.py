"""The session's side of a run on ExecuTorch: lower once (cached), measure on every request.

    report = runtime_report(session, config, runs=20)     # Session.runtime calls this

The delegation overlay (`--xnnpack-delegation`, Ctrl+D) lowers through the same function
(runtime.lowering.lower_edge); `overlay_lowering` keeps that lowering for the run that follows.

Lowering changes process-wide state (torch.export, ExecuTorch's passes): like the XNNPACK
delegation overlay it runs on the session's one stage thread (RunContext.call, i.e.
vpu_core.progress.call_cancellable), so it never overlaps another stage and a cancel returns
within 0.1 s. The measurement runs there too: the timings are not shared with a quantization.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from vpu_core.progress import NO_CONTEXT, RunContext

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.session import Session
    from vpu_core.cache.keys import StageKeys
    from vpu_core.config import RunConfig
    from vpu_core.pipeline import QuantizedModel
    from vpu_core.runtime.lowering import EdgeLowering, LoweredProgram, RuntimeRefusal
    from vpu_core.runtime.results import RuntimeReport

DEFAULT_RUNS = 20
DEFAULT_WARMUP = 3
EDGE = "edge"         # memory stage: a lowering the delegation overlay made, until the runtime emits it


def overlay_lowering(session: Session, keys: StageKeys | None) -> Callable[[QuantizedModel], EdgeLowering]:
    """The delegation overlay's lowering (lower_edge), kept in memory so that a run of the same
    program in this session emits it instead of lowering again: one lowering for both."""
    from vpu_core.runtime.lowering import lower_edge
    from vpu_core.runtime.store import program_key

    def lower(qm: QuantizedModel) -> EdgeLowering:
        edge = lower_edge(qm)
        key = program_key(keys)
        if key is not None:
            session.memory.put(EDGE, key, edge)
        return edge

    return lower


def lowered_program(session: Session, config: RunConfig, ctx: RunContext = NO_CONTEXT,
                    keys: StageKeys | None = None) -> LoweredProgram | RuntimeRefusal:
    """The LoweredProgram of `config` (or the RuntimeRefusal remembered for it), lowering it
    when neither memory nor disk has it."""
    from vpu_core.runtime.lowering import RuntimeRefusal, lower_program
    from vpu_core.runtime.store import ProgramStore

    keys = keys if keys is not None else session.keys(config)
    store = ProgramStore(keys, session.memory, session.disk())
    hit = store.get()
    if hit is not None:
        return hit
    qm = session.quantized(config, ctx, keys)
    ctx.report("lower", 0.0)
    edge = _take_edge(session, keys)
    value: LoweredProgram | RuntimeRefusal
    try:
        value = ctx.call(lower_program, qm, ctx, edge)
    except RuntimeRefusal as refusal:
        value = refusal
    store.put(value)
    return value


def _take_edge(session: Session, keys: StageKeys | None) -> EdgeLowering | None:
    """The overlay's lowering of this program, if it made one (taken: emitting changes it)."""
    from vpu_core.runtime.store import program_key

    key = program_key(keys)
    edge = session.memory.get(EDGE, key) if key is not None else None
    if edge is not None:
        session.memory.drop(EDGE, key)
    return edge


def runtime_report(session: Session, config: RunConfig, runs: int = DEFAULT_RUNS, warmup: int = DEFAULT_WARMUP,
                   ctx: RunContext = NO_CONTEXT, keys: StageKeys | None = None) -> RuntimeReport:
    """Lower (or reuse) and run `config`'s converted graph; a refusal is returned, not raised."""
    from vpu_core.runtime.lowering import BACKEND, RuntimeRefusal
    from vpu_core.runtime.measure import run_program
    from vpu_core.runtime.results import RuntimeReport

    lowered = lowered_program(session, config, ctx, keys)
    if isinstance(lowered, RuntimeRefusal):
        return _refused(lowered)
    ctx.report("run", 0.0)
    try:
        report = ctx.call(run_program, lowered, runs, warmup, ctx)
    except RuntimeRefusal as refusal:
        return _refused(refusal)
    ctx.report("run", 1.0)
    assert isinstance(report, RuntimeReport) and report.backend == BACKEND
    return report


def with_runtime(analysis: Analysis, config: RunConfig, report: RuntimeReport) -> Analysis:
    """`analysis` with the run attached, and the timing model of its partition (vpu_core.timing)
    with the profile's [timing] assumptions and the run's measured CPU times."""
    import dataclasses

    from vpu_core.profile import load_profile
    from vpu_core.timing import split_timing

    profile = load_profile(config.profile)
    return dataclasses.replace(analysis, runtime=report,
                               timing=split_timing(analysis, report, profile.timing, profile.name))


def _refused(refusal: RuntimeRefusal) -> RuntimeReport:
    from vpu_core.runtime.lowering import BACKEND
    from vpu_core.runtime.results import RuntimeReport

    return RuntimeReport(BACKEND, refused=refusal.message, refused_op=refusal.op, refused_node=refusal.node)


def program_bytes(session: Session, config: RunConfig, ctx: RunContext = NO_CONTEXT) -> LoweredProgram:
    """The lowered program of `config` for `export`; a refusal is raised (nothing else to show)."""
    from vpu_core.runtime.lowering import RuntimeRefusal

    lowered = lowered_program(session, config, ctx)
    if isinstance(lowered, RuntimeRefusal):
        raise lowered
    return lowered

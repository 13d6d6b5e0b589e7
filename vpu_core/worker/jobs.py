"""The job kinds: one function each, run with a session — the worker's, or the window's lookup-only one.

A job kind is a module-level function `kind(session, out, **params) -> result` that asks the
session for what it needs and returns a frozen result (it travels back pickled, so: plain frozen
dataclasses of numbers). `out.ctx` takes its progress, `out.preview` (when not None) a first
Inspection shown before the result. Everything goes through the session: the window first calls
the same function with a session that never computes (Session(computes=False)), which answers from
memory and the disk cache or raises NotCached — then, and only then, the job runs in the worker.

Adding a job kind (e.g. a sensitivity analysis) is one function here and, in the window,
`Job(config, call(jobs.KIND, **params))` (app.jobs.worker).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from vpu_core.config import RunConfig, ViewOptions
from vpu_core.progress import NO_CONTEXT, RunContext
from vpu_core.stages import STAGE_SPANS

if TYPE_CHECKING:
    from vpu_core.preview import PreviewFn
    from vpu_core.sensitivity.options import SensitivityOptions
    from vpu_core.sensitivity.results import SensitivityReport
    from vpu_core.session import Inspection, InspectionPair, Session
    from vpu_core.whatif.results import AblationReport


@dataclass(frozen=True)
class JobOutput:
    """Where a job kind reports: progress (and no cancel: a worker is stopped by killing it)."""

    ctx: RunContext = NO_CONTEXT
    preview: PreviewFn | None = None


@dataclass(frozen=True)
class JobCall:
    """One job: a kind and its parameters, which must be hashable (the window remembers results by
    them) and picklable (the worker receives them): RunConfig, ViewOptions, numbers, strings."""

    kind: Callable[..., Any]
    params: tuple[tuple[str, Any], ...]

    def run(self, session: Session, out: JobOutput = JobOutput()) -> Any:
        return self.kind(session, out, **dict(self.params))

    def param(self, name: str, default: Any = None) -> Any:
        return dict(self.params).get(name, default)


def call(kind: Callable[..., Any], **params: Any) -> JobCall:
    return JobCall(kind, tuple(sorted(params.items())))


def inspect(session: Session, out: JobOutput, *, config: RunConfig, view: ViewOptions | None,
            fresh: bool = False, int_sim: bool = False, whatif: bool = False,
            runtime_runs: int | None = None) -> Inspection:
    """One configuration (Session.inspect), its predicted partition previewed while it quantizes."""
    _keep_profiles(session, config)
    return session.inspect(config, view, fresh=fresh, int_sim=int_sim, whatif=whatif,
                           runtime_runs=runtime_runs, ctx=out.ctx.scaled(STAGE_SPANS), preview=out.preview)


def compare(session: Session, out: JobOutput, *, a: RunConfig, b: RunConfig, view: ViewOptions,
            int_sim: bool = False, whatif: bool = False, view_b: ViewOptions | None = None) -> InspectionPair:
    """Compare mode: both configurations and their comparison (Session.compare); `view_b`: B
    coloured by another target than A."""
    _keep_profiles(session, a, b)
    return session.compare(a, b, view, int_sim=int_sim, whatif=whatif, ctx=out.ctx, view_b=view_b)


def _keep_profiles(session: Session, *configs: RunConfig) -> None:
    """The profiles of a result on screen (and the shipped one), validated for the window's
    What-if dock, which reads them back without importing torch (vpu_core.cache.profile_store);
    first, as the dock reads them when the predicted graph arrives (the pipeline validates the
    run's profile first thing anyway)."""
    if session.computes:
        from vpu_core.cache.profile_store import keep_validated

        keep_validated((None, *(c.profile for c in configs)), session.disk())


def ablate(session: Session, out: JobOutput, *, config: RunConfig) -> AblationReport:
    """The constraint ablation of one configuration (Session.ablate). The baseline stages only run
    when the session no longer has the configuration: they count as the start of the bar."""
    return session.ablate(config, ctx=out.ctx.scaled({"ablate": (0.0, 1.0)}, default=(0.0, 0.0)))


def sensitivity(session: Session, out: JobOutput, *, config: RunConfig,
                options: SensitivityOptions) -> SensitivityReport:
    """Sensitivity per layer and the predicted fixes (Session.sensitivity); the baseline stages,
    when the session no longer has them, count as the start of the bar."""
    return session.sensitivity(config, options, out.ctx.scaled({"sensitivity": (0.0, 1.0)}, default=(0.0, 0.0)))


def metric(session: Session, out: JobOutput, *, config: RunConfig, spec: str) -> float:
    """The user's --eval function on the quantized model of `config` (Session.metric_of)."""
    return session.metric_of(config, spec, out.ctx)

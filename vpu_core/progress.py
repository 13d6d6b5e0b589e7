"""Progress you can trust: the run context, cancellable stages, time-left estimates, the terminal line.

Run context. `RunContext` is what a run is given to report to and to learn it was cancelled
(progress callback + cancel event) — one object passed down through the session, the pipeline,
the analysis and the what-if runs instead of a (progress, cancel) pair. `ctx.scaled(spans, lo, hi)`
is the one place where progress is rescaled: a stage's own 0..1 placed on its share of one bar
(a whole inspection, one side of a comparison, one constraint of an ablation).

Cancellation. Stages that are Python loops (calibration per batch, convert per observer, the
observer searches) check the cancel flag at every step; a stage that is one long library call
(torch.export, prepare_pt2e, ExecuTorch's lowering, the SQNR forward passes) is checked before and
after (`ctx.call`). That is the in-process API's cancel (a caller of the session with its own
event). The window does not wait for a check: its runs are in a worker process, and Cancel kills
that process (vpu_core.worker).

Estimates. `Eta` turns the (stage, fraction) stream into seconds left for the current stage,
extrapolating its own rate (calibration batches and convert observers are of similar cost).

Terminal. `TerminalProgress` prints one refreshing status line to stderr — only when stderr is
a terminal, so `--format json` on stdout and redirected logs never see it.
"""
from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, TextIO, TypeVar

from vpu_core.errors import Cancelled
from vpu_core.stages import STAGE_SPANS, Span, Stage

ProgressFn = Callable[[Stage, float], None]
T = TypeVar("T")


def call_cancellable(fn: Callable[..., T], *args: Any, cancel: threading.Event | None = None) -> T:
    """fn(*args), not started once `cancel` is set and its result dropped if it was set meanwhile."""
    if cancel is not None and cancel.is_set():
        raise Cancelled()
    result = fn(*args)
    if cancel is not None and cancel.is_set():
        raise Cancelled()
    return result


def span_fraction(spans: Mapping[Stage, Span], stage: Stage, fraction: float,
                  default: Span = (0.0, 1.0)) -> float:
    """Where `stage`'s own 0..1 `fraction` sits on a bar shared out by `spans` (stage -> (lo, hi))."""
    lo, hi = spans.get(stage, default)
    return lo + (hi - lo) * max(0.0, min(1.0, fraction))


@dataclass(frozen=True)
class RunContext:
    """Where a run reports progress and learns it was cancelled.

        ctx = RunContext(progress=fn, cancel=event)
        ctx.report("calibrate", 0.5)         # fn("calibrate", 0.5); raises Cancelled once `cancel` is set
        ctx.call(export_program, module)     # a long library call, between two cancel checks
        ctx.scaled(STAGE_SPANS, 0.5, 1.0)    # a part of the run: its stages on the second half of the bar

    A RunContext is also a progress callback: `ctx(stage, fraction)` is `ctx.report(...)`, so it
    can be handed to code that takes a plain `(stage, fraction)` function.
    """

    progress: ProgressFn | None = None
    cancel: threading.Event | None = None

    @property
    def cancelled(self) -> bool:
        return self.cancel is not None and self.cancel.is_set()

    def check(self) -> None:
        """Raise Cancelled when the run was cancelled."""
        if self.cancelled:
            raise Cancelled()

    def report(self, stage: Stage, fraction: float) -> None:
        self.check()
        if self.progress is not None:
            self.progress(stage, fraction)

    def __call__(self, stage: Stage, fraction: float) -> None:
        self.report(stage, fraction)

    def call(self, fn: Callable[..., T], *args: Any) -> T:
        """fn(*args) between two cancel checks (see call_cancellable)."""
        return call_cancellable(fn, *args, cancel=self.cancel)

    def scaled(self, spans: Mapping[Stage, Span], lo: float = 0.0, hi: float = 1.0,
               stage: Stage | None = None, default: Span = (0.0, 1.0)) -> RunContext:
        """The context of a part of this run: each stage's own 0..1 is placed on its span in `spans`
        (a stage not listed on `default`), that on [lo, hi] of this context's bar, and reported
        under `stage` when given (else under the stage's own name). Same cancel event."""
        parent = self.progress
        if parent is None:
            return self

        def report(name: Stage, fraction: float) -> None:
            parent(stage or name, lo + (hi - lo) * span_fraction(spans, name, fraction, default))
        return RunContext(report, self.cancel)


NO_CONTEXT = RunContext()


def overall_fraction(stage: Stage, fraction: float) -> float:
    """Where a stage's own 0..1 progress sits on one bar for the whole inspection."""
    return span_fraction(STAGE_SPANS, stage, fraction)


def recording(ctx: RunContext) -> tuple[RunContext, dict[Stage, None]]:
    """`ctx`, also noting the name of every stage that reports (every stage that runs does)."""
    ran: dict[Stage, None] = {}
    parent = ctx.progress

    def report(stage: Stage, fraction: float) -> None:
        ran.setdefault(stage)
        if parent is not None:
            parent(stage, fraction)
    return RunContext(report, ctx.cancel), ran


def context_of(progress: ProgressFn | None, cancel: threading.Event | None,
               ctx: RunContext | None) -> RunContext:
    """The run context of a public call that takes either `ctx` or a (progress, cancel) pair."""
    if ctx is None:
        return RunContext(progress, cancel)
    if progress is not None or cancel is not None:
        raise ValueError("pass either ctx or progress / cancel, not both")
    return ctx


class Eta:
    """Seconds left in the current stage, from how fast its fraction has grown so far."""

    MIN_ELAPSED_S = 1.0

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.stage: Stage | None = None
        self.started = 0.0

    def update(self, stage: Stage, fraction: float) -> float | None:
        now = self.clock()
        if stage != self.stage:
            self.stage, self.started = stage, now
        elapsed = now - self.started
        if fraction <= 0.0 or fraction >= 1.0 or elapsed < self.MIN_ELAPSED_S:
            return None
        return elapsed * (1.0 - fraction) / fraction


def format_seconds(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


class TerminalProgress:
    """A progress callback that keeps one status line on stderr up to date (terminals only)."""

    def __init__(self, titles: Mapping[Stage, str], stream: TextIO | None = None, min_interval_s: float = 0.2) -> None:
        self.titles = titles
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.eta = Eta()
        self.min_interval_s = min_interval_s
        self._last: tuple[Stage | None, float] = (None, 0.0)
        self._width = 0

    def __call__(self, stage: Stage, fraction: float) -> None:
        if not self.enabled:
            return
        left = self.eta.update(stage, fraction)
        now = time.monotonic()
        if stage == self._last[0] and 0.0 < fraction < 1.0 and now - self._last[1] < self.min_interval_s:
            return
        self._last = (stage, now)
        text = f"{self.titles.get(stage, stage)} {100 * fraction:3.0f} %"
        if left is not None:
            text += f" · about {format_seconds(left)} left"
        self.stream.write("\r" + text.ljust(self._width))
        self._width = len(text)
        self.stream.flush()

    def close(self) -> None:
        """Clear the status line (before the report is printed)."""
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0

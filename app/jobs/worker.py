"""Jobs of the window: answered from what the window already has, else run in the worker process.

A job is one or more steps (vpu_core.worker.jobs.JobCall: a job kind and its parameters). Each
step is answered, in order of cost:
1. from what came back from the worker before (the same step: the same frozen result),
2. by the window's own session, which reads memory and the disk cache and never computes
   (Session(computes=False): torch is never imported here; a warm start is drawn from the cache),
3. by the worker process (vpu_core.worker.host): model code never runs in the window's process.
A step the worker answered is followed by the next one in the worker at once (it holds what it
just computed). Each step is the result of the one before with more attached (the integer
simulation, the what-if), so a result also answers the steps before it. Every step but the last
is announced on `shown`: the quantized result is drawn while its optional stages still run.

Jobs run one at a time on one window thread (they wait for nothing in torch: their work is in
the worker). Cancel kills the worker at once if the job is running there; the next job gets a
fresh one. The signals are emitted from the job thread; Qt queues them onto the GUI thread.
"""
from __future__ import annotations

import collections
import dataclasses
import threading
import traceback
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.state.app_state import DEFAULT_TIME_LIMIT_S
from vpu_core.config import RunConfig, ViewOptions
from vpu_core.errors import Cancelled, InspectorError, NotCached
from vpu_core.progress import RunContext
from vpu_core.serial import SerialWorker
from vpu_core.session import Session
from vpu_core.worker import jobs
from vpu_core.worker.host import default_host
from vpu_core.worker.jobs import JobCall, JobOutput

REMEMBERED = 8                        # steps answered by the worker kept (two per inspection: one
                                      # result; a real-size model's is ~100 MB)

if TYPE_CHECKING:
    from vpu_core.session import Inspection, InspectionPair

_JOBS = SerialWorker("vpu-inspector-run")
_WINDOW_SESSION = Session(computes=False)
_remembered: collections.OrderedDict[JobCall, Any] = collections.OrderedDict()
_remembered_lock = threading.Lock()


def window_session() -> Session:
    """The window's session: memory and the disk cache, never a computation (redraws, lookups)."""
    return _WINDOW_SESSION


def remembered(step: JobCall) -> Any:
    """What the worker answered to `step` before (None: nothing kept)."""
    with _remembered_lock:
        value = _remembered.get(step)
        if value is not None:
            _remembered.move_to_end(step)
        return value


def _remember(step: JobCall, value: Any) -> None:
    with _remembered_lock:
        _remembered[step] = value
        while len(_remembered) > REMEMBERED:
            _remembered.popitem(last=False)


class Job(QObject):
    """Create, connect, `start()`; `cancel()` at any time. `config` is side A's RunConfig."""

    progress = Signal(str, float)      # stage name, overall fraction 0..1
    preview = Signal(object)           # Inspection of the predicted partition, before quantizing
    shown = Signal(object)             # the result of a step before the last (to draw at once)
    finished = Signal(object)          # the last step's result
    failed = Signal(object)            # InspectorError (message + detail)
    cancelled = Signal()

    def __init__(self, config: RunConfig, *steps: JobCall) -> None:
        super().__init__()
        self.config, self.steps = config, steps
        self.time_limit_s: float | None = DEFAULT_TIME_LIMIT_S
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._state = "new"             # new → queued → running → ended, or queued → ended on cancel
        self._in_worker = False         # a step of this job is running in the worker process
        self.answered_by: list[str] = []    # per step: "remembered", "window" or "worker"
        self._ended = threading.Event()

    def start(self) -> None:
        """Queue the job: it runs when the jobs before it have finished."""
        with self._lock:
            self._state = "queued"
        _JOBS.submit(self._run)

    def cancel(self) -> None:
        """Stop now: a step running in the worker is killed with it; a job still waiting for its
        turn ends (cancelled) at once."""
        self._cancel.set()
        with self._lock:
            dropped = self._state == "queued"
            if dropped:                 # the job thread will find it ended and skip it
                self._state = "ended"
            in_worker = self._in_worker
        if in_worker:
            default_host().interrupt()
        if dropped:
            self._ended.set()
            # through the event loop, as from the job thread: callers finish what they were
            # doing ("Cancelling…") before they hear the outcome
            QTimer.singleShot(0, self, self.cancelled.emit)

    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    def is_running(self) -> bool:
        """Started and not ended (running, or queued behind another job)."""
        return self._state in ("queued", "running")

    def wait(self, timeout: float | None = None) -> bool:
        return self._state == "new" or self._ended.wait(timeout)

    def _run(self) -> None:
        with self._lock:
            if self._state != "queued":
                return
            self._state = "running"
        try:
            kind, value = self._outcome()
            if kind == "cancelled":
                self.cancelled.emit()
            else:
                getattr(self, kind).emit(value)
        finally:
            with self._lock:
                self._state = "ended"
            self._ended.set()

    def _outcome(self) -> tuple[str, object]:
        """("finished", result), ("failed", InspectorError) or ("cancelled", None)."""
        try:
            value, look_up = None, True
            for i, step in enumerate(self.steps):
                if self._cancel.is_set():
                    raise Cancelled()
                later, look_up = self._answer(i, look_up)
                value = later if value is None else self.combined(value, later)
                if self.answered_by[-1] == "worker":
                    for earlier in self.steps[:i + 1]:     # what it answers (see the module doc)
                        _remember(earlier, value)
                if i < len(self.steps) - 1:
                    self.shown.emit(value)
            return "finished", value
        except Cancelled:
            return "cancelled", None
        except InspectorError as exc:
            return "failed", exc
        except Exception as exc:  # a bug: still a dialog, never a dead window
            return "failed", InspectorError(f"Unexpected error: {type(exc).__name__}: {exc}",
                                            traceback.format_exc())

    def _answer(self, i: int, look_up: bool) -> tuple[Any, bool]:
        """Step `i`'s result, and whether the next step may be looked up here before the worker."""
        step = self.steps[i]
        if look_up:
            known = None if step.param("fresh") else remembered(step)
            if known is not None:
                self.answered_by.append("remembered")
                return known, True
            try:
                value = step.run(_WINDOW_SESSION, JobOutput(RunContext(self.progress.emit)))
                self.answered_by.append("window")
                return value, True
            except NotCached:
                pass
        with self._lock:
            self._in_worker = True
        try:
            value = default_host().run(step, self.config.model, self._cancel, progress=self.progress.emit,
                                       preview=self._preview, time_limit_s=self.time_limit_s)
        finally:
            with self._lock:
                self._in_worker = False
        self.answered_by.append("worker")
        return value, False

    def combined(self, earlier: Any, later: Any) -> Any:
        """The result of a step after the step that gave `earlier` (a job kind whose results say
        what they computed merges that here)."""
        return later

    def _preview(self, inspection: object) -> None:
        if not self._cancel.is_set():  # a cancelled job shows nothing new
            self.preview.emit(inspection)


class InspectJob(Job):
    """One configuration: its quantized result first (`shown`), then with the integer simulation
    and the what-if (and, with `runtime_runs`, lowered to ExecuTorch XNNPACK and run that many
    times on this CPU). `fresh` re-reads the model, profile and calibration files (Run again)."""

    def __init__(self, config: RunConfig, view: ViewOptions, fresh: bool = False,
                 runtime_runs: int | None = None) -> None:
        super().__init__(config, jobs.call(jobs.inspect, config=config, view=view, fresh=fresh),
                         jobs.call(jobs.inspect, config=config, view=view, int_sim=True, whatif=True,
                                   runtime_runs=runtime_runs))
        self.view, self.fresh, self.runtime_runs = view, fresh, runtime_runs

    def combined(self, earlier: Inspection, later: Inspection) -> Inspection:
        return _with_stages_of(earlier, later)


class CompareJob(Job):
    """Compare mode: side A (`config`) and side B, then vpu_core.compare; then both with their
    integer simulation and what-if."""

    def __init__(self, config: RunConfig, config_b: RunConfig, view: ViewOptions,
                 view_b: ViewOptions | None = None) -> None:
        b_view = view_b if view_b is not None and view_b != view else None     # B coloured by its own target
        super().__init__(config, jobs.call(jobs.compare, a=config, b=config_b, view=view, view_b=b_view),
                         jobs.call(jobs.compare, a=config, b=config_b, view=view, int_sim=True, whatif=True,
                                   view_b=b_view))
        self.view, self.config_b, self.view_b = view, config_b, view_b or view

    def combined(self, earlier: InspectionPair, later: InspectionPair) -> InspectionPair:
        return dataclasses.replace(later, a=_with_stages_of(earlier.a, later.a), b=_with_stages_of(earlier.b, later.b))


def _with_stages_of(earlier: Inspection, later: Inspection) -> Inspection:
    """`later` saying every stage the job computed for it (its steps' stages, in order)."""
    stages = tuple(dict.fromkeys((*earlier.stages_run, *later.stages_run)))
    return later if stages == later.stages_run else dataclasses.replace(later, stages_run=stages)


class CatalogueLoader(QObject):
    """Reads the model zoo's names (a torch-free registry) in the background."""

    loaded = Signal(list)              # [(name, description)]

    def start(self) -> None:
        threading.Thread(target=self._run, name="vpu-inspector-zoo", daemon=True).start()

    def _run(self) -> None:
        try:
            from vpu_core.zoo import ZOO
        except Exception:  # the run itself will report a broken install
            return
        try:
            self.loaded.emit([(e.name, e.description) for e in ZOO.values()])
        except RuntimeError:  # the window closed while the zoo was loading: nobody to tell
            pass

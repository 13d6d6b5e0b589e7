"""Jobs on the one long-lived job thread, reporting back through Qt signals.

A job asks the core session for one inspection (`session.inspect`) or for the two of compare
mode (`session.compare`); the session does everything else (pipeline, analysis, display graph,
remembering what it already computed). The signals are emitted from the job thread and, because
the receiver lives in the GUI thread, Qt queues them onto the event loop: the window keeps
answering while a job runs.
"""
from __future__ import annotations

import threading
import traceback

from PySide6.QtCore import QObject, QTimer, Signal

from vpu_core.config import RunConfig, ViewOptions
from vpu_core.errors import Cancelled, InspectorError
from vpu_core.progress import POLL_S, RunContext, abandoned_work
from vpu_core.serial import SerialWorker


# Jobs run one at a time on one long-lived thread (vpu_core.serial says why not a thread each): the
# run, the ablation (What-if) never run torch side by side, and a job also waits for any stage a
# cancelled job abandoned. torch.export and ExecuTorch's lowering change process-wide state (op
# decompositions, the intra-op thread count) while they run.
_JOBS = SerialWorker("vpu-inspector-run")


def _abandoned_work_finished(cancel: threading.Event) -> bool:
    """Wait for stages abandoned by cancelled jobs; False if this job is cancelled meanwhile."""
    while abandoned_work():
        if cancel.wait(POLL_S):
            return False
    return not cancel.is_set()


class Job(QObject):
    """Create, connect, `start()`; `cancel()` at any time. `config` is side A's RunConfig."""

    progress = Signal(str, float)      # stage name, overall fraction 0..1
    preview = Signal(object)           # Inspection of the predicted partition, before quantizing
    finished = Signal(object)          # Inspection (InspectionPair for a CompareJob)
    failed = Signal(object)            # InspectorError (message + detail)
    cancelled = Signal()

    def __init__(self, config: RunConfig, view: ViewOptions) -> None:
        super().__init__()
        self.config, self.view = config, view
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        self._state = "new"             # new → queued → running → ended, or queued → ended on cancel
        self._ended = threading.Event()

    def start(self) -> None:
        """Queue the job: it runs when the jobs before it have finished."""
        with self._lock:
            self._state = "queued"
        _JOBS.submit(self._run)

    def cancel(self) -> None:
        """Stop at the next check; a job still waiting for its turn ends (cancelled) at once."""
        self._cancel.set()
        with self._lock:
            dropped = self._state == "queued"
            if dropped:                 # the job thread will find it ended and skip it
                self._state = "ended"
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
        if not _abandoned_work_finished(self._cancel):
            return "cancelled", None
        try:
            return "finished", self.work(self._cancel)
        except Cancelled:
            return "cancelled", None
        except InspectorError as exc:
            return "failed", exc
        except Exception as exc:  # a bug: still a dialog, never a dead window
            return "failed", InspectorError(f"Unexpected error: {type(exc).__name__}: {exc}",
                                            traceback.format_exc())

    def work(self, cancel: threading.Event) -> object:
        raise NotImplementedError

    def context(self, cancel: threading.Event) -> RunContext:
        """The run context of this job: the session's progress goes out on `progress`."""
        return RunContext(self.progress.emit, cancel)


class InspectJob(Job):
    """One configuration; `fresh` forgets what the session remembers for it first (Run again);
    `runtime_runs` also lowers it to ExecuTorch XNNPACK and runs it on this CPU that many times."""

    def __init__(self, config: RunConfig, view: ViewOptions, fresh: bool = False,
                 runtime_runs: int | None = None) -> None:
        super().__init__(config, view)
        self.fresh, self.runtime_runs = fresh, runtime_runs

    def work(self, cancel: threading.Event) -> object:
        from vpu_core.session import STAGE_SPANS, default_session

        return default_session().inspect(self.config, self.view, fresh=self.fresh, int_sim=True,
                                          runtime_runs=self.runtime_runs, whatif=True,
                                          ctx=self.context(cancel).scaled(STAGE_SPANS),
                                          preview=self._preview)

    def _preview(self, inspection: object) -> None:
        if not self._cancel.is_set():  # a cancelled job shows nothing new
            self.preview.emit(inspection)


class CompareJob(Job):
    """Compare mode: side A (`config`) and side B, then vpu_core.compare, in the session."""

    def __init__(self, config: RunConfig, config_b: RunConfig, view: ViewOptions) -> None:
        super().__init__(config, view)
        self.config_b = config_b

    def work(self, cancel: threading.Event) -> object:
        from vpu_core.session import default_session

        return default_session().compare(self.config, self.config_b, self.view, int_sim=True,
                                         whatif=True, ctx=self.context(cancel))


class CatalogueLoader(QObject):
    """Reads the model zoo (which imports torch) in the background, so the window opens fast."""

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

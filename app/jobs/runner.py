"""At most one job at a time: a new request cancels the running one (a step running in the worker
process is killed with it, at once) and starts when it has stopped.

A job is an InspectJob (one configuration) or a CompareJob (the two configurations of compare
mode). Only the newest request's outcome is reported; a superseded job's result is dropped, so
the window never flashes an old model after the user has already picked another.
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, Signal

from app.jobs.worker import DEFAULT_TIME_LIMIT_S, Job
from vpu_core.stages import Stage

JobFactory = Callable[[], Job]


class JobRunner(QObject):
    started = Signal(object)           # the RunConfig (of side A) of the job that begins
    progress = Signal(str, float)      # stage, overall fraction
    preview = Signal(object)           # the running job's predicted Inspection (before quantizing)
    shown = Signal(object)             # the running job's result before its last step (Job.shown)
    succeeded = Signal(object)         # Inspection or InspectionPair
    failed = Signal(object)            # InspectorError
    cancelled = Signal()
    running_changed = Signal(bool)

    def __init__(self, parent: QObject | None = None, time_limit_s: float | None = DEFAULT_TIME_LIMIT_S) -> None:
        super().__init__(parent)
        self.time_limit_s = time_limit_s     # each job's worker steps are stopped past it (None: never)
        self._job: Job | None = None
        self._pending: JobFactory | None = None

    def is_running(self) -> bool:
        return self._job is not None

    def request(self, make_job: JobFactory) -> None:
        """Start the job `make_job()` builds, once the running job (if any) has stopped."""
        if self._job is not None:
            self._pending = make_job
            self._job.cancel()
            return
        self._launch(make_job)

    def cancel(self) -> None:
        self._pending = None
        if self._job is not None:
            self._job.cancel()

    def shutdown(self, timeout: float = 5.0) -> None:
        """Stop for good (window closing): cancel and wait for the job to end."""
        job = self._job
        self.cancel()
        if job is not None:
            job.wait(timeout)

    def _launch(self, make_job: JobFactory) -> None:
        job = make_job()
        job.time_limit_s = self.time_limit_s
        job.progress.connect(self._on_progress)
        job.preview.connect(lambda inspection, j=job: self._on_preview(j, inspection))
        job.shown.connect(lambda result, j=job: self.shown.emit(result) if self._is_current(j) else None)
        job.finished.connect(lambda result, j=job: self._on_end(j, "succeeded", result))
        job.failed.connect(lambda error, j=job: self._on_end(j, "failed", error))
        job.cancelled.connect(lambda j=job: self._on_end(j, "cancelled", None))
        self._job = job
        self.running_changed.emit(True)
        self.started.emit(job.config)
        job.start()

    def running_job(self) -> Job | None:
        return self._job

    def _is_current(self, job: Job) -> bool:
        """The job on screen: current, and no cancel or newer request pending."""
        return job is self._job and self._pending is None and not job.cancel_requested()

    def _on_preview(self, job: Job, inspection: object) -> None:
        """Only the current job's prediction."""
        if self._is_current(job):
            self.preview.emit(inspection)

    def _on_progress(self, stage: Stage, fraction: float) -> None:
        if self.sender() is self._job:
            self.progress.emit(stage, fraction)

    def _on_end(self, job: Job, outcome: str, payload) -> None:
        if job is not self._job:
            return
        self._job = None
        pending, self._pending = self._pending, None
        if pending is not None:           # a newer request superseded this run
            self._launch(pending)
            return
        self.running_changed.emit(False)
        if outcome == "succeeded":
            self.succeeded.emit(payload)
        elif outcome == "failed":
            self.failed.emit(payload)
        else:
            self.cancelled.emit()

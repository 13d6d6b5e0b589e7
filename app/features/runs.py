"""Runs: turn the toolbars into jobs, and the jobs' outcomes into the application state.

One job at a time (app.jobs.runner.JobRunner): the single configuration of the run toolbar, or,
in compare mode, side A and side B. Every job asks the core session, which answers from memory
what it already computed, so switching back to a configuration seen before, turning the XNNPACK
overlay on or entering compare mode only runs what is missing. Only the Run button (and opening
a file) makes the session forget a configuration first: the model file may have changed.

A view change (fold, colouring) is drawn at once from the results on screen
(`Session.redraw`, milliseconds) unless it needs something they lack (the XNNPACK delegation):
then it is a job like any other.

After a failed or cancelled run, the toolbar goes back to the configuration on screen, so the
model box, the graph and the status bar agree (the status bar says what failed).
"""
from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from app import dialogs
from app.jobs.runner import JobRunner
from app.jobs.worker import CompareJob, InspectJob
from app.state import AppState
from vpu_core.config import RunConfig
from vpu_core.session import STAGE_TITLES, InspectionPair

RERUN_DELAY_MS = 350


class RunController(QObject):
    succeeded = Signal(object)         # Inspection / InspectionPair of the job that ended
    failed = Signal(object)            # InspectorError

    def __init__(self, state: AppState, controls, compare_bar, dialog_parent) -> None:
        super().__init__(state)
        self.state, self.controls, self.compare_bar = state, controls, compare_bar
        self.dialog_parent = dialog_parent
        self.jobs = JobRunner(self)
        self._timer = QTimer(self, singleShot=True, interval=RERUN_DELAY_MS)
        self._timer.timeout.connect(lambda: self.request())
        controls.options_changed.connect(self._timer.start)
        controls.run_clicked.connect(lambda: self.start())
        controls.cancel_clicked.connect(self.cancel)
        self.jobs.started.connect(self._on_started)
        self.jobs.progress.connect(lambda stage, f: state.set_run(stage=STAGE_TITLES.get(stage, stage), fraction=f))
        self.jobs.running_changed.connect(lambda running: state.set_run(running=running))
        self.jobs.succeeded.connect(self._on_succeeded)
        self.jobs.failed.connect(self._on_failed)
        self.jobs.cancelled.connect(self._on_cancelled)
        state.view_changed.connect(self._on_view_changed)

    # -- what to run -----------------------------------------------------------------------------
    def config(self) -> RunConfig:
        """Side A (the single view): the run toolbar's configuration."""
        return self.controls.config()

    def config_b(self) -> RunConfig:
        return self.compare_bar.config_b(self.config())

    def start(self, config: RunConfig | None = None) -> None:
        """Run (again) the toolbar's configuration, or `config` (shown in the toolbar first)."""
        if config is not None:
            self.controls.set_config(config)
        self.request(fresh=True)

    def request(self, fresh: bool = False) -> None:
        """The job for what should be on screen; a running job is cancelled first."""
        self._timer.stop()
        view, a = self.state.view, self.config()
        if self.state.compare_mode:
            b = self.config_b()
            self.jobs.request(lambda: CompareJob(a, b, view))
        else:
            self.jobs.request(lambda: InspectJob(a, view, fresh))

    def cancel(self) -> None:
        self._timer.stop()
        if self.jobs.is_running():
            self.jobs.cancel()
            self.state.set_run(stage="Cancelling…")

    def is_running(self) -> bool:
        return self.jobs.is_running()

    # -- outcomes ----------------------------------------------------------------------------------
    def _on_started(self, config: RunConfig) -> None:
        self.state.set_run(stage=STAGE_TITLES["load"], fraction=0.0, model=config.model,
                           quantizer=config.quantizer, error=None, cancelled=False)

    def _on_succeeded(self, result) -> None:
        self.state.set_run(stage=f"Done in {result.seconds:.1f} s", seconds=result.seconds)
        if isinstance(result, InspectionPair):
            if self.state.compare_mode:
                self.state.set_comparison(result)
        else:
            self.state.set_result(result)
        self.succeeded.emit(result)

    def _on_failed(self, error) -> None:
        self.state.set_run(stage="", error=error)
        self._back_to_shown()
        dialogs.show_error(self.dialog_parent, error)
        self.failed.emit(error)

    def _on_cancelled(self) -> None:
        self.state.set_run(stage="Cancelled", cancelled=True)
        self._back_to_shown()

    def _back_to_shown(self) -> None:
        """The toolbar shows the configuration whose graph is on screen (if any)."""
        if self.state.result is not None:
            self.controls.set_config(self.state.result.config)

    # -- view changes ------------------------------------------------------------------------------
    def _on_view_changed(self) -> None:
        shown = [i for i in (self.state.result, *(self._pair_sides())) if i is not None]
        if self.jobs.is_running():
            self.request()                  # the running job draws the old view: ask again
        elif not shown:
            return
        elif self.state.view.partition_source == "xnnpack" and not all(i.has_delegation for i in shown):
            self.request()                  # lower with ExecuTorch first (seconds): a job
        else:
            self._redraw()

    def _pair_sides(self) -> tuple:
        pair = self.state.comparison
        return () if pair is None else (pair.a, pair.b)

    def _redraw(self) -> None:
        from vpu_core.session import default_session

        session, view = default_session(), self.state.view
        pair = self.state.comparison
        if pair is not None:                # its side A is `result` too
            a, b = session.redraw(pair.a, view), session.redraw(pair.b, view)
            self.state.set_comparison(InspectionPair(a, b, pair.comparison, pair.seconds))
        elif self.state.result is not None:
            self.state.set_result(session.redraw(self.state.result, view))

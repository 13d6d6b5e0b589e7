"""Runs: the request in the application state becomes jobs, and the jobs' outcomes become its result.

The run toolbar (app.widgets.run_controls) is bound to `state.config` both ways: an edit sets the
field, a change of the field (a file opened, Apply, a failed run) is shown by the toolbar. Runs
start from the state, never from reading the toolbar:
- the request changed (`config`; side B or compare mode in compare mode; the view): the screen
  is brought to it — nothing when the results on screen already answer it (the view alone is
  redrawn from them, milliseconds), otherwise a job. Edits of side A wait RERUN_DELAY_MS, so
  clicking through models and quantizers needs no Run click;
- `state.request_run(fresh)`: the Run button (fresh: the session forgets the configuration first,
  a model file may have changed), opening a file, Apply.

One job at a time (app.jobs.runner.JobRunner): side A, or in compare mode side A and side B. A
job is answered from what the window has (results that came back, the disk cache) or else by the
worker process, whose session keeps what it computed, so switching back to a configuration seen
before, turning the XNNPACK overlay on or entering compare mode only runs what is missing. The
quantized result is shown as soon as it exists (`jobs.shown`); the same job then adds the integer
simulation and the what-if (its own progress), and the run has succeeded when they are there.

A failed or cancelled run keeps the result on screen, and the request goes back to what made it
(A and, in compare mode, B): the toolbar, the graph and the status bar agree; the status bar says
what failed (`state.run` keeps the configuration that failed).
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QTimer, Signal, SignalInstance

from app import dialogs
from app.jobs.runner import JobRunner
from app.jobs.worker import CatalogueLoader, CompareJob, InspectJob, window_session
from app.state import AppState, CompareB
from vpu_core.config import RunConfig
from vpu_core.errors import InspectorError
from vpu_core.preflight import check_paths
from vpu_core.session import STAGE_TITLES, InspectionPair

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from vpu_core.analysis.results import InputInfo
    from vpu_core.session import Inspection

RERUN_DELAY_MS = 350
RUNTIME_RUNS = 20                      # timed runs of Run ▸ Run on this CPU (as `check --run`)


class RunToolbar(Protocol):
    """What the run feature asks of the run toolbar (app.widgets.run_controls.RunControls)."""

    @property
    def config_changed(self) -> SignalInstance: ...       # (RunConfig) the configuration shown changed

    @property
    def run_clicked(self) -> SignalInstance: ...

    @property
    def cancel_clicked(self) -> SignalInstance: ...

    def config(self) -> RunConfig: ...

    def set_config(self, config: RunConfig) -> None: ...

    def set_catalogue(self, entries: list[tuple[str, str]], recent: list[str] | None = None) -> None: ...

    def set_profiles(self, recent: list[str], current: str | None = None) -> None: ...

    def set_running(self, running: bool) -> None: ...

    def set_inputs(self, inputs: tuple[InputInfo, ...]) -> None: ...

    def set_program_file(self, quantizer: str | None) -> None: ...

    def dialog_parent(self) -> QWidget | None: ...


class RunController(QObject):
    succeeded = Signal(object)         # Inspection / InspectionPair of the job that ended
    failed = Signal(object)            # InspectorError

    def __init__(self, state: AppState, controls: RunToolbar) -> None:
        super().__init__(state)
        self.state, self.controls = state, controls
        self.jobs = JobRunner(self, state.time_limit_s)
        self._quiet = False              # set while the request goes back to what is shown
        self._before_preview: Inspection | None = None   # shown before the running job's prediction
        self._started = time.monotonic()                 # when the running job began
        self._timer = QTimer(self, singleShot=True, interval=RERUN_DELAY_MS)
        self._timer.timeout.connect(self.request)
        self._bind_toolbar()
        controls.run_clicked.connect(lambda: self.start())
        controls.cancel_clicked.connect(self.cancel)
        # looked up at call time: a test (or a plug-in) may replace start / request
        state.run_requested.connect(lambda fresh: self.start() if fresh else self.request())
        state.config_changed.connect(self._on_config_changed)
        state.compare_b_changed.connect(lambda: self._on_request_changed() if state.compare_mode else None)
        state.compare_mode_changed.connect(lambda _on: self._on_request_changed())
        state.measure_changed.connect(lambda: self._on_request_changed() if state.measure else None)
        state.view_changed.connect(self._on_view_changed)
        state.time_limit_s_changed.connect(lambda: setattr(self.jobs, "time_limit_s", state.time_limit_s))
        self.jobs.started.connect(self._on_started)
        self.jobs.progress.connect(lambda stage, f: state.set_run(stage=STAGE_TITLES.get(stage, stage), fraction=f))
        self.jobs.running_changed.connect(lambda running: state.set_run(running=running))
        self.jobs.preview.connect(self._on_preview)
        self.jobs.shown.connect(self._show)
        self.jobs.succeeded.connect(self._on_succeeded)
        self.jobs.failed.connect(self._on_failed)
        self.jobs.cancelled.connect(self._on_cancelled)
        self._catalogue = CatalogueLoader()
        self._catalogue.loaded.connect(lambda entries: setattr(state, "catalogue", tuple(entries)))
        self._catalogue.start()

    def _bind_toolbar(self) -> None:
        state, controls = self.state, self.controls
        self._show_catalogue()
        controls.set_profiles(list(state.recent_profiles), state.config.profile)
        controls.set_config(state.config)
        controls.config_changed.connect(lambda config: setattr(state, "config", config))
        state.config_changed.connect(lambda: controls.set_config(state.config))
        state.catalogue_changed.connect(self._show_catalogue)
        state.recent_models_changed.connect(self._show_catalogue)
        state.recent_profiles_changed.connect(
            lambda: controls.set_profiles(list(state.recent_profiles), state.config.profile))
        state.run_changed.connect(lambda: controls.set_running(state.run.running))
        state.result_changed.connect(self._show_inputs)
        state.comparison_changed.connect(self._show_inputs)

    def _show_catalogue(self) -> None:
        self.controls.set_catalogue(list(self.state.catalogue), list(self.state.recent_models))

    def _show_inputs(self) -> None:
        if self.state.result is not None:
            analysis = self.state.result.analysis
            self.controls.set_inputs(analysis.inputs)
            self.controls.set_program_file(analysis.quantizer if analysis.already_quantized else None)

    # -- what to run -----------------------------------------------------------------------------
    def config(self) -> RunConfig:
        """Side A (the single view): the requested configuration."""
        return self.state.config

    def config_b(self) -> RunConfig:
        return self.state.config_b()

    def start(self, config: RunConfig | None = None) -> None:
        """Run (again) the requested configuration, or `config` (which becomes the request)."""
        if config is not None:
            self.state.config = config
        self._start(fresh=True)

    def request(self) -> None:
        """Bring the screen to the request: nothing, a redraw, or a job (a running one is
        cancelled first)."""
        self._timer.stop()
        shown = self.state.shown_for_request()
        if shown is None:
            self._start(fresh=False)
            return
        if self.jobs.is_running() and not self._running_for(shown):
            self.cancel()                    # it was for another request
        views = self.state.views()
        if all(i.view == v for i, v in zip(shown, views)):
            return
        if not all(i.can_colour_by(v.partition_source) for i, v in zip(shown, views)):
            self._start(fresh=False)         # judge with the target first (a lowering: seconds): a job
        else:
            self._redraw()

    def _running_for(self, shown: tuple[Inspection, ...]) -> bool:
        """The running job adds the follow-up stages to the results on screen (same configurations)."""
        job = self.jobs.running_job()
        if job is None:
            return False
        configs = (job.config, getattr(job, "config_b", None)) if len(shown) == 2 else (job.config,)
        return tuple(configs) == tuple(i.config for i in shown)

    def _start(self, fresh: bool) -> None:
        self._timer.stop()
        state = self.state
        view, a = state.view, state.config
        b = state.config_b() if state.compare_mode else None
        try:        # a path the system refuses (too long, a folder, …): one sentence, no job
            for config in (a, b) if b is not None else (a,):
                check_paths(config)
        except InspectorError as error:
            self._refused(error)
            return
        if b is not None:
            side_b, view_b = b, state.view_b()
            self.jobs.request(lambda: CompareJob(a, side_b, view, view_b))
        else:
            runs = RUNTIME_RUNS if state.measure else None
            self.jobs.request(lambda: InspectJob(a, view, fresh, runtime_runs=runs))

    def ask_time_limit(self) -> None:
        """Run ▸ Time limit of a run…: the seconds after which a run is stopped (0: never)."""
        seconds = dialogs.ask_time_limit(self.controls.dialog_parent(), self.state.time_limit_s)
        if seconds is not None:
            self.state.time_limit_s = float(seconds) or None

    def cancel(self) -> None:
        self._timer.stop()
        if self.jobs.is_running():
            self.jobs.cancel()
            self.state.set_run(stage="Cancelling…")

    def is_running(self) -> bool:
        return self.jobs.is_running()

    def _on_config_changed(self) -> None:
        if not self._quiet:
            self._timer.start()              # edits of side A settle first

    def _on_request_changed(self) -> None:
        if not self._quiet:
            self.request()

    def _on_view_changed(self) -> None:
        if self.state.result is not None or self.jobs.is_running():   # nothing to draw yet: wait
            self._on_request_changed()

    # -- outcomes ----------------------------------------------------------------------------------
    def _on_started(self, config: RunConfig) -> None:
        self._started = time.monotonic()
        self.state.set_run(stage=STAGE_TITLES["load"], fraction=0.0, model=config.model, config=config,
                           quantizer=config.quantizer, error=None, cancelled=False)

    def _on_preview(self, predicted: Inspection) -> None:
        """The predicted partition of the float graph, while PT2E quantizes: shown at once; the
        quantized result replaces it in place (same ids, selection and view)."""
        if self.state.compare_mode or predicted.config != self.state.config:
            return
        shown = self.state.result
        self._before_preview = shown if shown is None or not shown.analysis.predicted else self._before_preview
        self.state.prediction_changes = ()
        self.state.set_result(predicted)
        self.state.set_run(stage="Predicted partition shown — quantizing")

    def _on_succeeded(self, result: Inspection | InspectionPair) -> None:
        seconds = time.monotonic() - self._started         # the whole job, its follow-ups too
        self.state.set_run(stage=f"Done in {seconds:.1f} s", seconds=seconds)
        self._show(result)
        self.succeeded.emit(result)

    def _show(self, result: Inspection | InspectionPair) -> None:
        """Put a result on screen: the quantized result (replacing its prediction in place), or the
        same with its follow-up stages; drawn for the view of now (it may have changed meanwhile)."""
        from vpu_core.analysis.predicted import prediction_changes

        self._before_preview = None
        result = self._for_current_view(result)
        if isinstance(result, InspectionPair):
            if self.state.compare_mode:
                self.state.set_comparison(result)
        else:
            shown = self.state.result
            same = shown is not None and shown.config == result.config
            if same and shown is not None and shown.analysis.predicted:
                self.state.prediction_changes = prediction_changes(shown.analysis, result.analysis)
            elif not same:          # the same result with its follow-ups keeps what was said
                self.state.prediction_changes = ()
            self.state.set_result(result)

    def _for_current_view(self, result: Inspection | InspectionPair) -> Inspection | InspectionPair:
        session, view, view_b = window_session(), self.state.view, self.state.view_b()
        try:
            if isinstance(result, InspectionPair):
                if result.a.view == view and result.b.view == view_b:
                    return result
                return InspectionPair(session.redraw(result.a, view), session.redraw(result.b, view_b),
                                      result.comparison, result.seconds)
            return result if result.view in (None, view) else session.redraw(result, view)
        except ValueError:          # a view the result cannot be drawn for (the overlay): as it came
            return result

    def _on_failed(self, error: InspectorError) -> None:
        if self.state.predicted and self.state.result is not None and self.state.result.config == self.state.run.config:
            self.state.set_result(self._before_preview)   # the quantization failed: its prediction goes
        self._refused(error)

    def _refused(self, error: InspectorError) -> None:
        """A run failed or could not start: what is shown stays, the request goes back to it, the
        status bar and a dialog say why."""
        self._back_to_shown()
        self.state.set_run(stage="", error=error)
        shown = self.state.comparison if self.state.showing_compare else self.state.result
        dialogs.show_error(self.controls.dialog_parent(), error,
                           note=dialogs.KEEP_NOTE if shown is not None else dialogs.NOTHING_NOTE)
        self.failed.emit(error)

    def _on_cancelled(self) -> None:
        self._back_to_shown()
        self.state.set_run(stage="Cancelled", cancelled=True)

    def _back_to_shown(self) -> None:
        """The request goes back to the configurations on screen (if any), without a run."""
        state = self.state
        self._quiet = True
        try:
            if state.result is not None:
                state.config = state.result.config
                if state.measure and state.result.attached.runtime is None:
                    state.measure = False        # the measurement did not happen
            if state.compare_mode and state.comparison is not None:
                b = state.comparison.b
                colour = b.view.partition_source if b.view is not None and b.view != state.view else None
                state.compare_b = CompareB.of(b.config, colour)
        finally:
            self._quiet = False

    # -- view changes ------------------------------------------------------------------------------
    def _redraw(self) -> None:
        session, view = window_session(), self.state.view
        pair = self.state.comparison
        if self.state.showing_compare and pair is not None:      # its side A is `result` too
            a, b = session.redraw(pair.a, view), session.redraw(pair.b, self.state.view_b())
            self.state.set_comparison(InspectionPair(a, b, pair.comparison, pair.seconds))
        elif self.state.result is not None:
            self.state.set_result(session.redraw(self.state.result, view))

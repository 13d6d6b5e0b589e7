"""Sensitivity: which layer costs the decibels, its fixes, Apply, and what the fix changed.

One story, on the Sensitivity dock (app.widgets.sensitivity_panel):
- Analyse runs `Session.sensitivity` for the result on screen as a job of its own queue
  (app.jobs.sensitivity: it never cancels or blocks the window's run; progress and Cancel like
  every job); the report is `state.sensitivity` (the session keeps every report; a result the
  session already analysed shows its report at once). The user's metric is `state.eval_spec`
  (the panel's line, or `gui --eval`).
- Picking a layer (a bar, a row, or the node on the canvas) selects its node on the canvas and
  shows its fixes; a layer whose fixes were not predicted gets "Predict fixes" (the same job with
  that layer named).
- Apply makes the fix's change part of the request (`state.config`, exactly its command-line
  options) and runs, not fresh: export and calibration are reused, the fixed program was
  quantized when it was predicted (its qparams are cached: no calibration). The next result of
  that configuration is shown against the one before as the before / after card over the canvas
  (dB, your metric, CPU ops, subgraphs, boundary bytes, MAC share); the metric after is the user's
  function run on the applied program (a job).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject

from app import dialogs
from app.jobs.runner import JobRunner
from app.jobs.sensitivity import MetricJob, SensitivityJob, known_sensitivity
from app.state import AppState
from app.widgets.sensitivity_panel import SensitivityPanel
from vpu_core.errors import InspectorError
from vpu_core.sensitivity.options import SensitivityOptions, with_fix

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.config import RunConfig
    from vpu_core.sensitivity.results import Fix, SensitivityReport
    from vpu_core.whatif.try_on_vpu import BeforeAfter

class Dock(Protocol):
    def show(self) -> None: ...

    def raise_(self) -> None: ...


class CardView(Protocol):
    def show_card(self, card: BeforeAfter | None) -> None: ...


class _Applied:
    """An Apply waiting for its result: the configuration it asked for, the analysis before it."""

    def __init__(self, config: RunConfig, before: Analysis, fix: Fix, metric_before: float | None) -> None:
        self.config, self.before, self.fix, self.metric_before = config, before, fix, metric_before
        self.after: Analysis | None = None


class SensitivityController(QObject):
    def __init__(self, state: AppState, panel: SensitivityPanel, dock: Dock, cards: CardView | None = None) -> None:
        super().__init__(state)
        self.state, self.panel, self.dock, self.cards = state, panel, dock, cards
        self.jobs = JobRunner(self)             # their own queue: never cancel the window's run
        self.metric_jobs = JobRunner(self)
        self._running: RunConfig | None = None
        self._applied: _Applied | None = None
        # After an Apply, until this configuration is analysed: the report the fix came from
        self._before_apply: tuple[RunConfig, SensitivityReport] | None = None
        panel.run_clicked.connect(self.run)
        panel.cancel_clicked.connect(self.jobs.cancel)
        panel.layer_selected.connect(self.pick_layer)
        panel.predict_clicked.connect(self.predict)
        panel.apply_clicked.connect(self.apply)
        panel.metric_edited.connect(lambda text: setattr(state, "eval_spec", text or None))
        self.jobs.progress.connect(lambda stage, f: panel.set_progress(f, "Ranking layers and quantizing their fixes…"))
        self.jobs.running_changed.connect(lambda running: panel.set_running(running, self.state.result is not None))
        self.jobs.succeeded.connect(self._on_report)
        self.jobs.failed.connect(self._on_failed)
        self.jobs.cancelled.connect(lambda: panel.set_status("Cancelled"))
        self.metric_jobs.succeeded.connect(self._on_metric_after)
        self.metric_jobs.failed.connect(self._on_failed)
        state.result_changed.connect(self._on_result)
        state.sensitivity_changed.connect(self._show)
        state.selection_changed.connect(self._on_selection)
        state.eval_spec_changed.connect(lambda: panel.set_metric_text(state.eval_spec or ""))
        panel.set_metric_text(state.eval_spec or "")

    def show(self) -> None:
        self.dock.show()
        self.dock.raise_()

    def options(self, *fix_nodes: str) -> SensitivityOptions:
        return SensitivityOptions(metric=self.state.eval_spec, fix_nodes=tuple(fix_nodes))

    # -- running ---------------------------------------------------------------------------------------
    def run(self, *fix_nodes: str) -> None:
        """Analyse the result on screen (with the fixes of `fix_nodes` predicted too)."""
        inspection = self.state.result
        if inspection is None or inspection.analysis.predicted:
            return
        self._running = config = inspection.config
        options = self.options(*fix_nodes)
        self.panel.set_progress(0.0, "Ranking layers…")
        self.jobs.request(lambda: SensitivityJob(config, options))

    def predict(self, node: str) -> None:
        self.run(node)

    def shutdown(self) -> None:
        self.jobs.shutdown()
        self.metric_jobs.shutdown()

    def _on_report(self, report: SensitivityReport) -> None:
        shown = self.state.result
        if shown is None or shown.config != self._running:
            return                                          # another result now: the session keeps it
        if report is self.state.sensitivity:
            self.panel.show_report(report)                  # known already (asked again): shown again
        self.state.sensitivity = report

    def _on_failed(self, error: InspectorError) -> None:
        self.panel.set_status("Failed")
        dialogs.show_error(self.panel.window(), error, title="Sensitivity failed", note="")

    # -- the result on screen ---------------------------------------------------------------------------
    def _on_result(self) -> None:
        inspection = self.state.result
        if inspection is None or inspection.analysis.predicted:
            return
        self._show_card(inspection.config, inspection.analysis)
        known = known_sensitivity(inspection.config, self.options())
        if known is self.state.sensitivity:
            self._show()                    # the same (none): the panel still follows the result
        self.state.sensitivity = known

    def _show(self) -> None:
        report, inspection = self.state.sensitivity, self.state.result
        if report is not None:
            self.panel.show_report(report)
            return
        before = self._before_apply
        if inspection is not None and before is not None and inspection.config == before[0]:
            self.panel.show_report(before[1])         # the fixes of the run before it, beside the card
            self.panel.set_status("Applied — this ranking is of the run before the fix (the card over the graph "
                                  "shows what it changed); Analyse ranks this configuration.")
            return
        if inspection is None:
            self.panel.show_idle("", "Run a model first.", can_run=False)
        elif inspection.analysis.already_quantized:
            self.panel.show_idle(inspection.analysis.model, "An already quantized program has no float model "
                                 "to compare each layer with.", can_run=False)
        else:
            from vpu_core.quantizers.overrides import OPTION, requested

            changes = " ".join(f"{OPTION[kind]} {node}" for kind, node in requested(inspection.config))
            applied = (f"This configuration has {changes}: the card over the graph shows what it changed. "
                       if changes else "")
            self.panel.show_idle(inspection.analysis.model, applied + (
                "Analyse ranks every quantized layer by its share of the end-to-end error — the error it "
                "adds (local) against what it inherits (cumulative), its weights against its activations — "
                "and predicts the fixes of the worst by quantizing each for real."), can_run=True)

    def _on_selection(self) -> None:
        selection, report = self.state.selection, self.state.sensitivity
        if selection is not None and selection.side == "a" and report is not None and report.layer(selection.node):
            self.panel.select_layer(selection.node)

    def pick_layer(self, node: str) -> None:
        self.panel.select_layer(node)
        self.state.show_node("a", node)

    # -- apply ---------------------------------------------------------------------------------------
    def apply(self, fix: Fix) -> None:
        inspection, report = self.state.result, self.state.sensitivity
        if inspection is None:
            return
        config = with_fix(inspection.config, fix)
        metric_before = report.baseline.metric if report is not None else None
        self._applied = _Applied(config, inspection.analysis, fix, metric_before)
        self._before_apply = (config, report) if report is not None else None
        self.state.config = config              # the fix's options are the request now
        self.state.request_run(fresh=False)

    def _show_card(self, config: RunConfig, analysis: Analysis) -> None:
        applied = self._applied
        if applied is None or config != applied.config:
            return
        applied.after = analysis
        self._card(None)
        spec = self.state.eval_spec
        if spec and applied.metric_before is not None:
            self.metric_jobs.request(lambda: MetricJob(config, spec))

    def _on_metric_after(self, value: float) -> None:
        self._card(value)

    def _card(self, metric_after: float | None) -> None:
        from vpu_core.reports.sensitivity import change_title
        from vpu_core.whatif.try_on_vpu import Delta, before_after

        applied = self._applied
        if applied is None or applied.after is None or self.cards is None:
            return
        extra: tuple[Delta, ...] = ()
        if applied.metric_before is not None:
            name = (self.state.eval_spec or "metric").rsplit(":", 1)[-1]
            extra = (Delta("metric", name, applied.metric_before, metric_after, "high", "value"),)
        change = f"{change_title(applied.fix)} ({' '.join(applied.fix.args)})"
        self.cards.show_card(before_after(applied.before, applied.after, change, extra))
        if metric_after is not None or not extra:
            self._applied = None

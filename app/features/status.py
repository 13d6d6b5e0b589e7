"""The status bar: a summary of what is on screen (or what failed), the run's stage and progress.

Listens to the state only. The summary says what the graph shows — violations, partition, SQNR,
the profile — and after a failed run what failed and that the previous result is still shown.
"""
from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject

from app.features.shown import source_of
from app.state import AppState
from app.widgets.status import (compare_html, failure_html, predicted_html, single_html,
                                with_prediction_changes)
from vpu_core.formatting import profile_label


class Text(Protocol):
    def setText(self, text: str) -> None: ...


class Bar(Protocol):
    def setVisible(self, visible: bool) -> None: ...

    def setValue(self, value: int) -> None: ...


class StatusController(QObject):
    def __init__(self, state: AppState, summary: Text, stage: Text, progress: Bar) -> None:
        super().__init__(state)
        self.state, self.summary, self.stage, self.progress = state, summary, stage, progress
        state.result_changed.connect(self._show_summary)
        state.comparison_changed.connect(self._show_summary)
        state.compare_mode_changed.connect(lambda _on: self._show_summary())
        state.run_changed.connect(self._show_run)
        state.prediction_changes_changed.connect(self._show_summary)

    def _show_summary(self) -> None:
        state, pair, result = self.state, self.state.comparison, self.state.result
        error = state.run.error
        if error is not None and not state.run.running:
            shown = result.analysis.model if result is not None else ""
            message = getattr(error, "message", str(error))
            self.summary.setText(failure_html(message, f"the previous result ({shown})" if shown else ""))
        elif state.showing_compare and pair is not None:
            self.summary.setText(compare_html(pair))
        elif result is not None and result.graph is not None:
            text = single_html(result.analysis, result.graph.model, source_of(result),
                               profile_label(result.config.profile), result.attached, result.targets)
            if result.analysis.predicted:
                text = predicted_html(result.analysis, result.graph.model,
                                      state.run.running and state.run.config == result.config)
            elif state.prediction_changes:
                text = with_prediction_changes(text, state.prediction_changes, result.analysis)
            self.summary.setText(text)

    def _show_run(self) -> None:
        run = self.state.run
        self.progress.setVisible(run.running)
        self.progress.setValue(int(run.fraction * 1000))
        self.stage.setText(run.stage + ("…" if run.running and run.stage and not run.stage.endswith("…") else ""))
        if self.state.result is not None:
            self._show_summary()
            return
        name = Path(run.model).name if run.model else ""
        if run.running:
            self.summary.setText(f"Running {name}…")
        elif run.error is not None:
            self.summary.setText(failure_html(getattr(run.error, "message", str(run.error))))
        elif run.cancelled:
            self.summary.setText("Cancelled.")

"""Run on this CPU: side A's converted graph lowered to ExecuTorch XNNPACK and run here.

Run ▸ Run on this CPU (Ctrl+Shift+R) is bound to `state.measure` both ways. Turning it on makes the
measurement part of the request: the run feature brings the screen to it like any other request
(a job off the GUI thread, the status bar's stage and progress, Cancel / Ctrl+.; a failed run is a
dialog), and the session answers from memory everything but the lowering (cached too) and the
measurement (vpu_core.targets.xnnpack). The result on screen then carries `attached.runtime`: the status
bar shows the latency, the node panel each node's measured µs, and — unless another colouring was
chosen — the canvas colours ops by "Measured µs" (vpu_core.graph.metrics). While it is on, every
new configuration is measured too. A model ExecuTorch cannot run is not a failed run: the check is
shown and a dialog says, in one sentence, which op stops it. Compare mode shows two configurations;
the measurement is of one, so the action waits outside it.
"""
from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject, SignalInstance
from PySide6.QtWidgets import QApplication

from app import dialogs
from app.state import AppState

METRIC = "measured_us"


class MeasureToggle(Protocol):
    """A checkable action (QAction) that asks for the measurement."""

    @property
    def toggled(self) -> SignalInstance: ...

    def setChecked(self, on: bool) -> None: ...

    def setEnabled(self, on: bool) -> None: ...


class RuntimeController(QObject):
    def __init__(self, state: AppState, toggle: MeasureToggle) -> None:
        super().__init__(state)
        self.state, self.toggle = state, toggle
        self._asked = False              # the user turned it on: the next measured result is news
        toggle.toggled.connect(self.set_measure)
        state.measure_changed.connect(lambda: toggle.setChecked(state.measure))
        state.compare_mode_changed.connect(lambda on: toggle.setEnabled(not on))
        state.result_changed.connect(self._on_result)
        toggle.setChecked(state.measure)

    def set_measure(self, on: bool) -> None:
        if on and not self.state.measure:
            self._asked = True
        self.state.measure = on

    def run(self) -> None:
        """Measure the result on screen (the action, checked)."""
        self.set_measure(True)

    def _on_result(self) -> None:
        result = self.state.result
        runtime = None if result is None else result.attached.runtime
        if runtime is None or not self._asked:
            return
        self._asked = False
        if runtime.refused:
            dialogs.show_error(QApplication.activeWindow(), _Refusal(runtime.refused),
                               title="Cannot run on this CPU", note="The check is shown as usual.")
        elif self.state.metric is None:
            self.state.metric = METRIC


class _Refusal:
    """What dialogs.show_error reads of an error."""

    def __init__(self, message: str) -> None:
        self.message, self.detail = message, ""

"""Compare mode: two configurations of one model, side by side.

Side A is the run toolbar's configuration, side B the compare bar's changes to it (VPU vs
XNNPACK by default). Both run in one CompareJob (progress and cancel as for a single run); the
core session answers a side it already computed from memory, so entering compare mode with A on
screen only runs B. The report docks show one side — the one last clicked — and the Compare tab
lists every matched op of the two. Leaving compare mode shows A again without a run.
"""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject

from app.state import AppState


class CompareController(QObject):
    def __init__(self, state: AppState, view_bar, compare_bar, plots_dock, runs) -> None:
        super().__init__(state)
        self.state, self.view_bar, self.compare_bar = state, view_bar, compare_bar
        self.plots_dock, self.runs = plots_dock, runs
        view_bar.compare_toggled.connect(self.set_mode)
        compare_bar.changed.connect(lambda: runs.request())
        compare_bar.closed.connect(lambda: self.set_mode(False))
        state.compare_mode_changed.connect(self._on_mode)

    def toggle(self) -> None:
        self.set_mode(not self.state.compare_mode)

    def set_mode(self, on: bool) -> None:
        """Enter (B defaults to the other quantizer) or leave compare mode."""
        if on == self.state.compare_mode:
            return
        if on and not self.compare_bar.configured:          # first time: B = the other quantizer
            a = self.runs.config()
            self.compare_bar.set_config(replace(a, quantizer="xnnpack" if a.quantizer == "vpu" else "vpu"))
        self.state.set_compare_mode(on)
        if on:
            self.runs.request()
            return
        self.state.set_comparison(None)
        if self.state.result is not None and self.state.result.config == self.runs.config():
            self.runs.cancel()                  # A is on screen already: no run
        else:
            self.runs.request()

    def _on_mode(self, on: bool) -> None:
        self.view_bar.set_compare(on)
        self.compare_bar.setVisible(on)
        self.plots_dock.setVisible(not on)      # the diff table gets the whole width

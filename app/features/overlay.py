"""The real XNNPACK overlay: colour the graph by what ExecuTorch's XnnpackPartitioner delegated.

Switching it on changes the state's partition source; the run controller then draws the results
on screen again, lowering them with ExecuTorch first (a job, seconds) when they were not lowered
yet. The canvas' own legend (which says VPU) gives way to a DelegationLegend. If the lowering
fails or is cancelled, the colouring goes back to the simulated VPU partition rather than
showing a graph that does not match the switch.
"""
from __future__ import annotations

from PySide6.QtCore import QObject

from app.features.display import source_of
from app.state import AppState
from app.widgets.delegation_legend import DelegationLegend

SIMULATED, XNNPACK = "simulated", "xnnpack"


class OverlayController(QObject):
    def __init__(self, state: AppState, view_bar, graph_view, compare_view, display) -> None:
        super().__init__(state)
        self.state, self.view_bar = state, view_bar
        self.graph_view, self.compare_view = graph_view, compare_view
        self._legends: dict = {}
        view_bar.partition_source_changed.connect(self.set_source)
        state.view_changed.connect(self._on_view_changed)
        state.run_changed.connect(self._on_run)
        display.shown.connect(self.refresh_legends)

    def set_source(self, source: str) -> None:
        self.state.set_partition_source(source)

    def toggle(self) -> None:
        self.set_source(SIMULATED if self.state.view.partition_source == XNNPACK else XNNPACK)

    def _on_view_changed(self) -> None:
        self.view_bar.set_partition_source(self.state.view.partition_source)

    def _on_run(self) -> None:
        """A failed or cancelled lowering: back to the colouring the results on screen have."""
        run = self.state.run
        if run.running or (run.error is None and not run.cancelled):
            return
        shown = [self.state.inspection(side) for side in self.state.sides()]
        if self.state.view.partition_source == XNNPACK and any(
                i is not None and not i.has_delegation for i in shown):
            self.set_source(SIMULATED)

    def all_views(self) -> list:
        return [self.graph_view, *self.compare_view.views_list()]

    def delegation_legend(self, view) -> DelegationLegend:
        if view not in self._legends:
            self._legends[view] = DelegationLegend(view)
        return self._legends[view]

    def refresh_legends(self) -> None:
        """One legend per canvas (in compare mode only on side B: both use the same colours),
        the canvas' own or, with the overlay, the delegation legend."""
        overlay = source_of(self.state.inspection("a")) == XNNPACK     # as drawn, not as asked
        for view in self.all_views():
            wanted = view is not self.compare_view.views["a"]
            view.show_legend(wanted and not overlay)
            self.delegation_legend(view).refresh(wanted and overlay)

"""The real XNNPACK overlay: colour the graph by what ExecuTorch's XnnpackPartitioner delegated.

The view bar's VPU / XNNPACK switch is bound to the state's partition source; the run feature
then draws the results on screen again, lowering them with ExecuTorch first (a job, seconds) when
they were not lowered yet. The canvas' own legend (which says VPU) gives way to a
DelegationLegend. If the lowering fails or is cancelled, the colouring goes back to the simulated
VPU partition rather than showing a graph that does not match the switch.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, SignalInstance

from app.features.shown import source_of
from app.state import AppState
from app.widgets.delegation_legend import DelegationLegend

if TYPE_CHECKING:
    from app.graph_view import GraphView
    from app.widgets.compare_view import CompareView

SIMULATED, XNNPACK = "simulated", "xnnpack"


class ColourSwitch(Protocol):
    """The view bar's VPU / XNNPACK colouring switch."""

    @property
    def partition_source_changed(self) -> SignalInstance: ...

    def set_partition_source(self, source: str) -> None: ...


class OverlayController(QObject):
    def __init__(self, state: AppState, switch: ColourSwitch, graph_view: GraphView,
                 compare_view: CompareView) -> None:
        super().__init__(state)
        self.state, self.switch = state, switch
        self.graph_view, self.compare_view = graph_view, compare_view
        self._legends: dict[GraphView, DelegationLegend] = {}
        switch.partition_source_changed.connect(self.set_source)
        state.view_changed.connect(lambda: switch.set_partition_source(state.view.partition_source))
        state.run_changed.connect(self._on_run)
        state.drawn.connect(self.refresh_legends)
        state.look_changed.connect(self.refresh_legends)
        switch.set_partition_source(state.view.partition_source)

    def set_source(self, source: str) -> None:
        self.state.set_partition_source(source)

    def toggle(self) -> None:
        self.set_source(SIMULATED if self.state.view.partition_source == XNNPACK else XNNPACK)

    def _on_run(self) -> None:
        """A failed or cancelled lowering: back to the colouring the results on screen have."""
        run = self.state.run
        if run.running or (run.error is None and not run.cancelled):
            return
        shown = [self.state.inspection(side) for side in self.state.sides()]
        if self.state.view.partition_source == XNNPACK and any(
                i is not None and not i.has_delegation for i in shown):
            self.set_source(SIMULATED)

    def all_views(self) -> list[GraphView]:
        return [self.graph_view, *self.compare_view.views_list()]

    def delegation_legend(self, view: GraphView) -> DelegationLegend:
        if view not in self._legends:
            self._legends[view] = DelegationLegend(view)
        return self._legends[view]

    def refresh_legends(self) -> None:
        """One legend per canvas, compare mode's two sides included (each draws its own
        subgraphs, violations and groups): the canvas' own or, with the overlay, the delegation
        legend."""
        overlay = source_of(self.state.inspection("a")) == XNNPACK     # as drawn, not as asked
        for view in self.all_views():
            view.show_legend(not overlay)
            self.delegation_legend(view).refresh(overlay)

"""The graph coloured by the primary target: where that backend runs each op.

The target is chosen in the run toolbar (app.features.target: it sets the quantizer too); this
feature keeps the colouring honest. The state's partition source names the target; the run
feature draws the results on screen again, judging them with that target first (a job in the
worker: lowering takes seconds to a minute) when they were not judged yet. Under a target other
than the VPU the canvas' own legend gives way to a DelegationLegend titled with the target's
name. If the lowering fails or is cancelled, the colouring goes back to what the results on
screen were coloured by rather than showing a graph that does not match the choice (the status
bar says what failed). Ctrl+D judges the same graph by XNNPACK or the VPU (`toggle`: the
quantizer stays, the seeds' case).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from app.features.shown import SIMULATED, XNNPACK, source_of, source_title
from app.state import AppState
from vpu_core.compare import SIDES, Side
from app.widgets.delegation_legend import DelegationLegend

if TYPE_CHECKING:
    from app.graph_view import GraphView
    from app.widgets.compare_view import CompareView


class OverlayController(QObject):
    def __init__(self, state: AppState, graph_view: GraphView, compare_view: CompareView) -> None:
        super().__init__(state)
        self.state = state
        self.graph_view, self.compare_view = graph_view, compare_view
        self._legends: dict[GraphView, DelegationLegend] = {}
        state.run_changed.connect(self._on_run)
        state.drawn.connect(self.refresh_legends)
        state.look_changed.connect(self.refresh_legends)
        state.metric_changed.connect(self.refresh_legends)

    def set_source(self, source: str) -> None:
        self.state.set_partition_source(source)

    def toggle(self) -> None:
        self.set_source(SIMULATED if self.state.view.partition_source == XNNPACK else XNNPACK)

    def _on_run(self) -> None:
        """A failed or cancelled lowering: back to the colouring the results on screen have."""
        run = self.state.run
        if run.running or (run.error is None and not run.cancelled):
            return
        source = self.state.view.partition_source
        shown = [self.state.inspection(side) for side in self.state.sides()]
        if source != SIMULATED and any(i is not None and not i.can_colour_by(source) for i in shown):
            self.set_source(source_of(self.state.result))

    def all_views(self) -> list[GraphView]:
        return [self.graph_view, *self.compare_view.views_list()]

    def delegation_legend(self, view: GraphView) -> DelegationLegend:
        if view not in self._legends:
            self._legends[view] = DelegationLegend(view)
        return self._legends[view]

    def refresh_legends(self) -> None:
        """One legend per canvas, compare mode's two sides included (each draws its own
        subgraphs, violations and groups, and may be coloured by its own target): the canvas'
        own or, coloured by a target, the delegation legend worded for it. Ops coloured by a
        metric (Vela's NPU cycles) keep the canvas' legend: it holds the metric's gradient."""
        sides: list[tuple[Side, GraphView]] = [("a", self.graph_view), *zip(SIDES, self.compare_view.views_list())]
        for side, view in sides:
            source = source_of(self.state.inspection(side))      # as drawn, not as asked
            overlay = source != SIMULATED and self.state.metric is None
            view.show_legend(not overlay)
            self.delegation_legend(view).refresh(overlay, source, source_title(source))

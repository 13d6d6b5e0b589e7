"""View options: fold parameters, hide Q/DQ (the state's ViewOptions: the run feature redraws the
results on screen) and colouring ops by a metric (the state's `metric`: the canvases recolour
themselves). The view bar's controls are bound to those fields both ways."""
from __future__ import annotations

from dataclasses import replace
from typing import Protocol, Sequence

from PySide6.QtCore import QObject, SignalInstance

from app.state import AppState


class ViewToggles(Protocol):
    """What this feature asks of the view bar (app.widgets.view_bar.ViewBar)."""

    @property
    def fold_toggled(self) -> SignalInstance: ...

    @property
    def hide_qdq_toggled(self) -> SignalInstance: ...

    @property
    def metric_changed(self) -> SignalInstance: ...

    def set_fold(self, on: bool) -> None: ...

    def set_hide_qdq(self, on: bool) -> None: ...

    def set_metric(self, key: str | None) -> None: ...


class MetricColouring(Protocol):
    def set_metric(self, key: str | None) -> None: ...


class MetricCanvas(Protocol):
    """A canvas whose ops can be coloured by a metric (app.graph_view.view.GraphView)."""

    @property
    def highlights(self) -> MetricColouring: ...


class ViewOptionsController(QObject):
    def __init__(self, state: AppState, view_bar: ViewToggles, canvases: Sequence[MetricCanvas]) -> None:
        super().__init__(state)
        self.state, self.view_bar, self.canvases = state, view_bar, tuple(canvases)
        view_bar.fold_toggled.connect(self.set_fold)
        view_bar.hide_qdq_toggled.connect(self.set_hide_qdq)
        view_bar.metric_changed.connect(lambda key: self.set_metric(key or None))
        state.view_changed.connect(self._show_view)
        state.metric_changed.connect(self._show_metric)
        self._show_view()
        self._show_metric()

    def set_fold(self, fold: bool) -> None:
        self.state.set_fold(fold)

    def set_hide_qdq(self, on: bool) -> None:
        self.state.view = replace(self.state.view, hide_qdq=on)

    def set_metric(self, key: str | None) -> None:
        """Colour every canvas's ops by `key` (vpu_core.graph.metrics), None: by the partition."""
        self.state.metric = key

    def _show_view(self) -> None:
        view = self.state.view
        self.view_bar.set_fold(view.fold_params)
        self.view_bar.set_hide_qdq(view.hide_qdq)

    def _show_metric(self) -> None:
        """Each canvas keeps the metric for the graphs it draws next."""
        self.view_bar.set_metric(self.state.metric)
        for canvas in self.canvases:
            canvas.highlights.set_metric(self.state.metric)

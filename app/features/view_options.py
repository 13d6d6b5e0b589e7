"""View options: fold parameters, hide Q/DQ (both redraw from the results on screen, through the
state's ViewOptions) and colouring ops by a metric (the canvases recolour themselves)."""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject

from app.state import AppState


class ViewOptionsController(QObject):
    def __init__(self, state: AppState, view_bar, overlay, store) -> None:
        super().__init__(state)
        self.state, self.view_bar, self.overlay, self.store = state, view_bar, overlay, store
        view_bar.fold_toggled.connect(self.set_fold)
        view_bar.hide_qdq_toggled.connect(self.set_hide_qdq)
        view_bar.metric_changed.connect(lambda key: self.set_metric(key or None))

    def set_fold(self, fold: bool) -> None:
        self.store.save_fold_params(fold)
        self.view_bar.set_fold(fold)
        self.state.set_fold(fold)

    def set_hide_qdq(self, on: bool) -> None:
        self.state.set_view(replace(self.state.view, hide_qdq=on))

    def set_metric(self, key: str | None) -> None:
        """Colour every canvas's ops by `key` (vpu_core.graph.metrics), None: by the partition
        (each canvas keeps it for the graphs it draws next)."""
        for view in self.overlay.all_views():
            view.highlights.set_metric(key)

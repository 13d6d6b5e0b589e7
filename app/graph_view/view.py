"""GraphView: the pan/zoom canvas over a GraphScene.

Level of detail happens at two scales. Per item, paint() drops text and outlines when they
would not be legible. Per frame, when more than OVERVIEW_ENTER nodes would be visible the
view swaps all node and edge items for the scene's single pre-rendered overview image
(a screen-resolution numpy raster; hysteresis avoids flip-flopping while panning across
dense and sparse regions).
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QKeyEvent, QPainter, QTransform, QWheelEvent
from PySide6.QtWidgets import QGraphicsView, QWidget

from vpu_core.graph.model import GraphModel
from vpu_core.layout import Layout

from .legend import LegendOverlay
from .scene import GraphScene
from .style import Theme

ZOOM_MIN, ZOOM_MAX = 1e-4, 8.0
OVERVIEW_ENTER, OVERVIEW_LEAVE = 1000, 700    # visible nodes (items mode stays < ~8 ms)
CLICK_SLOP = 4.0                                # px a click may move and still select
READABLE_ZOOM = 1.0                             # center_on zooms in to at least this


class GraphView(QGraphicsView):
    node_selected = Signal(str)     # id of the node selected by the user or the API; "" = none

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self._theme = Theme.make()
        self._gscene: GraphScene | None = None
        self._matches: list[str] = []
        self._match_i = -1
        self._press: QPointF | None = None
        self.setRenderHints(QPainter.RenderHint.Antialiasing
                            | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)   # see zoom_by
        self.setResizeAnchor(QGraphicsView.ViewportAnchor.AnchorViewCenter)
        # items set their own pen/brush/font on every paint, so saving state is waste
        self.setOptimizationFlags(QGraphicsView.OptimizationFlag.DontSavePainterState
                                  | QGraphicsView.OptimizationFlag.DontAdjustForAntialiasing)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.MinimalViewportUpdate)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setBackgroundBrush(QColor("#ffffff"))
        self._legend = LegendOverlay(self)
        self._legend.hide()
        self._legend_on = True

    # ---- content ---------------------------------------------------------------------------
    def set_graph(self, model: GraphModel, layout: Layout) -> None:
        """Show `model` drawn at `layout`; replaces any previous graph."""
        old = self._gscene
        self._gscene = GraphScene(model, layout, self._theme, self)
        self.setScene(self._gscene)
        if old is not None:
            old.deleteLater()
        self._matches, self._match_i = [], -1
        self._legend.configure(self._theme, self._gscene.subgraphs)
        self._legend.setVisible(self._legend_on)
        self._place_legend()
        self._initial_view()

    def graph_scene(self) -> GraphScene | None:
        return self._gscene

    def _initial_view(self) -> None:
        """Whole graph if it is readable that way, else 1:1 at the top (like Netron)."""
        if self._fit_scale() >= 0.5:
            self.fit()
            return
        self.setTransform(QTransform())
        s = self._gscene
        vh = self.viewport().height()
        if s.ids:
            k = int(np.lexsort((s.x0, s.y0))[0])           # top-most, then left-most node
            self.centerOn((s.x0[k] + s.x1[k]) / 2.0, s.y0[k] - 20.0 + vh / 2.0)
        self._update_tier()

    # ---- zoom / pan --------------------------------------------------------------------------
    def zoom(self) -> float:
        return self.transform().m11()

    def zoom_by(self, factor: float, anchor: QPointF | None = None) -> None:
        """Zoom by `factor` keeping the scene point under viewport position `anchor` (default:
        the viewport centre) where it is. Done by hand: Qt's AnchorUnderMouse uses the last
        mouse-move position, which is stale for a wheel event or a scripted zoom."""
        target = min(max(self.zoom() * factor, ZOOM_MIN), ZOOM_MAX)
        vc = QPointF(self.viewport().rect().center())
        pos = anchor if anchor is not None else vc
        fixed = self.mapToScene(pos.toPoint())
        self.setTransform(QTransform.fromScale(target, target))
        self.centerOn(fixed - (pos - vc) / target)
        self._update_tier()

    def _fit_scale(self) -> float:
        if self._gscene is None:
            return 1.0
        r, v = self.sceneRect(), self.viewport().rect()
        return min((v.width() - 20) / max(r.width(), 1.0), (v.height() - 20) / max(r.height(), 1.0))

    def fit(self) -> None:
        if self._gscene is None:
            return
        s = min(max(self._fit_scale(), ZOOM_MIN), 2.0)
        self.setTransform(QTransform.fromScale(s, s))
        self.centerOn(self.sceneRect().center())
        self._update_tier()

    def wheelEvent(self, event: QWheelEvent) -> None:
        dy = event.angleDelta().y()
        if dy:
            self.zoom_by(1.0015 ** dy, event.position())
        event.accept()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        self._update_tier()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._place_legend()
        self._update_tier()

    def visible_scene_rect(self) -> QRectF:
        return self.mapToScene(self.viewport().rect()).boundingRect()

    def _update_tier(self) -> None:
        s = self._gscene
        if s is None or len(s.ids) <= OVERVIEW_LEAVE:
            return
        n = s.count_in(self.visible_scene_rect())
        s.set_overview_mode(n > (OVERVIEW_LEAVE if s.overview_mode else OVERVIEW_ENTER))

    # ---- keyboard / mouse ----------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:
        k, mods = event.key(), event.modifiers()
        if k in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom_by(1.25)
        elif k in (Qt.Key.Key_Minus, Qt.Key.Key_Underscore):
            self.zoom_by(0.8)
        elif k == Qt.Key.Key_F:
            self.fit()
        elif k in (Qt.Key.Key_N, Qt.Key.Key_F3):
            (self.prev_match if mods & Qt.KeyboardModifier.ShiftModifier else self.next_match)()
        elif k == Qt.Key.Key_Escape:
            self.select_node(None)
        else:
            super().keyPressEvent(event)

    def mousePressEvent(self, event) -> None:
        self._press = event.position()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        p, self._press = self._press, None
        if p is None or event.button() != Qt.MouseButton.LeftButton or self._gscene is None:
            return
        if (event.position() - p).manhattanLength() > CLICK_SLOP:
            return                                   # that was a drag, not a click
        pt = self.mapToScene(event.position().toPoint())
        nid = self._gscene.pick(pt.x(), pt.y(), tol=4.0 / max(self.zoom(), 1e-6))
        self.select_node(nid)

    # ---- selection / search --------------------------------------------------------------------
    def selected(self) -> str | None:
        return self._gscene.selected if self._gscene else None

    def select_node(self, node_id: str | None) -> bool:
        """Select (and highlight with its edges and neighbours) a node; None clears."""
        s = self._gscene
        if s is None or (node_id is not None and node_id not in s.items):
            return False
        if node_id != s.selected:
            s.set_selection(node_id)
            self.node_selected.emit(node_id or "")
        return True

    def center_on(self, node_id: str) -> bool:
        """Select the node and scroll it to the middle, zooming in if it is not readable."""
        if not self.select_node(node_id):
            return False
        if self.zoom() < READABLE_ZOOM * 0.6:
            self.setTransform(QTransform.fromScale(READABLE_ZOOM, READABLE_ZOOM))
        self.centerOn(self._gscene.items[node_id].box.center())
        self._update_tier()
        return True

    def search(self, text: str) -> list[str]:
        """Ids whose name or label contains `text` (case-insensitive), in model order; they
        get a yellow outline. next_match()/prev_match() walk through them."""
        s = self._gscene
        t = text.strip().lower()
        self._matches = [] if s is None or not t else [
            n.id for n in s.model.nodes if n.id in s.items
            and (t in n.id.lower() or t in n.label.lower())]
        self._match_i = -1
        if s is not None:
            s.set_matches(self._matches)
        return list(self._matches)

    def _step_match(self, step: int) -> str | None:
        n = len(self._matches)
        if not n:
            return None
        if self._match_i < 0:                       # first step: first or last match
            self._match_i = 0 if step > 0 else n - 1
        else:
            self._match_i = (self._match_i + step) % n
        nid = self._matches[self._match_i]
        self.center_on(nid)
        return nid

    def next_match(self) -> str | None:
        return self._step_match(1)

    def prev_match(self) -> str | None:
        return self._step_match(-1)

    # ---- appearance ----------------------------------------------------------------------------
    def theme(self) -> Theme:
        return self._theme

    def _set_theme(self, large: bool, contrast: bool) -> None:
        self._theme = Theme.make(large, contrast, self._theme.version + 1)
        if self._gscene is not None:
            self._gscene.set_theme(self._theme)
            self._legend.configure(self._theme, self._gscene.subgraphs)
            self._place_legend()

    def set_large_font(self, on: bool) -> None:
        self._set_theme(on, self._theme.high_contrast)

    def set_high_contrast(self, on: bool) -> None:
        self._set_theme(self._theme.large_font, on)

    def show_legend(self, on: bool) -> None:
        self._legend_on = on
        self._legend.setVisible(on and self._gscene is not None)

    def _place_legend(self) -> None:
        vp = self.viewport().geometry()
        self._legend.move(vp.right() - self._legend.width() - 10, vp.top() + 10)

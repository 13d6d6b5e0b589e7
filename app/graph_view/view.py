"""GraphView: the pan/zoom canvas over a GraphScene.

Navigation: zoom stays in a useful range (never smaller than a fraction of the whole graph, never
beyond 4:1); "Fit" (F) fits the width at a legible zoom on a tall graph, "Fit all" (Shift+F)
the whole graph; a minimap in the bottom-right corner shows the viewport and where violations
and CPU fallbacks are. The fits and "centre on" keep the graph clear of the legend, minimap and
breadcrumbs (app.graph_view.overlay_room: the view's scrollable rectangle is the graph plus that
room). With a module hierarchy (`set_graph(..., grouped=...)`) the graph opens
collapsed to the deepest level that fits the window legibly.

Composed, not mixed in: `view.groups` (GroupNavigator: which groups are open, reveal, breadcrumbs,
the group menu and keys) and `view.highlights` (Highlights: metric overlay, shared-scale outline)
own their state and use the view only through the protocols they declare.

Level of detail happens at two scales. Per item, paint() drops text and outlines when they
would not be legible. Per frame, when more than OVERVIEW_ENTER nodes would be visible the
view swaps all node and edge items for the scene's single pre-rendered overview image
(a screen-resolution numpy raster; hysteresis avoids flip-flopping while panning across
dense and sparse regions).
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QPointF, QRectF, QSizeF, Qt, Signal
from PySide6.QtGui import QColor, QHelpEvent, QKeyEvent, QPainter, QTransform, QWheelEvent
from PySide6.QtWidgets import QGraphicsView, QToolTip, QWidget

from vpu_core.formatting import count_text
from vpu_core.graph.groups import GROUP_PREFIX
from vpu_core.graph.legend import legend_facts
from vpu_core.graph.model import GraphModel
from vpu_core.layout import Layout

from .anchor import restore_anchor, view_anchor
from .breadcrumbs import Breadcrumbs
from .group_navigator import GroupNavigator
from .highlights import Highlights
from .legend import LegendOverlay, MetricLegend
from .minimap import MiniMap
from .overlay_room import MARGIN, Corners, Room, best_mode, fit_scale, room, widened
from .scene import GraphScene
from .search_matches import SearchMatches
from .style import Theme

if TYPE_CHECKING:
    from PySide6.QtGui import QContextMenuEvent, QMouseEvent, QResizeEvent
    from vpu_core.layout.grouped import GroupedGraph

ZOOM_MIN, ZOOM_MAX = 1e-4, 4.0
ZOOM_OUT_SLACK = 0.75          # zoom out at most to 3/4 of the "whole graph" scale
LEGIBLE = 0.6                  # "Fit" never goes below this on a tall graph: labels stay readable
FIT_MAX = 1.5
OVERVIEW_ENTER, OVERVIEW_LEAVE = 1000, 700    # visible nodes (items mode stays < ~8 ms)
CLICK_SLOP = 4.0                                # px a click may move and still select
READABLE_ZOOM = 1.0                             # center_on zooms in to at least this


class GraphView(QGraphicsView):
    node_selected = Signal(str)     # id of the node selected by the user or the API; "" = none
                                    # (a module group: "group:<path>")
    groups_changed = Signal()       # a group was expanded / collapsed: another model is shown

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._theme = Theme.make()
        self._gscene: GraphScene | None = None
        self._search = SearchMatches()
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
        self._legend.toggled.connect(lambda _collapsed: self._place_overlays())
        self._legend_on = True
        self._minimap = MiniMap(self)
        self._minimap.jump_to.connect(self._jump)
        self._minimap_on = True
        self.groups = GroupNavigator(self)        # module groups: what is open, how to change it
        self.highlights = Highlights(self)        # metric overlay, shared-scale outline
        self._crumbs = Breadcrumbs(self)
        self._crumbs.group_clicked.connect(self.groups.reveal_group)
        self._room_mode = "band"                  # overlay_room: kept free at the last fit
        self.room_partner: GraphView | None = None    # compare mode: the other side's overlays count too
        self._corner_legend: QWidget | None = None    # a legend that replaces the canvas' own (delegation)

    # ---- content ---------------------------------------------------------------------------
    def set_graph(self, model: GraphModel, layout: Layout, grouped: GroupedGraph | None = None,
                  depth: int | None = None, keep_view: bool = False) -> None:
        """Show `model` drawn at `layout`; replaces any previous graph.

        `grouped` (the core GroupedGraph of this graph) switches module groups on: the graph is
        drawn collapsed to `depth`, by default the deepest depth that fits the window legibly
        (the same GroupedGraph again, or one of the same model drawn another way, keeps what
        the user opened and closed). `keep_view`: the same graph anew (app.graph_view.anchor).
        """
        vp = self.viewport().rect()
        anchor = view_anchor(self, self._gscene) if keep_view else None
        model, layout = self.groups.attach(grouped, model, layout, depth, vp.width(), vp.height())
        self._install(model, layout)
        self._search.clear()
        if anchor is None or not restore_anchor(self, self._gscene, anchor):
            self._initial_view()
        self._clamp_zoom()
        self._update_tier()
        self.highlights.reapply()

    def show_regrouped(self, model: GraphModel, layout: Layout, anchor: str | None = None) -> None:
        """For GroupNavigator: show another (model, layout) of the same graph, keeping group
        `anchor` (a path) where it was on screen, and the zoom, selection and metric."""
        old = self._gscene
        keep_sel = old.selected if old is not None else None
        fixed = None
        if anchor is not None and old is not None:                # its top centre stays put
            r = old.group_box(anchor)
            if r is not None:
                fixed = self.mapFromScene(QPointF(r.center().x(), r.top()))
        zoom = self.zoom()
        self._install(model, layout)
        self.setTransform(self.transform().fromScale(zoom, zoom))
        if fixed is not None:
            r = self._gscene.group_box(anchor)
            if r is not None:
                vc = QPointF(self.viewport().rect().center())
                self.centerOn(QPointF(r.center().x(), r.top()) - (QPointF(fixed) - vc) / zoom)
        self._clamp_zoom()
        if keep_sel is not None and (keep_sel in self._gscene.items or self._gscene.open_group(keep_sel)):
            self.select_node(keep_sel)
        elif keep_sel is not None:
            self.node_selected.emit("")
        self.highlights.reapply()
        self._update_tier()
        self.groups_changed.emit()

    def full_model(self) -> GraphModel | None:
        """The whole graph behind the canvas, every module group open (for a flat graph: the
        model drawn); searches and highlights read it."""
        grouped, s = self.groups.grouped, self._gscene
        return grouped.flat if grouped is not None else (s.model if s is not None else None)

    def _install(self, model: GraphModel, layout: Layout) -> None:
        old = self._gscene
        self._gscene = GraphScene(model, layout, self._theme, self)
        self.setScene(self._gscene)
        if old is not None:
            old.deleteLater()
        self._legend.configure(self._theme, legend_facts(model))
        self._legend.setVisible(self._legend_on)
        self._minimap.set_scene(self._gscene)
        self._crumbs.set_path([])
        self._place_overlays()
        self._apply_room()

    def graph_scene(self) -> GraphScene | None:
        return self._gscene

    def _initial_view(self) -> None:
        """Whole graph if it is readable that way, else the width at a legible zoom, at the top
        ("readable" is LEGIBLE, where labels start to be drawn: a whole graph at 0.5 was boxes)."""
        self.fit(top=True)

    # ---- zoom / pan --------------------------------------------------------------------------
    def zoom(self) -> float:
        return self.transform().m11()

    def zoom_by(self, factor: float, anchor: QPointF | None = None) -> None:
        """Zoom by `factor` keeping the scene point under viewport position `anchor` (default:
        the viewport centre) where it is. Done by hand: Qt's AnchorUnderMouse uses the last
        mouse-move position, which is stale for a wheel event or a scripted zoom."""
        lo, hi = self.zoom_range()
        target = min(max(self.zoom() * factor, lo), hi)
        vc = QPointF(self.viewport().rect().center())
        pos = anchor if anchor is not None else vc
        fixed = self.mapToScene(pos.toPoint())
        self.setTransform(QTransform.fromScale(target, target))
        self.centerOn(fixed - (pos - vc) / target)
        self._update_tier()

    def graph_rect(self) -> QRectF:
        """The graph's rectangle in the scene (the view's own sceneRect() adds the overlays' room)."""
        return self._gscene.sceneRect() if self._gscene is not None else QRectF()

    def _fit_scale(self) -> float:
        if self._gscene is None:
            return 1.0
        r, v = self.graph_rect(), self.viewport().rect()
        return min((v.width() - 20) / max(r.width(), 1.0), (v.height() - 20) / max(r.height(), 1.0))

    def zoom_range(self) -> tuple[float, float]:
        """Useful zoom: from a little smaller than the whole graph to 4:1."""
        lo = min(max(self._fit_scale() * ZOOM_OUT_SLACK, ZOOM_MIN), LEGIBLE)
        return lo, ZOOM_MAX

    def _clamp_zoom(self) -> None:
        lo, hi = self.zoom_range()
        if not lo <= self.zoom() <= hi:
            z = min(max(self.zoom(), lo), hi)
            c = self.mapToScene(self.viewport().rect().center())
            self.setTransform(QTransform.fromScale(z, z))
            self.centerOn(c)

    def fit_all(self) -> None:
        """The whole graph in the view, however small that makes it, clear of the overlays."""
        if self._gscene is None:
            return
        free = self._choose_room(whole=True)
        s = min(max(fit_scale(self.graph_rect(), free, True), ZOOM_MIN), 2.0)
        self.setTransform(QTransform.fromScale(s, s))
        self.put(self.graph_rect().center(), self.free_rect().center())
        self._update_tier()

    def fit(self, top: bool = False) -> None:
        """Fit the graph; a tall one by its width, at a zoom where labels stay legible
        (`top`: show its top, else stay at the current height), clear of the overlays."""
        if self._gscene is None:
            return
        if self._fit_scale() >= LEGIBLE:
            self.fit_all()
            return
        r, v = self.graph_rect(), self.viewport().rect()
        y = self.mapToScene(v.center()).y()
        free = self._choose_room(whole=False)
        s = min(max(fit_scale(r, free, False), LEGIBLE), FIT_MAX)
        self.setTransform(QTransform.fromScale(s, s))
        free = self.free_rect()
        if top:
            self.put(QPointF(r.center().x(), r.top() - MARGIN / s), QPointF(free.center().x(), free.top()))
        else:                                    # scrolling stops at the graph's ends (and its room)
            self.put(QPointF(r.center().x(), y), QPointF(free.center().x(), v.center().y()))
        self._update_tier()

    # ---- room for the overlays (overlay_room) ---------------------------------------------------
    def corners(self, minimap: bool | None = None) -> Corners:
        """The overlays this canvas draws, in viewport pixels; `minimap`: whether to count the
        minimap (None: as drawn now)."""
        vp = self.viewport().geometry()
        legend = next((w for w in (self._legend, self._corner_legend)
                       if w is not None and w.isVisibleTo(self)), None)
        mm = self._minimap
        if minimap is None:
            minimap = mm.isVisibleTo(self)
        return Corners(legend_w=legend.width() if legend is not None else 0.0,
                       legend_bottom=legend.geometry().bottom() - vp.top() if legend is not None else 0.0,
                       minimap_w=mm.width() if minimap and self._minimap_on else 0.0,
                       crumbs_bottom=self._crumbs.geometry().bottom() - vp.top()
                       if self._crumbs.isVisibleTo(self) else 0.0)

    def room(self, mode: str | None = None, minimap: bool | None = None) -> Room:
        """The viewport pixels the graph is kept out of (with the compare partner's overlays)."""
        mode = mode or self._room_mode
        got = room(self.corners(minimap), mode)
        if self.room_partner is not None:
            got = got.union(room(self.room_partner.corners(minimap), mode))
        return got

    def free_rect(self) -> QRectF:
        """The part of the viewport no overlay covers at the fit (where fits and centre_on go)."""
        return self.room().free(QRectF(self.viewport().rect()))

    def _choose_room(self, whole: bool) -> QRectF:
        """Pick the room that draws the graph largest (for a fit); returns its free rectangle.
        For the whole graph the minimap is left out: it hides when all of the graph is seen."""
        vp = QRectF(self.viewport().rect())
        rooms = {m: self.room(m, minimap=not whole) for m in ("band", "column")}
        lo, hi = (ZOOM_MIN, 2.0) if whole else (LEGIBLE, FIT_MAX)
        self._room_mode = best_mode(rooms, self.graph_rect(), vp, whole, lo, hi)
        if self.room_partner is not None:
            self.room_partner._room_mode = self._room_mode
        return rooms[self._room_mode].free(vp)

    def _apply_room(self) -> None:
        """The scrollable rectangle: the graph plus the room at the current zoom."""
        if self._gscene is None:
            return
        want = widened(self.graph_rect(), self.room(), self.zoom())
        have = self.sceneRect()
        if max(abs(want.left() - have.left()), abs(want.top() - have.top()),
               abs(want.right() - have.right()), abs(want.bottom() - have.bottom())) * self.zoom() > 0.5:
            centre = self.mapToScene(self.viewport().rect().center())
            self.setSceneRect(want)
            self.centerOn(centre)                 # the room changed, not what the user looks at

    def setTransform(self, matrix: QTransform, combine: bool = False) -> None:   # every zoom comes here
        super().setTransform(matrix, combine)
        self._apply_room()

    def put(self, scene_point: QPointF, viewport_point: QPointF) -> None:
        """Scroll so that `scene_point` is drawn at `viewport_point` (as far as scrolling can)."""
        vc = QPointF(self.viewport().rect().center())
        self.centerOn(QPointF(scene_point) - (QPointF(viewport_point) - vc) / self.zoom())

    def set_corner_legend(self, widget: QWidget | None) -> None:
        """Another legend in the top-right corner instead of the canvas' own (the XNNPACK
        delegation's): the fits keep the graph clear of it too."""
        self._corner_legend = widget

    def wheelEvent(self, event: QWheelEvent) -> None:
        dy = event.angleDelta().y()
        if dy:
            self.zoom_by(1.0015 ** dy, event.position())
        event.accept()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        self._update_tier()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_overlays()
        self._update_tier()

    def _all_visible(self) -> bool:
        return self.visible_scene_rect().adjusted(-2, -2, 2, 2).contains(self.graph_rect())

    def _jump(self, pt: QPointF) -> None:
        self.centerOn(pt)
        self._update_tier()

    def visible_scene_rect(self) -> QRectF:
        return self.mapToScene(self.viewport().rect()).boundingRect()

    def _update_tier(self) -> None:
        s = self._gscene
        if s is not None and self._minimap_on:
            self._minimap.set_viewport(self.visible_scene_rect())
            self._place_overlays()
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
            self.fit_all() if mods & Qt.KeyboardModifier.ShiftModifier else self.fit()
        elif k in (Qt.Key.Key_N, Qt.Key.Key_F3):
            (self.prev_match if mods & Qt.KeyboardModifier.ShiftModifier else self.next_match)()
        elif k == Qt.Key.Key_Escape:
            self.select_node(None)
        elif k == Qt.Key.Key_L and not mods & ~Qt.KeyboardModifier.KeypadModifier:
            self.fold_legend(not self._legend.collapsed)
        elif not self.groups.key_press(event):
            super().keyPressEvent(event)

    def viewportEvent(self, event: QEvent) -> bool:
        """A hover tooltip over a node with violations: the full count (the badge stops at 99+)."""
        if isinstance(event, QHelpEvent) and event.type() == QEvent.Type.ToolTip and self._gscene is not None:
            text = self.node_tooltip(QPointF(self.mapToScene(event.pos())))
            if text:
                QToolTip.showText(event.globalPos(), text, self)
            else:
                QToolTip.hideText()
            return True
        return super().viewportEvent(event)

    def node_tooltip(self, pt: QPointF) -> str:
        """The tooltip of the node at scene point `pt`: "decoder (OPTDecoder) · 113 rule violations"."""
        s = self._gscene
        nid = s.pick(pt.x(), pt.y(), tol=10.0 / max(self.zoom(), 1e-6)) if s is not None else None
        node = s.items[nid].node if nid is not None and nid in s.items else None
        if node is None or not node.violations:
            return ""
        return f"{node.label} · {count_text(node.violations, 'rule violation')}"

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        if self.groups.double_click(self.mapToScene(event.position().toPoint())):
            event.accept()
        else:
            super().mouseDoubleClickEvent(event)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        menu = self.groups.menu(self.mapToScene(event.pos()))
        if menu is not None:
            menu.exec(event.globalPos())

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._press = event.position()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        super().mouseReleaseEvent(event)
        p, self._press = self._press, None
        if p is None or event.button() != Qt.MouseButton.LeftButton or self._gscene is None:
            return
        if (event.position() - p).manhattanLength() > CLICK_SLOP:
            return                                   # that was a drag, not a click
        pt = self.mapToScene(event.position().toPoint())
        nid = self._gscene.pick(pt.x(), pt.y(), tol=4.0 / max(self.zoom(), 1e-6))
        if nid is None:
            header = self._gscene.frame_header_at(pt.x(), pt.y())
            nid = GROUP_PREFIX + header if header is not None else None
        self.select_node(nid)

    # ---- selection / search --------------------------------------------------------------------
    def selected(self) -> str | None:
        s = self._gscene
        if s is None:
            return None
        return s.selected or (GROUP_PREFIX + s.frame_selected if s.frame_selected else None)

    def select_node(self, node_id: str | None) -> bool:
        """Select (and highlight with its edges and neighbours) a node; None clears. A node
        hidden in a collapsed group is revealed first; "group:<path>" selects a group's box or,
        when it is open, its frame."""
        s = self._gscene
        if s is not None and node_id is not None and node_id not in s.items \
                and not s.open_group(node_id):
            self.groups.reveal(node_id)
            s = self._gscene
        frame = s.open_group(node_id) if s is not None else None
        if s is None or (node_id is not None and node_id not in s.items and frame is None):
            return False
        current = s.selected or (GROUP_PREFIX + s.frame_selected if s.frame_selected else None)
        if node_id != current:
            s.set_selection(None if frame else node_id)
            s.set_frame_selected(frame)
            self._crumbs.set_path(*self.groups.breadcrumbs(node_id))
            self.highlights.shared_for(node_id)
            self._legend_marks()
            self.node_selected.emit(node_id or "")
        return True

    def center_on(self, node_id: str) -> bool:
        """Select the node and scroll it to the middle, zooming in if it is not readable."""
        if not self.select_node(node_id):
            return False
        if self.zoom() < READABLE_ZOOM * 0.6:
            self.setTransform(QTransform.fromScale(READABLE_ZOOM, READABLE_ZOOM))
        s = self._gscene
        frame = s.open_group(node_id)
        box = s.frames[frame].box if frame else s.items[node_id].box
        free = self.free_rect()                   # clear of the legend, minimap and breadcrumbs
        if box.height() * self.zoom() < free.height():
            self.put(box.center(), free.center())
        else:
            self.put(QPointF(box.center().x(), box.top()), QPointF(free.center().x(), free.top() + MARGIN))
        self._update_tier()
        return True

    def anchor_of(self, node_id: str | None) -> tuple[QPointF, float] | None:
        """Where `node_id` is on screen now (viewport point of its centre) and the zoom; None
        when it is not drawn. With keep_in_view after a redraw: the user's place is kept."""
        s = self._gscene
        if s is None or node_id is None or node_id not in s.items:
            return None
        return QPointF(self.mapFromScene(s.items[node_id].box.center())), self.zoom()

    def keep_in_view(self, node_id: str, anchor: tuple[QPointF, float] | None = None) -> bool:
        """After a redraw of the same graph (another view, an applied profile, an overlay): put
        `node_id` where `anchor` says it was, at the zoom it had; if (any of) it is off screen
        then, centre it. Returns whether the view moved."""
        s = self._gscene
        if s is None or node_id not in s.items:
            return False
        box = s.items[node_id].box
        if anchor is not None:
            point, zoom = anchor
            lo, hi = self.zoom_range()
            zoom = min(max(zoom, lo), hi)
            self.setTransform(QTransform.fromScale(zoom, zoom))
            vc = QPointF(self.viewport().rect().center())
            self.centerOn(box.center() - (point - vc) / zoom)
            self._update_tier()
        if self.visible_scene_rect().contains(box):
            return anchor is not None
        self.put(box.center(), self.free_rect().center())
        self._update_tier()
        return True

    def search(self, text: str) -> list[str]:
        """Ids whose name, label or module path contains `text` (case-insensitive; the core's
        vpu_core.graph.search), in model order; they get a yellow outline (a closed group: the
        box that hides them). next_match()/prev_match() walk through them."""
        hits = self._search.find(self.full_model(), text)
        if self._gscene is not None:
            self._gscene.set_matches(self._search.drawn(self._gscene.model))
            self._legend_marks()
        return hits

    def _legend_marks(self) -> None:
        """The legend lists the outlines drawn now (shared scale, search matches), then the
        overlays are placed again (the legend's height changed)."""
        s = self._gscene
        if s is not None:
            facts = replace(self._legend.facts, shared=bool(s.shared), matches=bool(s.matches))
            if facts != self._legend.facts:
                self._legend.configure(self._theme, facts)
        self._place_overlays()

    def _step_match(self, step: int) -> str | None:
        nid = self._search.step(step)
        if nid is not None:
            self.center_on(nid)
        return nid

    def next_match(self) -> str | None:
        return self._step_match(1)

    def prev_match(self) -> str | None:
        return self._step_match(-1)

    # ---- appearance ----------------------------------------------------------------------------
    def theme(self) -> Theme:
        return self._theme

    def _set_theme(self, large: bool, contrast: bool, presentation: bool | None = None) -> None:
        if presentation is None:
            presentation = self._theme.presentation
        self._theme = Theme.make(large, contrast, self._theme.version + 1, presentation)
        if self._gscene is not None:
            self._gscene.set_theme(self._theme)
            self._legend.configure(self._theme)
            self._place_overlays()

    def show_minimap(self, on: bool) -> None:
        self._minimap_on = on
        self._minimap.setVisible(on and self._gscene is not None)

    def set_large_font(self, on: bool) -> None:
        self._set_theme(on, self._theme.high_contrast)

    def set_high_contrast(self, on: bool) -> None:
        self._set_theme(self._theme.large_font, on)

    def set_presentation(self, on: bool) -> None:
        """Presentation mode: larger bold labels, edges and outlines twice as thick, the legend
        drawn in the larger font (a projector at the back of a room)."""
        self._set_theme(self._theme.large_font, self._theme.high_contrast, on)

    def show_legend(self, on: bool) -> None:
        self._legend_on = on
        self._legend.setVisible(on and self._gscene is not None)

    def fold_legend(self, collapsed: bool) -> None:
        """Fold the canvas legend to its "Legend ▸" chip (True) or unfold it."""
        self._legend.set_collapsed(collapsed)

    def legend_collapsed(self) -> bool:
        return self._legend.collapsed

    def legend_size(self) -> QSizeF:
        """The canvas legend's size unfolded, in px."""
        return self._legend.full_size()

    def show_metric_legend(self, legend: MetricLegend | None) -> None:
        """The metric overlay's gradient under the canvas legend (None: none); for Highlights."""
        if self._gscene is not None:
            self._legend.configure(self._theme, metric=legend)
        self._place_overlays()
        self._minimap.invalidate()

    def _place_overlays(self) -> None:
        """Legend top-right, breadcrumbs top-left, minimap bottom-right (beside the scroll bar).
        The legend never covers the breadcrumbs: where both would meet, it goes below them. The
        minimap's size is capped by the canvas; the scrollable room follows the overlays."""
        vp = self.viewport().geometry()
        self._crumbs.move(vp.left() + 10, vp.top() + 10)
        x, y = vp.right() - self._legend.width() - 10, vp.top() + 10
        crumbs = self._crumbs.geometry()
        if self._crumbs.isVisibleTo(self) and crumbs.right() + 8 > x:
            y = crumbs.bottom() + 6
        self._legend.move(x, y)
        mm = self._minimap
        mm.fit_canvas(vp.width(), vp.height())
        mm.move(vp.right() - mm.width() - 10, vp.bottom() - mm.height() - 10)
        mm.setVisible(self._minimap_on and self._gscene is not None and not self._all_visible()
                      and mm.height() < vp.height() - self._legend.geometry().bottom() - 30)
        mm.raise_()
        self._apply_room()

"""GraphView: the pan/zoom canvas over a GraphScene.

Navigation: zoom stays in a useful range (never smaller than a fraction of the whole graph, never
beyond 4:1); "Fit" (F) fits the width at a legible zoom on a tall graph, "Fit all" (Shift+F)
the whole graph (app.graph_view.fit); a minimap in the bottom-right corner shows the viewport and
where violations and CPU fallbacks are. The fits and "centre on" keep the graph clear of the
legend, minimap and breadcrumbs (app.graph_view.overlays places them; overlay_room: the view's
scrollable rectangle is the graph plus that room); app.graph_view.anchor keeps the user's place
when the graph is drawn anew. With a module hierarchy (`set_graph(..., grouped=...)`) the
graph opens collapsed to the deepest level that fits the window legibly.

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

from PySide6.QtCore import QCoreApplication, QEvent, QPointF, QRect, QRectF, QSizeF, Qt, Signal
from PySide6.QtGui import QColor, QHelpEvent, QKeyEvent, QPainter, QTransform, QWheelEvent
from PySide6.QtWidgets import QGraphicsView, QWidget

from vpu_core.graph.groups import GROUP_PREFIX
from vpu_core.graph.legend import legend_facts
from vpu_core.graph.model import GraphModel
from vpu_core.layout import Layout

from . import fit as fitting
from . import interaction
from . import zoom as zooming
from .anchor import (Place, centre_box, group_top, keep_box_in_view, node_place, restore_anchor,
                     restore_group_top, view_anchor)
from .breadcrumbs import Breadcrumbs
from .group_navigator import GroupNavigator
from .highlights import Highlights
from .legend import LegendOverlay, MetricLegend
from .minimap import MiniMap
from .overlay_room import Corners, Room, room
from .overlays import apply_room, overlay_corners, place_overlays
from .scene import GraphScene
from .search_matches import SearchMatches
from .style import Theme
from .zoom import LEGIBLE  # noqa: F401  (tests read the fit's legible floor from here)

if TYPE_CHECKING:
    from PySide6.QtGui import QContextMenuEvent, QMouseEvent, QResizeEvent
    from vpu_core.layout.grouped import GroupedGraph


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
        self.room_mode = "band"                   # the room kept free at the last fit (graph_view.fit)
        self.room_partner: GraphView | None = None    # compare mode: the other side's overlays count too
        self._corner_legend: QWidget | None = None    # a legend that replaces the canvas' own (delegation)

    # ---- content ---------------------------------------------------------------------------
    def set_graph(self, model: GraphModel, layout: Layout, grouped: GroupedGraph | None = None,
                  depth: int | None = None, keep_view: bool = False,
                  opened: frozenset[str] | None = None) -> None:
        """Show `model` drawn at `layout`; replaces any previous graph.

        `grouped` (the core GroupedGraph of this graph) switches module groups on: the graph is
        drawn collapsed to `depth`, by default the deepest depth that fits the window legibly
        (the same GroupedGraph again, or one of the same model drawn another way, keeps what
        the user opened and closed). `keep_view`: the same graph anew (app.graph_view.anchor);
        `opened`: exactly these groups open (compare mode's side B follows side A).
        """
        vp = self.viewport().rect()
        anchor = view_anchor(self, self._gscene) if keep_view else None
        model, layout = self.groups.attach(grouped, model, layout, depth, vp.width(), vp.height(), opened)
        self._install(model, layout)
        # Qt shows or hides a scroll bar for the new scene through a queued call: made now, the
        # view is restored against the viewport it will have (not one scroll bar taller)
        QCoreApplication.sendPostedEvents(self, QEvent.Type.MetaCall)
        self._search.clear()
        if anchor is None or not restore_anchor(self, self._gscene, anchor):
            self._initial_view()
        self._clamp_zoom()
        self.update_tier()
        self.highlights.reapply()

    def show_regrouped(self, model: GraphModel, layout: Layout, anchor: str | None = None) -> None:
        """For GroupNavigator: show another (model, layout) of the same graph, keeping group
        `anchor` (a path) where it was on screen, and the zoom, selection and metric."""
        old = self._gscene
        keep_sel = old.selected if old is not None else None
        fixed = group_top(self, old, anchor)                      # its top centre stays put
        zoom = self.zoom()
        scene = self._install(model, layout)
        self.setTransform(self.transform().fromScale(zoom, zoom))
        if fixed is not None and anchor is not None:             # fixed: the anchor was drawn
            restore_group_top(self, scene, anchor, fixed)
        self._clamp_zoom()
        if keep_sel is not None and (keep_sel in scene.items or scene.open_group(keep_sel)):
            self.select_node(keep_sel)
        elif keep_sel is not None:
            self.node_selected.emit("")
        self.highlights.reapply()
        self.update_tier()
        self.groups_changed.emit()

    def full_model(self) -> GraphModel | None:
        """The whole graph behind the canvas, every module group open (for a flat graph: the
        model drawn); searches and highlights read it."""
        grouped, s = self.groups.grouped, self._gscene
        return grouped.flat if grouped is not None else (s.model if s is not None else None)

    def full_model_of(self, model: GraphModel) -> GraphModel:
        """The whole graph behind `model` (being installed): the grouped graph's, or itself."""
        grouped = self.groups.grouped
        return grouped.flat if grouped is not None else model

    def _install(self, model: GraphModel, layout: Layout) -> GraphScene:
        old = self._gscene
        scene = self._gscene = GraphScene(model, layout, self._theme, self)
        self.setScene(scene)
        if old is not None:
            old.deleteLater()
        self._legend.configure(self._theme, legend_facts(model, self.full_model_of(model)))
        self._legend.setVisible(self._legend_on)
        self._minimap.set_scene(self._gscene)
        self._crumbs.set_path([])
        self._place_overlays()
        self._apply_room()
        return scene

    def graph_scene(self) -> GraphScene | None:
        return self._gscene

    def first_view(self) -> None:
        """The view a new graph opens with (app.graph_view.fit.first_view)."""
        fitting.first_view(self)

    def _initial_view(self) -> None:
        """Whole graph if it is readable that way, else the width at a legible zoom, at the top
        ("readable" is LEGIBLE, where labels start to be drawn: a whole graph at 0.5 was boxes),
        scrolled to where the module groups are (app.graph_view.fit.first_view)."""
        fitting.first_view(self)

    # ---- zoom / pan --------------------------------------------------------------------------
    def zoom(self) -> float:
        return self.transform().m11()

    def zoom_by(self, factor: float, anchor: QPointF | None = None) -> None:
        """Zoom by `factor` keeping the scene point under viewport position `anchor` (default:
        the viewport centre) where it is. Done by hand: Qt's AnchorUnderMouse uses the last
        mouse-move position, which is stale for a wheel event or a scripted zoom."""
        zooming.zoom_about(self, factor, anchor)

    def graph_rect(self) -> QRectF:
        """The graph's rectangle in the scene (the view's own sceneRect() adds the overlays' room)."""
        return self._gscene.sceneRect() if self._gscene is not None else QRectF()

    def _fit_scale(self) -> float:
        return zooming.whole_graph_scale(self)

    def zoom_range(self) -> tuple[float, float]:
        """Useful zoom: from a little smaller than the whole graph to 4:1."""
        return zooming.zoom_range(self)

    def _clamp_zoom(self) -> None:
        zooming.clamp_zoom(self)

    def fit_all(self) -> None:
        """The whole graph in the view, however small that makes it, clear of the overlays."""
        fitting.fit_all(self)

    def fit(self, top: bool = False) -> None:
        """Fit the graph; a tall one by its width, at a zoom where labels stay legible
        (`top`: show its top, else stay at the current height), clear of the overlays."""
        fitting.fit(self, top)

    # ---- room for the overlays (overlay_room) ---------------------------------------------------
    def corners(self, minimap: bool | None = None) -> Corners:
        """The overlays this canvas draws, in viewport pixels; `minimap`: whether to count the
        minimap (None: as drawn now)."""
        if minimap is None:
            minimap = self._minimap.isVisibleTo(self)
        return overlay_corners(self, (self._legend, self._corner_legend), self._crumbs, self._minimap,
                               minimap and self._minimap_on)

    def room(self, mode: str | None = None, minimap: bool | None = None) -> Room:
        """The viewport pixels the graph is kept out of (with the compare partner's overlays)."""
        mode = mode or self.room_mode
        got = room(self.corners(minimap), mode)
        if self.room_partner is not None:
            got = got.union(room(self.room_partner.corners(minimap), mode))
        return got

    def free_rect(self) -> QRectF:
        """The part of the viewport no overlay covers at the fit (where fits and centre_on go)."""
        return self.room().free(QRectF(self.viewport().rect()))

    def _apply_room(self) -> None:
        if self._gscene is not None:
            apply_room(self, self.graph_rect(), self.room())

    def setTransform(self, matrix: QTransform, combine: bool = False) -> None:   # every zoom comes here
        super().setTransform(matrix, combine)
        self._apply_room()

    def put(self, scene_point: QPointF, viewport_point: QPointF) -> None:
        """Scroll so that `scene_point` is drawn at `viewport_point` (as far as scrolling can)."""
        zooming.scroll_to(self, scene_point, viewport_point)

    def set_corner_legend(self, widget: QWidget | None) -> None:
        """Another legend in the top-right corner instead of the canvas' own (the XNNPACK
        delegation's): the fits keep the graph clear of it too."""
        self._corner_legend = widget

    def wheelEvent(self, event: QWheelEvent) -> None:
        interaction.wheel_zoom(self, event)

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        self.update_tier()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_overlays()
        self.update_tier()

    def _all_visible(self) -> bool:
        return self.visible_scene_rect().adjusted(-2, -2, 2, 2).contains(self.graph_rect())

    def _jump(self, pt: QPointF) -> None:
        self.centerOn(pt)
        self.update_tier()

    def visible_scene_rect(self) -> QRectF:
        return self.mapToScene(self.viewport().rect()).boundingRect()

    def update_tier(self) -> None:
        s = self._gscene
        if s is not None and self._minimap_on:
            self._minimap.set_viewport(self.visible_scene_rect())
            self._place_overlays()
        if s is not None:
            zooming.choose_tier(s, self.visible_scene_rect())

    # ---- keyboard / mouse ----------------------------------------------------------------------
    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not interaction.key_action(self, event) and not self.groups.key_press(event):
            super().keyPressEvent(event)

    def viewportEvent(self, event: QEvent) -> bool:
        """A hover tooltip over a node with violations: the full count (the badge stops at 99+)."""
        if isinstance(event, QHelpEvent) and event.type() == QEvent.Type.ToolTip and self._gscene is not None:
            interaction.show_tooltip(self, event)
            return True
        return super().viewportEvent(event)

    def node_tooltip(self, pt: QPointF) -> str:
        """The tooltip of the node at scene point `pt`: "decoder (OPTDecoder) · 113 rule violations"."""
        return interaction.node_tooltip(self._gscene, pt, self.zoom())

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
        if self._gscene is not None and interaction.is_click(p, event):     # not a drag
            self.select_node(interaction.clicked_id(self._gscene, self.mapToScene(event.position().toPoint()),
                                                    self.zoom()))

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
        s = self._gscene                   # after selecting: opening the node's groups installs a new scene
        if s is None:
            return False
        frame = s.open_group(node_id)
        centre_box(self, s.frames[frame].box if frame else s.items[node_id].box)
        return True

    def anchor_of(self, node_id: str | None) -> Place | None:
        """Where `node_id` is on screen now (viewport point of its centre) and the zoom; None
        when it is not drawn. With keep_in_view after a redraw: the user's place is kept."""
        return node_place(self, self._gscene, node_id)

    def keep_in_view(self, node_id: str, anchor: Place | None = None) -> bool:
        """After a redraw of the same graph (another view, an applied profile, an overlay): put
        `node_id` where `anchor` says it was, at the zoom it had; if (any of) it is off screen
        then, centre it. Returns whether the view moved."""
        s = self._gscene
        if s is None or node_id not in s.items:
            return False
        return keep_box_in_view(self, s.items[node_id].box, anchor)

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

    def legend_geometry(self) -> QRect | None:
        """The canvas legend's rectangle in viewport pixels while it is shown unfolded, else None."""
        if self._legend.collapsed or not self._legend.isVisibleTo(self):
            return None
        vp = self.viewport().geometry()
        return self._legend.geometry().translated(-vp.x(), -vp.y())

    def legend_size(self) -> QSizeF:
        """The canvas legend's size unfolded, in px."""
        return self._legend.full_size()

    def show_metric_legend(self, legend: MetricLegend | None) -> None:
        """The metric overlay's gradient under the canvas legend (None: none); for Highlights."""
        selected = self.selected()
        place = self.anchor_of(selected)
        if self._gscene is not None:
            facts = replace(self._legend.facts, by_metric=legend is not None)
            self._legend.configure(self._theme, facts, metric=legend)
        self._place_overlays()
        if place is not None and selected is not None:   # the legend's new size moved the room:
            self.keep_in_view(selected, place)            # the selection stays where it was
        self._minimap.invalidate()

    def _place_overlays(self) -> None:
        """Legend top-right, breadcrumbs top-left, minimap bottom-right (beside the scroll bar).
        The legend never covers the breadcrumbs: where both would meet, it goes below them. The
        minimap's size is capped by the canvas; the scrollable room follows the overlays."""
        place_overlays(self, self._crumbs, self._legend, self._minimap,
                       self._minimap_on and self._gscene is not None and not self._all_visible())
        self._apply_room()

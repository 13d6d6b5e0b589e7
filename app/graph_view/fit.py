"""Fitting the graph in a GraphView: "Fit" (F) and "Fit all" (Shift+F), clear of the overlays.

"Fit all" shows the whole graph however small that makes it; "Fit" shows a tall graph by its
width at a zoom where labels stay legible (LEGIBLE), a short one whole. Both first pick the
overlay room (app.graph_view.overlay_room) that draws the graph largest, then keep the graph
clear of the legend, minimap and breadcrumbs. Functions of the view: it keeps the state (the
room mode, the transform), these compute the zoom and where the graph goes. The zoom range
and zooming by hand are app.graph_view.zoom.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QTransform

from .overlay_room import MARGIN, MODES, best_mode, fit_scale
from .zoom import LEGIBLE, ZOOM_MIN, whole_graph_scale

if TYPE_CHECKING:
    from app.graph_view.view import GraphView

FIT_MAX = 1.5                  # "Fit" never magnifies beyond this
FIT_ALL_MAX = 2.0              # "Fit all" never magnifies a small graph beyond this


def fit_all(view: GraphView) -> None:
    """The whole graph in the view, however small that makes it, clear of the overlays."""
    if view.graph_scene() is None:
        return
    free = choose_room(view, whole=True)
    s = min(max(fit_scale(view.graph_rect(), free, True), ZOOM_MIN), FIT_ALL_MAX)
    view.setTransform(QTransform.fromScale(s, s))
    view.put(view.graph_rect().center(), view.free_rect().center())
    view.update_tier()


def fit(view: GraphView, top: bool = False) -> None:
    """Fit the graph; a tall one by its width, at a zoom where labels stay legible
    (`top`: show its top, else stay at the current height), clear of the overlays."""
    if view.graph_scene() is None:
        return
    if whole_graph_scale(view) >= LEGIBLE:
        fit_all(view)
        return
    r, v = view.graph_rect(), view.viewport().rect()
    y = view.mapToScene(v.center()).y()
    free = choose_room(view, whole=False)
    s = min(max(fit_scale(r, free, False), LEGIBLE), FIT_MAX)
    view.setTransform(QTransform.fromScale(s, s))
    free = view.free_rect()
    if top:
        view.put(QPointF(r.center().x(), r.top() - MARGIN / s), QPointF(free.center().x(), free.top()))
    else:                                    # scrolling stops at the graph's ends (and its room)
        view.put(QPointF(r.center().x(), y), QPointF(free.center().x(), v.center().y()))
    view.update_tier()


def choose_room(view: GraphView, whole: bool) -> QRectF:
    """Pick the room that draws the graph largest (for a fit), for the view and its compare
    partner; returns its free rectangle. For the whole graph the minimap is left out: it hides
    when all of the graph is seen."""
    vp = QRectF(view.viewport().rect())
    rooms = {m: view.room(m, minimap=not whole) for m in MODES}
    lo, hi = (ZOOM_MIN, FIT_ALL_MAX) if whole else (LEGIBLE, FIT_MAX)
    view.room_mode = best_mode(rooms, view.graph_rect(), vp, whole, lo, hi)
    if view.room_partner is not None:
        view.room_partner.room_mode = view.room_mode
    return rooms[view.room_mode].free(vp)

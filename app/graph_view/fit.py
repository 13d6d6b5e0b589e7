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
FIRST_MAX = 1.0                # a new graph opens at 1:1 at most: a narrow one shows its
                               # structure, not five huge boxes


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


def first_view(view: GraphView) -> None:
    """A new graph's first view: the whole graph when it is legible that way, else its width
    at a legible zoom (never above 1:1) scrolled to where its structure is: the window of the
    screen's height holding the most closed module groups, the topmost of those (a top of
    mask arithmetic scrolls down to the transformer blocks below it), centred on them
    sideways when the graph is wider than the screen.

    Presentation mode always opens at 1:1: fitted, a small graph was zoomed out so far that
    its larger labels were no larger on screen than the default view's (and shapes and op
    labels were not drawn at all). Its larger legend then starts folded to its chip when,
    unfolded, it would cover a node of that first view (a click or L unfolds it)."""
    s = view.graph_scene()
    if s is None:
        return
    presentation = view.theme().presentation
    if whole_graph_scale(view) >= LEGIBLE and not presentation:
        fit_all(view)
        return
    _place_first(view, presentation)
    if presentation and legend_covers_nodes(view):
        view.fold_legend(True)                 # the room changes with the legend: place anew
        _place_first(view, presentation)


def _place_first(view: GraphView, presentation: bool) -> None:
    s = view.graph_scene()
    assert s is not None
    r = view.graph_rect()
    free = choose_room(view, whole=False)
    z = FIRST_MAX if presentation else min(max(fit_scale(r, free, False), LEGIBLE), FIRST_MAX)
    view.setTransform(QTransform.fromScale(z, z))
    free = view.free_rect()
    boxes = [it.box for it in s.items.values() if it.node.category == "group"]
    top, x = structure_window([(b.top(), b.bottom(), b.center().x()) for b in boxes],
                              r.top() - MARGIN / z, free.height() / z)
    if r.width() * z <= free.width() or x is None:
        x = r.center().x()
    view.put(QPointF(x, top), QPointF(free.center().x(), free.top()))
    view.update_tier()


def legend_covers_nodes(view: GraphView) -> bool:
    """Whether the unfolded canvas legend is drawn over a node box now on screen."""
    legend, s = view.legend_geometry(), view.graph_scene()
    if legend is None or s is None:
        return False
    vp = view.viewport().rect()
    for it in s.items.values():
        box = view.mapFromScene(it.box).boundingRect()
        if box.intersects(vp) and box.intersects(legend):
            return True
    return False


def structure_window(boxes: list[tuple[float, float, float]], top: float,
                     height: float) -> tuple[float, float | None]:
    """(scene y of the window's top, centre x of the boxes in it) for the window `height` tall
    holding the most (top, bottom, centre x) boxes whole, the topmost such, starting at `top` or
    a box's top; (top, None) when no box fits in a window."""
    best, best_top, best_x = 0, top, None
    for start in sorted({top, *(t - 12.0 for t, _, _ in boxes if t - 12.0 > top)}):
        inside = [x for t, b, x in boxes if t >= start and b <= start + height]
        if len(inside) > best:
            best, best_top, best_x = len(inside), start, (min(inside) + max(inside)) / 2.0
    return best_top, best_x


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

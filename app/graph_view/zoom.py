"""The zoom of a GraphView: its useful range, zooming about a point, and the level of detail
it implies (items, or the scene's pre-rendered overview when too many nodes would be visible).

Functions of the view: it keeps the transform; these decide the scale and what stays in place.
Fitting the graph (which zoom shows it whole or by its width) is app.graph_view.fit.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QTransform

from .overlay_room import fit_scale

if TYPE_CHECKING:
    from PySide6.QtWidgets import QGraphicsView

    from app.graph_view.scene import GraphScene
    from app.graph_view.view import GraphView

ZOOM_MIN, ZOOM_MAX = 1e-4, 4.0
ZOOM_OUT_SLACK = 0.75          # zoom out at most to 3/4 of the "whole graph" scale
LEGIBLE = 0.6                  # "Fit" never goes below this on a tall graph: labels stay readable
OVERVIEW_ENTER, OVERVIEW_LEAVE = 1000, 700    # visible nodes (items mode stays < ~8 ms)


def viewport_centre(view: QGraphicsView) -> QPointF:
    """The viewport's exact centre (QRect.center() lies half a pixel up and left of it)."""
    vp = view.viewport()
    return QPointF(vp.width() / 2.0, vp.height() / 2.0)


def scene_at(view: QGraphicsView, viewport_point: QPointF) -> QPointF:
    """The scene point drawn at `viewport_point`, unrounded (mapToScene takes whole pixels)."""
    return view.viewportTransform().inverted()[0].map(QPointF(viewport_point))


def scroll_to(view: QGraphicsView, scene_point: QPointF, viewport_point: QPointF) -> None:
    """Scroll so that `scene_point` is drawn at `viewport_point`, to the nearest pixel (as far as
    scrolling can). By the scroll bars, not QGraphicsView.centerOn: that one truncates, so a node
    put back in place after every redraw crept a pixel down and right each time."""
    now = view.viewportTransform().map(QPointF(scene_point))
    h, v = view.horizontalScrollBar(), view.verticalScrollBar()
    h.setValue(h.value() + round(now.x() - viewport_point.x()))
    v.setValue(v.value() + round(now.y() - viewport_point.y()))


def whole_graph_scale(view: GraphView) -> float:
    """The zoom at which the whole graph fits the viewport (a MARGIN all round, overlays ignored)."""
    if view.graph_scene() is None:
        return 1.0
    return fit_scale(view.graph_rect(), QRectF(view.viewport().rect()), whole=True)


def zoom_range(view: GraphView) -> tuple[float, float]:
    """Useful zoom: from a little smaller than the whole graph to 4:1."""
    lo = min(max(whole_graph_scale(view) * ZOOM_OUT_SLACK, ZOOM_MIN), LEGIBLE)
    return lo, ZOOM_MAX


def clamp_zoom(view: GraphView) -> None:
    """Bring the zoom back into zoom_range(), keeping the viewport's centre."""
    lo, hi = zoom_range(view)
    if not lo <= view.zoom() <= hi:
        z = min(max(view.zoom(), lo), hi)
        centre = viewport_centre(view)
        c = scene_at(view, centre)
        view.setTransform(QTransform.fromScale(z, z))
        scroll_to(view, c, centre)


def zoom_about(view: GraphView, factor: float, anchor: QPointF | None = None) -> None:
    """Zoom by `factor` (within zoom_range) keeping the scene point under viewport position
    `anchor` (default: the viewport centre) where it is. Done by hand: Qt's AnchorUnderMouse uses
    the last mouse-move position, which is stale for a wheel event or a scripted zoom."""
    lo, hi = zoom_range(view)
    target = min(max(view.zoom() * factor, lo), hi)
    pos = anchor if anchor is not None else viewport_centre(view)
    fixed = scene_at(view, pos)
    view.setTransform(QTransform.fromScale(target, target))
    view.put(fixed, pos)
    view.update_tier()


def choose_tier(scene: GraphScene, visible: QRectF) -> None:
    """Items or the overview image for the nodes in `visible`; the hysteresis between
    OVERVIEW_ENTER and OVERVIEW_LEAVE avoids flip-flopping while panning across dense and
    sparse regions."""
    if len(scene.ids) <= OVERVIEW_LEAVE:
        return
    n = scene.count_in(visible)
    scene.set_overview_mode(n > (OVERVIEW_LEAVE if scene.overview_mode else OVERVIEW_ENTER))

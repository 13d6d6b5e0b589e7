"""Keeping the user's place on a GraphView.

When the same graph is drawn anew (a prediction replaced by its quantized analysis: the same node
ids, more Q/DQ nodes) the zoom stays, and the selected node — or the node nearest the viewport's
centre — stays where it was on screen (view_anchor, restore_anchor). A caller that redraws itself
(another view, an applied profile, an overlay) notes a node's place (node_place) and puts it back
(keep_box_in_view); "centre on" scrolls a node to the middle (centre_box); regrouping keeps a
group box's top centre where it was (group_top, restore_group_top).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QPointF, QRectF
from PySide6.QtGui import QTransform

from .zoom import zoom_range
from .overlay_room import MARGIN

if TYPE_CHECKING:
    from app.graph_view.scene import GraphScene
    from app.graph_view.view import GraphView

Anchor = tuple[str, QPoint, float]      # node id, its centre on screen, the zoom
Place = tuple[QPointF, float]           # a node's centre on screen (viewport point), the zoom
READABLE_ZOOM = 1.0                     # centre_box zooms in to at least this


def view_anchor(view: GraphView, scene: GraphScene | None) -> Anchor | None:
    """What to keep in place: the selected node, else the node nearest the viewport's centre."""
    if scene is None or not scene.items:
        return None
    node = scene.selected if scene.selected in scene.items else None
    if node is None:
        c = view.mapToScene(view.viewport().rect().center())
        node = min(scene.items, key=lambda i: _distance2(scene.items[i].box.center(), c))
    return node, view.mapFromScene(scene.items[node].box.center()), view.zoom()


def restore_anchor(view: GraphView, scene: GraphScene | None, anchor: Anchor) -> bool:
    """Zoom back and put the anchor node where it was; False when the new graph does not draw it."""
    node, pos, zoom = anchor
    item = scene.items.get(node) if scene is not None else None
    if item is None:
        return False
    view.setTransform(QTransform.fromScale(zoom, zoom))
    view.put(item.box.center(), QPointF(pos))
    return True


def node_place(view: GraphView, scene: GraphScene | None, node_id: str | None) -> Place | None:
    """Where `node_id` is on screen now (viewport point of its centre) and the zoom; None when
    it is not drawn."""
    if scene is None or node_id is None or node_id not in scene.items:
        return None
    return view.viewportTransform().map(scene.items[node_id].box.center()), view.zoom()   # unrounded


def keep_box_in_view(view: GraphView, box: QRectF, place: Place | None) -> bool:
    """Put `box` where `place` says it was, at the zoom it had (within the useful range); if
    (any of) it is off screen then, centre it. Returns whether the view moved."""
    if place is not None:
        point, zoom = place
        lo, hi = zoom_range(view)
        zoom = min(max(zoom, lo), hi)
        view.setTransform(QTransform.fromScale(zoom, zoom))
        view.put(box.center(), point)
        view.update_tier()
    if view.visible_scene_rect().contains(box):
        return place is not None
    view.put(box.center(), view.free_rect().center())
    view.update_tier()
    return True


def centre_box(view: GraphView, box: QRectF) -> None:
    """Scroll `box` to the middle of the part no overlay covers, zooming in if it is not
    readable; a box taller than that part shows its top."""
    if view.zoom() < READABLE_ZOOM * 0.6:
        view.setTransform(QTransform.fromScale(READABLE_ZOOM, READABLE_ZOOM))
    free = view.free_rect()                   # clear of the legend, minimap and breadcrumbs
    if box.height() * view.zoom() < free.height():
        view.put(box.center(), free.center())
    else:
        view.put(QPointF(box.center().x(), box.top()), QPointF(free.center().x(), free.top() + MARGIN))
    view.update_tier()


def group_top(view: GraphView, scene: GraphScene | None, path: str | None) -> QPoint | None:
    """Where the top centre of group `path`'s box is on screen (None: not drawn)."""
    r = scene.group_box(path) if path is not None and scene is not None else None
    return view.mapFromScene(QPointF(r.center().x(), r.top())) if r is not None else None


def restore_group_top(view: GraphView, scene: GraphScene, path: str, fixed: QPoint) -> None:
    """Scroll so that group `path`'s top centre is at viewport point `fixed` again (at the
    view's current zoom)."""
    r = scene.group_box(path)
    if r is not None:
        view.put(QPointF(r.center().x(), r.top()), QPointF(fixed))


def _distance2(a: QPointF, b: QPointF) -> float:
    return (a.x() - b.x()) ** 2 + (a.y() - b.y()) ** 2

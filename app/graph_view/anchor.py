"""Keep the view when the same graph is drawn anew (a prediction replaced by its quantized analysis:
the same node ids, more Q/DQ nodes): the zoom stays, and the selected node — or the node nearest
the viewport's centre — stays where it was on screen."""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, QPointF
from PySide6.QtGui import QTransform

if TYPE_CHECKING:
    from app.graph_view.scene import GraphScene
    from app.graph_view.view import GraphView

Anchor = tuple[str, QPoint, float]      # node id, its centre on screen, the zoom


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
    centre = QPointF(view.viewport().rect().center())
    view.centerOn(item.box.center() - (QPointF(pos) - centre) / zoom)
    return True


def _distance2(a: QPointF, b: QPointF) -> float:
    return (a.x() - b.x()) ** 2 + (a.y() - b.y()) ** 2

"""Where a GraphView's overlays go and what they cover: the legend top-right, the breadcrumbs
top-left, the minimap bottom-right (place_overlays); the pixels they take (overlay_corners,
the input of app.graph_view.overlay_room); and the view's scrollable rectangle, widened by the
room kept free of them (apply_room). Widgets in, positions out: the view owns the widgets.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF

from .overlay_room import MARGIN, Corners, Room, widened
from .zoom import scene_at, scroll_to, viewport_centre

if TYPE_CHECKING:
    from PySide6.QtWidgets import QGraphicsView, QWidget

    from .minimap import MiniMap

EDGE = int(MARGIN)  # px between an overlay and the viewport's edge (the fit's room assumes MARGIN)


def place_overlays(view: QGraphicsView, crumbs: QWidget, legend: QWidget, minimap: MiniMap,
                   minimap_wanted: bool) -> None:
    """Legend top-right, breadcrumbs top-left, minimap bottom-right (beside the scroll bar).
    The legend never covers the breadcrumbs: where both would meet, it goes below them. The
    minimap's size is capped by the canvas; it shows when `minimap_wanted` and it fits below
    the legend."""
    vp = view.viewport().geometry()
    crumbs.move(vp.left() + EDGE, vp.top() + EDGE)
    x, y = vp.right() - legend.width() - EDGE, vp.top() + EDGE
    crumbs_box = crumbs.geometry()
    if crumbs.isVisibleTo(view) and crumbs_box.right() + 8 > x:
        y = crumbs_box.bottom() + 6
    legend.move(x, y)
    minimap.fit_canvas(vp.width(), vp.height())
    minimap.move(vp.right() - minimap.width() - EDGE, vp.bottom() - minimap.height() - EDGE)
    minimap.setVisible(minimap_wanted and minimap.height() < vp.height() - legend.geometry().bottom() - 30)
    minimap.raise_()


def overlay_corners(view: QGraphicsView, legends: tuple[QWidget | None, ...], crumbs: QWidget,
                    minimap: MiniMap, count_minimap: bool) -> Corners:
    """The overlays drawn on `view`, in viewport pixels: the first visible of `legends`, the
    breadcrumbs, and the minimap when `count_minimap`."""
    vp = view.viewport().geometry()
    legend = next((w for w in legends if w is not None and w.isVisibleTo(view)), None)
    return Corners(legend_w=legend.width() if legend is not None else 0.0,
                   legend_bottom=legend.geometry().bottom() - vp.top() if legend is not None else 0.0,
                   minimap_w=minimap.width() if count_minimap else 0.0,
                   crumbs_bottom=crumbs.geometry().bottom() - vp.top() if crumbs.isVisibleTo(view) else 0.0)


def apply_room(view: QGraphicsView, graph: QRectF, room: Room) -> None:
    """The scrollable rectangle: the graph plus the room at the current zoom. Set only when it
    moved by more than half a pixel, keeping what the user looks at in the middle."""
    zoom = view.transform().m11()
    want = widened(graph, room, zoom)
    have = view.sceneRect()
    if max(abs(want.left() - have.left()), abs(want.top() - have.top()),
           abs(want.right() - have.right()), abs(want.bottom() - have.bottom())) * zoom > 0.5:
        middle = viewport_centre(view)
        centre = scene_at(view, middle)
        view.setSceneRect(want)
        scroll_to(view, centre, middle)       # the room changed, not what the user looks at

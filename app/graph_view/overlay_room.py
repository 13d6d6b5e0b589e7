"""Room for the canvas overlays: the fit and "centre on" keep the graph clear of them.

The legend sits in the canvas' top-right corner, the minimap in the bottom-right one, the
breadcrumbs top-left. A fit keeps one of two rooms free of graph (`rooms`):

* "band":   a band at the top down to the legend's bottom (and the breadcrumbs), plus a column
            as wide as the minimap on the right when the minimap is shown;
* "column": a column on the right as wide as the legend or the minimap, plus the breadcrumbs'
            band at the top.

`best_mode` takes the one at which the graph is drawn largest (a tall graph: usually the band,
which scrolls away with the graph's top; a wide short one: the column). The view then widens
its scrollable rectangle by the room (app.graph_view.overlays.apply_room), so the graph can be placed, and
scrolled, clear of the overlays. Geometry only: no widgets here.
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QRectF

MARGIN = 10.0               # px between an overlay and the viewport's edge, and the graph
MODES = ("band", "column")


@dataclass(frozen=True)
class Room:
    """Viewport pixels kept free of graph: a band at the top, a column on the right."""

    top: float = 0.0
    right: float = 0.0

    def free(self, viewport: QRectF) -> QRectF:
        """The part of `viewport` the graph may use."""
        return QRectF(viewport).adjusted(0.0, self.top, -self.right, 0.0)

    def union(self, other: Room) -> Room:
        return Room(max(self.top, other.top), max(self.right, other.right))


@dataclass(frozen=True)
class Corners:
    """The overlays drawn on a canvas, in viewport pixels (0: not shown)."""

    legend_w: float = 0.0
    legend_bottom: float = 0.0      # from the viewport's top (below the breadcrumbs if they meet)
    minimap_w: float = 0.0
    crumbs_bottom: float = 0.0


def room(corners: Corners, mode: str) -> Room:
    """The room `mode` ("band" or "column") keeps for these overlays."""
    crumbs = corners.crumbs_bottom + MARGIN if corners.crumbs_bottom else 0.0
    minimap = corners.minimap_w + 2 * MARGIN if corners.minimap_w else 0.0
    legend_w = corners.legend_w + 2 * MARGIN if corners.legend_w else 0.0
    legend_h = corners.legend_bottom + MARGIN if corners.legend_w else 0.0
    if mode == "band":
        return Room(max(crumbs, legend_h), minimap)
    return Room(crumbs, max(legend_w, minimap))


def fit_scale(graph: QRectF, free: QRectF, whole: bool) -> float:
    """The zoom that fits `graph` in `free` with a margin: its width, or (`whole`) all of it."""
    sx = (free.width() - 2 * MARGIN) / max(graph.width(), 1.0)
    if not whole:
        return sx
    return min(sx, (free.height() - 2 * MARGIN) / max(graph.height(), 1.0))


def best_mode(rooms: dict[str, Room], graph: QRectF, viewport: QRectF, whole: bool,
              lo: float, hi: float) -> str:
    """The mode whose room draws `graph` largest at a zoom within [lo, hi]; a tie (a narrow
    graph at the largest zoom, a wide one at the legible floor): the band, which scrolls away
    with the graph's top (the column would stay beside it while panning)."""
    def scale(m: str) -> float:
        return min(max(fit_scale(graph, rooms[m].free(viewport), whole), lo), hi)

    return "band" if scale("band") >= scale("column") - 1e-9 else "column"


def widened(graph: QRectF, room: Room, zoom: float) -> QRectF:
    """The view's scrollable rectangle: the graph plus the room, in scene units at `zoom`."""
    z = max(zoom, 1e-9)
    return QRectF(graph).adjusted(0.0, -room.top / z, room.right / z, 0.0)

"""Edges, drawn in batches.

One item per edge would double the item count and the per-frame Python calls, so edges
are grouped into horizontal bands (by where they start); each band item holds one cached
QPainterPath per style (normal, VPU<->CPU boundary) plus one for its arrowheads, and
paints them with three calls. The BSP index then only has to find a handful of bands.
The selected node's edges are re-drawn on top by a HighlightItem.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Sequence

import math
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem

from vpu_core.layout import EdgeRoute

from .style import BOUNDARY, SELECT, Theme

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

BAND_H = 1200.0      # scene px per band: a screenful at 1:1, so 1-3 bands per frame
ARROW_L, ARROW_W = 7.0, 3.5
LOD_ARROWS = 0.5 - 1e-6          # Qt's level of detail is a hair under the zoom


def polyline_path(path: QPainterPath, pts: Sequence[tuple[float, float]]) -> None:
    path.addPolygon(QPolygonF([QPointF(x, y) for x, y in pts]))   # an open sub-path


def arrow_path(path: QPainterPath, pts: Sequence[tuple[float, float]]) -> None:
    """A filled triangle at the end of the polyline, pointing along its last segment."""
    (x0, y0), (x1, y1) = pts[-2], pts[-1]
    dx, dy = x1 - x0, y1 - y0
    n = math.hypot(dx, dy) or 1.0
    ux, uy = dx / n, dy / n
    bx, by = x1 - ux * ARROW_L, y1 - uy * ARROW_L
    path.addPolygon(QPolygonF([QPointF(x1, y1), QPointF(bx - uy * ARROW_W, by + ux * ARROW_W),
                               QPointF(bx + uy * ARROW_W, by - ux * ARROW_W), QPointF(x1, y1)]))


@dataclass(frozen=True)
class _BandPaths:
    """One band's edges as four paths: each style's lines and its arrowheads."""

    normal: QPainterPath
    boundary: QPainterPath             # VPU<->CPU boundary edges
    arrows: QPainterPath
    boundary_arrows: QPainterPath


class EdgeBandItem(QGraphicsItem):
    """The edges starting in one horizontal band. Paths are built on first paint, so
    opening a big graph only pays for the bands that are actually looked at."""

    def __init__(self, routes: list[EdgeRoute], bounds: QRectF, theme_ref: Callable[[], Theme]) -> None:
        super().__init__()
        self.routes = routes
        self.theme_ref = theme_ref            # callable -> current Theme
        self._bounds = bounds
        self._paths: _BandPaths | None = None   # built on the first paint

    def boundingRect(self) -> QRectF:
        return self._bounds

    def ensure_paths(self) -> _BandPaths:
        if self._paths is not None:
            return self._paths
        paths = self._paths = _BandPaths(QPainterPath(), QPainterPath(), QPainterPath(), QPainterPath())
        for e in self.routes:
            if e.boundary:
                polyline_path(paths.boundary, e.points)
                arrow_path(paths.boundary_arrows, e.points)
            else:
                polyline_path(paths.normal, e.points)
                arrow_path(paths.arrows, e.points)
        return paths

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        paths = self.ensure_paths()
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        theme: Theme = self.theme_ref()
        painter.setBrush(Qt.BrushStyle.NoBrush)
        if not paths.normal.isEmpty():
            painter.setPen(theme.edge_pen(lod))
            painter.drawPath(paths.normal)
        if not paths.boundary.isEmpty():
            painter.setPen(theme.boundary_pen(lod))
            painter.drawPath(paths.boundary)
        if lod >= LOD_ARROWS:
            painter.setPen(Qt.PenStyle.NoPen)
            if not paths.arrows.isEmpty():
                painter.setBrush(theme.edge_brush())
                painter.drawPath(paths.arrows)
            if not paths.boundary_arrows.isEmpty():
                painter.setBrush(QBrush(QColor(BOUNDARY)))
                painter.drawPath(paths.boundary_arrows)


def build_bands(edges: tuple[EdgeRoute, ...], theme_ref: Callable[[], Theme], width: float) -> list[EdgeBandItem]:
    """Group edges by the band their first point falls in. A band's bounds span the whole
    width and the y range of its edges' end points (plus room for self-loops and arrows):
    cheap to compute, and a band is only ever a few screens wide anyway."""
    groups: dict[int, list[EdgeRoute]] = {}
    for e in edges:
        if len(e.points) >= 2:
            groups.setdefault(int(e.points[0][1] // BAND_H), []).append(e)
    items = []
    for key in sorted(groups):
        routes = groups[key]
        ys = [e.points[0][1] for e in routes] + [e.points[-1][1] for e in routes]
        y0, y1 = min(ys) - 12.0, max(ys) + 12.0
        items.append(EdgeBandItem(routes, QRectF(-20.0, y0, width + 40.0, y1 - y0), theme_ref))
    return items


LOD_LABELS = 0.7 - 1e-6


class EdgeLabelItem(QGraphicsItem):
    """Labels of folded Q/DQ edges (dtype and scale) just below their source, with a red count
    where the folded quantize / dequantize broke rules. One item per band, like the edges."""

    def __init__(self, labels: list[tuple[float, float, str, int]], bounds: QRectF,
                 theme_ref: Callable[[], Theme]) -> None:
        super().__init__()
        self.labels = labels                   # (x, y, text, violations)
        self.theme_ref = theme_ref
        self._bounds = bounds
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        if lod < LOD_LABELS and not any(v for *_, v in self.labels):
            return
        theme: Theme = self.theme_ref()
        painter.setFont(theme.detail_font)
        for x, y, text, viol in self.labels:
            tx = x + 4.0
            if viol:
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(QBrush(QColor("#e53935")))
                painter.drawEllipse(QPointF(x, y + 8.0), 5.5, 5.5)
                tx += 6.0
            if lod >= LOD_LABELS and text:
                painter.setPen(QColor("#5b636d"))
                painter.drawText(QRectF(tx, y + 1.0, 160.0, 14.0),
                                 Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)


def build_labels(edges: tuple[EdgeRoute, ...], texts: dict, theme_ref: Callable[[], Theme],
                 width: float) -> list[EdgeLabelItem]:
    """`texts`: (src, dst) -> (text, violations) of the edges that carry a label. Edges from one
    source carry one tensor: its label is drawn once."""
    groups: dict[int, dict] = {}
    for e in edges:
        got = texts.get((e.src, e.dst))
        if got is None or len(e.points) < 2:
            continue
        x, y = e.points[0]
        key = (e.src, got[0])
        band = groups.setdefault(int(y // BAND_H), {})
        old = band.get(key)
        band[key] = (x, y, got[0], max(got[1], old[3]) if old else got[1])
    items = []
    for band_index in sorted(groups):
        labels = list(groups[band_index].values())
        ys = [l[1] for l in labels]
        items.append(EdgeLabelItem(labels, QRectF(-20.0, min(ys) - 8.0, width + 200.0,
                                                  max(ys) - min(ys) + 30.0), theme_ref))
    return items


class HighlightItem(QGraphicsItem):
    """The selected node's input and output edges, drawn thick on top of the others."""

    def __init__(self) -> None:
        super().__init__()
        self.path = QPainterPath()
        self.arrows = QPainterPath()
        self._bounds = QRectF()
        self.pen = QPen(QColor(SELECT), 2.6)
        self.pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        self.cosmetic = QPen(QColor(SELECT), 2.0)
        self.cosmetic.setCosmetic(True)
        self.brush = QBrush(QColor(SELECT))
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def set_edges(self, edges: list[EdgeRoute]) -> None:
        self.prepareGeometryChange()
        self.path, self.arrows = QPainterPath(), QPainterPath()
        for e in edges:
            if len(e.points) >= 2:
                polyline_path(self.path, e.points)
                arrow_path(self.arrows, e.points)
        self._bounds = self.path.boundingRect().united(self.arrows.boundingRect()).adjusted(
            -4.0, -4.0, 4.0, 4.0)
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if self.path.isEmpty():
            return
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(self.pen if lod >= 0.8 else self.cosmetic)
        painter.drawPath(self.path)
        if lod >= LOD_ARROWS:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self.brush)
            painter.drawPath(self.arrows)

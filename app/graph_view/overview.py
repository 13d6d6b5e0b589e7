"""Far-zoomed-out drawing: a numpy raster at screen resolution instead of thousands of items.

When a frame would show thousands of nodes, even a one-call paint() per node costs tens of
milliseconds in Python, and at that scale a node is a few pixels anyway. The view then
hides the node and edge items and shows this single item, which rasterises the visible part
of the graph directly into a screen-sized numpy array: edges as 1-px lines (sampled
segments), nodes as filled rectangles of at least 2x1 px in their category colour, CPU
fallback and violations drawn last so they stay visible however far out one zooms. Cost is
bounded by the viewport's pixel count, not by the graph: a few ms per frame at 20k nodes.
Selection and search matches are drawn over it with cosmetic pens.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterable

import numpy as np
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem

from .style import BOUNDARY, MATCH, SELECT, VIOLATION

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

MAX_SPLAT = 16             # px: bigger nodes mean we are zoomed in enough for real items
MAX_EDGE_SAMPLES = 3_000_000
PRIORITY = {"param": 0, "qdq": 1, "io": 2, "vpu": 3, "cpu": 4}


def argb(c: QColor) -> int:
    return 0xFF000000 | (c.red() << 16) | (c.green() << 8) | c.blue()


class Raster:
    """Node boxes and edge segments as arrays, rasterised on demand."""

    def __init__(self, boxes: np.ndarray, colors: np.ndarray, priority: np.ndarray,
                 violations: np.ndarray, segments: np.ndarray, seg_boundary: np.ndarray) -> None:
        order = np.lexsort((violations > 0, priority))       # warm and red land on top
        self.x0, self.y0 = boxes[order, 0], boxes[order, 1]
        self.x1, self.y1 = self.x0 + boxes[order, 2], self.y0 + boxes[order, 3]
        self.colors = colors[order]
        self.colors[violations[order] > 0] = argb(QColor(VIOLATION))
        self.seg = segments                                   # (m, 4): x0 y0 x1 y1
        self.seg_color = np.where(seg_boundary, np.uint32(argb(QColor(BOUNDARY))),
                                  np.uint32(0xFFB4B9BF))

    def render(self, rect: QRectF, w: int, h: int) -> np.ndarray:
        """ARGB32 pixels (h, w) of scene `rect` drawn into w x h pixels."""
        img = np.full((h, w), 0xFFFFFFFF, dtype=np.uint32)
        sx, sy = w / max(rect.width(), 1e-9), h / max(rect.height(), 1e-9)
        ox, oy = rect.x(), rect.y()
        self._edges(img, sx, sy, ox, oy)
        self._nodes(img, sx, sy, ox, oy)
        return img

    def _edges(self, img, sx, sy, ox, oy) -> None:
        if not len(self.seg):
            return
        h, w = img.shape
        a = (self.seg[:, 0] - ox) * sx, (self.seg[:, 1] - oy) * sy
        b = (self.seg[:, 2] - ox) * sx, (self.seg[:, 3] - oy) * sy
        vis = ((np.maximum(a[0], b[0]) >= 0) & (np.minimum(a[0], b[0]) < w)
               & (np.maximum(a[1], b[1]) >= 0) & (np.minimum(a[1], b[1]) < h))
        ax, ay, bx, by = a[0][vis], a[1][vis], b[0][vis], b[1][vis]
        n = np.ceil(np.maximum(np.abs(bx - ax), np.abs(by - ay))).astype(np.int64) + 1
        total = int(n.sum())
        if total > MAX_EDGE_SAMPLES:                      # keep the frame time bounded
            n = np.maximum(1, (n * (MAX_EDGE_SAMPLES / total)).astype(np.int64))
        seg = np.repeat(np.arange(len(n)), n)
        start = np.repeat(np.cumsum(n) - n, n)
        t = (np.arange(len(seg)) - start) / np.maximum(n[seg] - 1, 1)
        px = (ax[seg] + t * (bx - ax)[seg]).astype(np.int64)
        py = (ay[seg] + t * (by - ay)[seg]).astype(np.int64)
        ok = (px >= 0) & (px < w) & (py >= 0) & (py < h)
        img[py[ok], px[ok]] = self.seg_color[vis][seg[ok]]

    def _nodes(self, img, sx, sy, ox, oy) -> None:
        h, w = img.shape
        x0 = np.floor((self.x0 - ox) * sx).astype(np.int64)
        y0 = np.floor((self.y0 - oy) * sy).astype(np.int64)
        nw = np.clip(np.ceil((self.x1 - self.x0) * sx).astype(np.int64), 2, MAX_SPLAT)
        nh = np.clip(np.ceil((self.y1 - self.y0) * sy).astype(np.int64), 1, MAX_SPLAT)
        vis = (x0 + nw > 0) & (x0 < w) & (y0 + nh > 0) & (y0 < h)
        x0, y0, nw, nh, col = x0[vis], y0[vis], nw[vis], nh[vis], self.colors[vis]
        if not len(x0):
            return
        n = nw * nh                                      # every pixel of every box at once
        idx = np.repeat(np.arange(len(n)), n)
        k = np.arange(len(idx)) - np.repeat(np.cumsum(n) - n, n)
        px = x0[idx] + k % nw[idx]
        py = y0[idx] + k // nw[idx]
        ok = (px >= 0) & (px < w) & (py >= 0) & (py < h)
        img[py[ok], px[ok]] = col[idx[ok]]               # later (warmer) nodes win


class OverviewItem(QGraphicsItem):
    def __init__(self, scene_rect: QRectF, make_raster: Callable[[], Raster],
                 boxes_of: Callable[[Iterable[str]], list[QRectF]]) -> None:
        """make_raster() -> Raster (built on first use); boxes_of(ids) -> QRectFs."""
        super().__init__()
        self._rect = QRectF(scene_rect)
        self._make_raster = make_raster
        self._boxes_of = boxes_of
        self.raster: Raster | None = None
        self.selected: list[str] = []
        self.matches: list[str] = []
        self._sel_pen = QPen(QColor(SELECT), 3.0)
        self._sel_pen.setCosmetic(True)
        self._match_pen = QPen(QColor(MATCH), 3.0)
        self._match_pen.setCosmetic(True)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
        # exposedRect lets paint() rasterise only what is being repainted
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption, True)

    def boundingRect(self) -> QRectF:
        return self._rect

    def invalidate(self) -> None:
        """Colours changed (theme): rebuild the arrays on the next paint."""
        self.raster = None
        self.update()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if self.raster is None:
            self.raster = self._make_raster()
        ex = option.exposedRect.intersected(self._rect)
        if ex.isEmpty():
            return
        dev = painter.worldTransform().mapRect(ex)
        w, h = max(1, int(round(dev.width()))), max(1, int(round(dev.height())))
        pixels = self.raster.render(ex, w, h)
        img = QImage(pixels.data, w, h, 4 * w, QImage.Format.Format_ARGB32)
        painter.drawImage(ex, img)                         # 1:1 blit, no resampling
        lod = option.levelOfDetailFromTransform(painter.worldTransform()) or 1.0
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for ids, pen in ((self.matches, self._match_pen), (self.selected, self._sel_pen)):
            if ids:
                painter.setPen(pen)
                for r in self._boxes_of(ids):
                    # at least a few device pixels, or a small node would vanish
                    pw = max(0.0, 8.0 / lod - r.width()) / 2.0
                    ph = max(0.0, 8.0 / lod - r.height()) / 2.0
                    painter.drawRect(r.adjusted(-pw, -ph, pw, ph))

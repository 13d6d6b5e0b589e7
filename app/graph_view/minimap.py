"""The minimap: the whole graph in a corner of the canvas, the viewport on it as a rectangle,
violations (red) and CPU fallbacks (amber) marked so they can be found from afar. Click or drag
on it to move the view there.

It reuses the scene's overview raster (numpy, screen-resolution), drawn once per graph and size,
so it costs one small image blit per frame. Its size is capped by the canvas (`fit_canvas`): at
most a fifth of its width and a third of its height, so on a short canvas it stays small, and the
view's fit keeps the graph clear of it (GraphView.free_rect).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen
from PySide6.QtWidgets import QWidget

from .style import CPU_FILL, VIOLATION

if TYPE_CHECKING:
    from .scene import GraphScene
    from PySide6.QtGui import QMouseEvent, QPaintEvent

MAX_W, MAX_H, MIN_W, MIN_H = 180, 260, 36, 24
SHARE_W, SHARE_H = 0.2, 0.34    # at most this share of the canvas' width / height
MARK = 3.0          # px: half size of a violation / CPU mark


def minimap_size(scene: QRectF, canvas_w: float, canvas_h: float) -> tuple[int, int]:
    """The minimap's picture size for a scene rectangle on a canvas of that size: the scene's
    shape within MAX_W × MAX_H and within SHARE_W / SHARE_H of the canvas (never below MIN_W ×
    MIN_H: a thin strip for a very tall graph)."""
    max_w = min(MAX_W, SHARE_W * canvas_w)
    max_h = min(MAX_H, SHARE_H * canvas_h)
    scale = min(max_w / max(scene.width(), 1.0), max_h / max(scene.height(), 1.0))
    w = int(max(MIN_W, min(max_w, scene.width() * scale)))
    h = int(max(MIN_H, min(max_h, scene.height() * scale)))
    return w, h


class MiniMap(QWidget):
    jump_to = Signal(QPointF)           # scene point to centre on

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self._scene: GraphScene | None = None
        self._image: QImage | None = None
        self._pixels: Any = None            # the raster's pixels (kept alive while the QImage uses them)
        self._viewport = QRectF()
        self._marks: list[tuple[float, float, QColor]] = []
        self._canvas = (1e9, 1e9)           # the canvas (viewport) size the size is capped by
        self.hide()

    # ---- content --------------------------------------------------------------------------------
    def set_scene(self, scene: GraphScene | None) -> None:
        self._scene = scene
        self._image = None
        self._marks = []
        if scene is None:
            self.hide()
            return
        self._resize(scene)

    def fit_canvas(self, width: float, height: float) -> None:
        """Cap the size by the canvas' (viewport's) size; called on every resize of the view."""
        if (width, height) != self._canvas:
            self._canvas = (width, height)
            if self._scene is not None:
                self._resize(self._scene)

    def _resize(self, scene: GraphScene) -> None:
        w, h = minimap_size(scene.sceneRect(), *self._canvas)
        if (w + 2, h + 2) != (self.width(), self.height()):
            self._image = None
            self.resize(w + 2, h + 2)
        self.update()

    def set_viewport(self, rect: QRectF) -> None:
        self._viewport = QRectF(rect)
        self.update()

    def invalidate(self) -> None:
        self._image = None
        self.update()

    def _map(self, scene: GraphScene) -> tuple[float, float, float, float]:
        r = scene.sceneRect()
        return (r.x(), r.y(), (self.width() - 2) / max(r.width(), 1.0),
                (self.height() - 2) / max(r.height(), 1.0))

    def _render(self, s: GraphScene) -> QImage:
        w, h = self.width() - 2, self.height() - 2
        raster = s.overview.raster
        if raster is None:
            raster = s.overview.raster = s._make_raster()
        self._pixels = raster.render(s.sceneRect(), w, h)
        image = self._image = QImage(self._pixels.data, w, h, 4 * w, QImage.Format.Format_ARGB32)
        ox, oy, sx, sy = self._map(s)
        marks = []
        for nid, it in s.items.items():
            n = it.node
            rules = n.violations and s.model.meta.get("badges", "violations") == "violations"
            if rules or n.category == "cpu":
                c = it.box.center()
                marks.append(((c.x() - ox) * sx + 1, (c.y() - oy) * sy + 1,
                              QColor(VIOLATION) if rules else QColor(CPU_FILL)))
        marks.sort(key=lambda m: m[2].name() == QColor(VIOLATION).name())   # red on top
        self._marks = marks
        return image

    # ---- painting and input -----------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        scene = self._scene
        if scene is None:
            return
        image = self._image if self._image is not None else self._render(scene)
        p = QPainter(self)
        p.fillRect(self.rect(), QColor("#ffffff"))
        p.drawImage(1, 1, image)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setPen(Qt.PenStyle.NoPen)
        for x, y, c in self._marks:
            p.setBrush(c)
            p.drawEllipse(QPointF(x, y), MARK, MARK)
        ox, oy, sx, sy = self._map(scene)
        v = self._viewport
        rect = QRectF((v.x() - ox) * sx + 1, (v.y() - oy) * sy + 1, v.width() * sx, v.height() * sy)
        rect = rect.intersected(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5))
        p.setBrush(QColor(25, 118, 210, 40))
        p.setPen(QPen(QColor("#1976d2"), 1.5))
        p.drawRect(rect)
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.setPen(QPen(QColor("#9aa0a6"), 1.0))
        p.drawRect(QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5))
        p.end()

    def _jump(self, pos) -> None:
        if self._scene is None:
            return
        ox, oy, sx, sy = self._map(self._scene)
        self.jump_to.emit(QPointF((pos.x() - 1) / sx + ox, (pos.y() - 1) / sy + oy))

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._jump(event.position())
        event.accept()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._jump(event.position())
        event.accept()

    def marks(self) -> int:
        """Number of violation / CPU marks drawn (for tests)."""
        if self._image is None and self._scene is not None:
            self._render(self._scene)
        return len(self._marks)


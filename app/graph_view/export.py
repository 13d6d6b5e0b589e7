"""Headless export of the graph view to .png or .svg.

`render_to_image` draws the WHOLE graph with the legend in a column to its right (so the
legend never hides a node); `render_view_to_image` saves what a GraphView shows right now.
Works without a display (QT_QPA_PLATFORM=offscreen is chosen when none is available).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import os
from pathlib import Path

from PySide6.QtCore import QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QImage, QPainter

from vpu_core.graph.model import GraphModel
from vpu_core.layout import Layout

from vpu_core.graph.legend import legend_facts

from .legend import legend_size, paint_legend
from .scene import GraphScene
from .style import Theme

if TYPE_CHECKING:
    from app.graph_view.view import GraphView
    from PySide6.QtCore import QCoreApplication

MAX_SIDE = 30_000          # QImage / raster engine comfort limit per side
MAX_PIXELS = 64_000_000    # 256 MB of ARGB32 at most
LEGEND_GAP = 16.0

_app = None


def ensure_app() -> QCoreApplication:
    """A Q(Gui)Application for painting text, with the bundled fonts; created offscreen if there
    is no display."""
    global _app
    from PySide6.QtWidgets import QApplication

    from app import fonts
    app = QApplication.instance()
    if app is None:
        if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
            os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = _app = QApplication([])
        fonts.install(app)
    fonts.register()
    return app


def _svg_generator():
    from PySide6.QtSvg import QSvgGenerator     # part of PySide6-Essentials
    return QSvgGenerator()


def png_scale(layout: Layout, scale: float, extra_w: float) -> float:
    """`scale`, reduced if the image would exceed MAX_SIDE or MAX_PIXELS."""
    w, h = max(layout.width, 1.0), max(layout.height, 1.0)
    s = min(scale, MAX_SIDE / (w + extra_w), MAX_SIDE / h)
    if (w * s + extra_w) * (h * s) > MAX_PIXELS:
        s = min(s, (MAX_PIXELS / (w * h)) ** 0.5 * 0.98)
    return s


def render_to_image(model: GraphModel, layout: Layout, path: str | os.PathLike,
                    scale: float = 1.0, legend: bool = True, theme: Theme | None = None) -> dict:
    """Render the whole graph to `path` (.png or .svg). Returns {"path", "scale", "size"};
    for PNG the scale is lowered when the full-size image would be too large."""
    ensure_app()
    path = Path(path)
    theme = theme or Theme.make()
    scene = GraphScene(model, layout, theme)
    facts = legend_facts(model)
    lsize = legend_size(theme, facts) if legend else None
    extra_w = (lsize.width() + 2 * LEGEND_GAP) if lsize else 0.0
    svg = path.suffix.lower() == ".svg"
    s = scale if svg else png_scale(layout, scale, extra_w)
    gw, gh = layout.width * s, layout.height * s
    W = int(gw + extra_w + 0.5)
    H = int(max(gh, (lsize.height() + 2 * LEGEND_GAP) if lsize else 0.0) + 0.5)
    if svg:
        gen = _svg_generator()
        gen.setFileName(str(path))
        gen.setSize(QSize(W, H))
        gen.setViewBox(QRect(0, 0, W, H))
        gen.setTitle(model.title or "graph")
        gen.setDescription("VPU Inspector graph view")
        device = gen
    else:
        device = QImage(max(W, 1), max(H, 1), QImage.Format.Format_ARGB32_Premultiplied)
        device.fill(QColor("#ffffff"))
    p = QPainter(device)
    p.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
    if svg:
        p.fillRect(QRectF(0, 0, W, H), QColor("#ffffff"))
    scene.render(p, QRectF(0, 0, gw, gh), scene.sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)
    if lsize:
        paint_legend(p, QPointF(gw + LEGEND_GAP, LEGEND_GAP), theme, facts)
    p.end()
    if not svg and not device.save(str(path)):
        raise OSError(f"could not write {path}")
    return {"path": str(path), "scale": s, "size": (W, H)}


def render_view_to_image(view: GraphView, path: str | os.PathLike) -> dict:
    """Save the current viewport of a GraphView (with its legend) to .png or .svg."""
    ensure_app()
    path = Path(path)
    vp = view.viewport()
    if path.suffix.lower() == ".svg":
        gen = _svg_generator()
        gen.setFileName(str(path))
        gen.setSize(vp.size())
        gen.setViewBox(QRect(0, 0, vp.width(), vp.height()))
        p = QPainter(gen)
        p.fillRect(QRectF(0, 0, vp.width(), vp.height()), QColor("#ffffff"))
        view.render(p, QRectF(0, 0, vp.width(), vp.height()), vp.rect())
        scene = view.graph_scene()
        if scene is not None and view._legend.isVisible():
            pos = view._legend.geometry().topLeft() - vp.geometry().topLeft()
            lg = view._legend
            paint_legend(p, QPointF(pos), view.theme(), lg.facts, lg.gradient)
        p.end()
    else:
        img = view.grab(vp.geometry())          # includes the legend overlay
        if not img.save(str(path)):
            raise OSError(f"could not write {path}")
    return {"path": str(path), "size": (vp.width(), vp.height())}

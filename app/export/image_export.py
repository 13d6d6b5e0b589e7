"""Image export of what the window shows: the current view or the whole graph, PNG or SVG.

A single graph coloured by the VPU partition goes through the canvas' own exporters
(`render_view_to_image`, `render_to_image`). Compare mode (two graphs) and the XNNPACK overlay
(another legend) are composed here from the same pieces: a GraphScene per graph rendered whole,
or the on-screen widgets rendered with QWidget.render (vector output for SVG). Every file is
written atomically through vpu_core.files.atomic_write (temp file beside the target + rename).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from pathlib import Path

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, QSize, QSizeF, Qt
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QRegion, QTextDocument
from PySide6.QtWidgets import QWidget

from vpu_core.errors import InspectorError
from vpu_core.files import check_output_path

if TYPE_CHECKING:
    from app.graph_view.style import Theme
    from app.graph_view.view import GraphView
    from vpu_core.graph.model import GraphModel
    from vpu_core.layout.types import Layout

IMAGE_SUFFIXES = (".png", ".svg")
MAX_SIDE, MAX_PIXELS = 30_000, 64_000_000
GAP, TITLE_H = 24.0, 30.0


class ImageExportError(InspectorError):
    """The image could not be written (bad suffix, folder, or disk)."""


def check_image_path(path: str | Path) -> Path:
    return check_output_path(path, IMAGE_SUFFIXES, "an image")


def check_screenshot_path(path: str | Path) -> Path:
    return check_output_path(path, (".png",), "a screenshot")


def write_atomically(path: Path, write: Callable[[Path], object]) -> Path:
    """`write(tmp_path)` into a temp file beside `path`, then rename it into place."""
    from vpu_core.files import atomic_write

    try:
        atomic_write(path, write)
    except OSError as exc:
        raise ImageExportError(f"Cannot write {path}: {exc.strerror or exc}.") from None
    return path


def _svg(path: Path, size: QSize, title: str):
    from PySide6.QtSvg import QSvgGenerator

    # SVG 1.1, not the default SVG Tiny 1.2: only 1.1 output keeps clip paths, and without them
    # a canvas' nodes would spill over the headers and the neighbouring pane.
    version = getattr(QSvgGenerator, "SvgVersion", None)
    gen = QSvgGenerator(version.Svg11) if version is not None else QSvgGenerator()
    gen.setFileName(str(path))
    gen.setSize(size)
    gen.setViewBox(QRect(0, 0, size.width(), size.height()))
    gen.setTitle(title)
    gen.setDescription("VPU Inspector graph view")
    return gen


def _paint_to(path: Path, size: QSize, title: str, paint) -> None:
    """Open a painter on a PNG image or an SVG generator of `size`, call paint(painter), save."""
    svg = path.suffix.lower() == ".svg"
    device = _svg(path, size, title) if svg else QImage(size, QImage.Format.Format_ARGB32_Premultiplied)
    if not svg:
        device.fill(QColor("#ffffff"))
    painter = QPainter(device)
    painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
    if svg:
        painter.fillRect(QRectF(0, 0, size.width(), size.height()), QColor("#ffffff"))
    paint(painter)
    painter.end()
    if not svg and not device.save(str(path)):
        raise OSError(f"could not write {path}")


# -- the current view ----------------------------------------------------------------------------

def export_widget(widget: QWidget, path: Path, title: str = "graph view", rect: QRect | None = None,
                  views: tuple = (), labels: tuple = ()) -> Path:
    """What `widget` shows in `rect` (all of it by default), as on screen: a screen grab for PNG;
    for SVG the `views` (GraphViews inside `widget`, each clipped to its viewport, with the
    legends floating over it) and the `labels` (headers) drawn as vectors."""
    path = check_image_path(path)
    rect = rect or widget.rect()

    def write(tmp: Path) -> None:
        if tmp.suffix.lower() == ".png":
            if not widget.grab(rect).save(str(tmp)):
                raise OSError(f"could not write {tmp}")
            return
        _paint_to(tmp, rect.size(), title, lambda p: _compose(p, widget, rect, views, labels))
    return write_atomically(path, write)


def _compose(painter: QPainter, root: QWidget, rect: QRect, views, labels) -> None:
    """Vector drawing of views and labels at their places in `root` (QWidget.render alone would
    not clip a view's scene to its viewport in SVG output; an explicit clip rect does)."""
    def offset(w: QWidget) -> QPoint:
        return w.mapTo(root, QPoint(0, 0)) - rect.topLeft()

    def draw(widget: QWidget) -> None:   # an explicit clip: the SVG engine misses render's own
        painter.save()
        painter.setClipRect(QRect(offset(widget), widget.size()))
        QWidget.render(widget, painter, offset(widget), QRegion(), QWidget.RenderFlag.DrawChildren)
        painter.restore()

    for label in labels:      # QLabel clips in its own coordinates, which SVG output misplaces
        doc = QTextDocument()
        doc.setDefaultFont(label.font())
        doc.setHtml(label.text())
        painter.save()
        painter.translate(QPointF(offset(label)) + QPointF(6, (label.height() - doc.size().height()) / 2))
        doc.drawContents(painter)
        painter.restore()
    for view in views:
        vp = view.viewport()
        target = QRectF(QPointF(offset(vp)), QSizeF(vp.size()))
        painter.save()
        painter.setClipRect(target)
        view.render(painter, target, vp.rect())                  # the scene as the view shows it
        painter.restore()
        for child in view.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly):
            if child is vp or not child.isVisible() or child.objectName().startswith("qt_scrollarea"):
                continue                                          # legends, not scroll bars
            draw(child)


def export_view(view: GraphView, path: Path) -> Path:
    """One GraphView's viewport with the canvas legend (the canvas' own exporter)."""
    from app.graph_view import render_view_to_image

    path = check_image_path(path)
    return write_atomically(path, lambda tmp: render_view_to_image(view, tmp))


# -- the whole graph -----------------------------------------------------------------------------

def export_graph(model: GraphModel, layout: Layout, path: Path, theme: Theme) -> Path:
    """One whole graph with the canvas legend (the canvas' own exporter)."""
    from app.graph_view import render_to_image

    path = check_image_path(path)
    return write_atomically(path, lambda tmp: render_to_image(model, layout, tmp, theme=theme))


def export_panels(panels: list[dict], path: Path, theme: Theme, title: str = "graph") -> Path:
    """Whole graphs side by side, each with a title line above and its legend to its right.

    panels: [{"model", "layout", "title", "legend": paint(painter, QPointF top_left),
    "legend_size": QSizeF}] — the legend is painted by the caller's function.
    """
    from app.graph_view import GraphScene

    path = check_image_path(path)
    scenes = [GraphScene(p["model"], p["layout"], theme) for p in panels]
    widths = [p["layout"].width + GAP + p["legend_size"].width() for p in panels]
    heights = [TITLE_H + max(p["layout"].height, p["legend_size"].height()) for p in panels]
    total_w = sum(widths) + GAP * (len(panels) + 1)
    total_h = max(heights) + 2 * GAP
    scale = 1.0
    if path.suffix.lower() == ".png":
        scale = min(1.5, MAX_SIDE / total_w, MAX_SIDE / total_h, (MAX_PIXELS / (total_w * total_h)) ** 0.5)
    size = QSize(int(total_w * scale + 0.5), int(total_h * scale + 0.5))

    def paint(painter: QPainter) -> None:
        painter.scale(scale, scale)
        font = QFont(theme.label_font)
        font.setPixelSize(int(theme.label_font.pixelSize() * 1.5))
        font.setBold(True)
        x = GAP
        for panel, scene, width in zip(panels, scenes, widths):
            painter.setFont(font)
            painter.setPen(QColor("#1b1f23"))
            painter.drawText(QRectF(x, GAP, width, TITLE_H), Qt.AlignmentFlag.AlignLeft
                             | Qt.AlignmentFlag.AlignVCenter, panel["title"])
            lay = panel["layout"]
            target = QRectF(x, GAP + TITLE_H, lay.width, lay.height)
            scene.render(painter, target, scene.sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)
            panel["legend"](painter, QPointF(target.right() + GAP, target.top()))
            x += width + GAP

    write_atomically(path, lambda tmp: _paint_to(tmp, size, title, paint))
    for scene in scenes:
        scene.deleteLater()
    return path

"""The legend: categories, the boundary edge style and the violation badge.

Painted in device (viewport or image) coordinates by `paint_legend`, shared by the
on-screen overlay widget and the exporters so both always agree.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QLinearGradient, QPainter, QPen
from PySide6.QtWidgets import QWidget

from .style import Theme, legend_entries

if TYPE_CHECKING:
    from PySide6.QtGui import QPaintEvent

PAD, SWATCH_W, SWATCH_H, GAP = 8.0, 22.0, 12.0, 6.0


def _font(theme: Theme) -> QFont:
    f = QFont(theme.label_font)
    f.setBold(False)
    return f


@dataclass(frozen=True)
class MetricLegend:
    """The gradient of a metric overlay: title, the values at its two ends, which end is bad."""

    title: str
    low_text: str            # value at the left end of the bar
    high_text: str
    neutral: bool            # no good/bad direction (blues)
    worst_left: bool = True  # the gradient's worst end is drawn on the left


def legend_size(theme: Theme, subgraphs: int, groups: bool = False,
                metric: MetricLegend | None = None) -> QSizeF:
    size = rows_size(theme, legend_entries(theme, subgraphs, groups))
    if metric is not None:
        m = metric_legend_size(theme, metric)
        size = QSizeF(max(size.width(), m.width()), size.height() + GAP + m.height())
    return size


def paint_legend(painter: QPainter, top_left: QPointF, theme: Theme, subgraphs: int,
                 groups: bool = False, metric: MetricLegend | None = None) -> QRectF:
    """Draw the legend box with its top-left corner at `top_left` (device coordinates); the
    metric overlay's gradient goes below it."""
    box = paint_rows(painter, top_left, theme, legend_entries(theme, subgraphs, groups))
    if metric is not None:
        m = paint_metric_legend(painter, QPointF(box.left(), box.bottom() + GAP), theme, metric)
        box = box.united(m)
    return box


def metric_legend_size(theme: Theme, metric: MetricLegend) -> QSizeF:
    fm = QFontMetricsF(_font(theme))
    text_w = max(fm.horizontalAdvance(metric.title) + 10, 190.0)
    return QSizeF(2 * PAD + text_w, 2 * PAD + fm.height() * 2 + 14.0 + 6.0)


def paint_metric_legend(painter: QPainter, top_left: QPointF, theme: Theme,
                        metric: MetricLegend) -> QRectF:
    from .style import gradient

    painter.save()
    font = _font(theme)
    fm = QFontMetricsF(font)
    size = metric_legend_size(theme, metric)
    box = QRectF(top_left, size)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(QPen(QColor("#9aa0a6"), 1.0))
    painter.setBrush(QBrush(QColor(255, 255, 255, 235)))
    painter.drawRoundedRect(box, 6.0, 6.0)
    bold = QFont(font)
    bold.setBold(True)
    painter.setFont(bold)
    painter.setPen(QColor("#1b1f23"))
    y = box.top() + PAD
    painter.drawText(QRectF(box.left() + PAD, y, size.width(), fm.height()),
                     Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, metric.title)
    y += fm.height() + 4.0
    bar = QRectF(box.left() + PAD, y, size.width() - 2 * PAD, 14.0)
    grad = QLinearGradient(bar.topLeft(), bar.topRight())
    stops = gradient(metric.neutral)
    for i, c in enumerate(stops):
        grad.setColorAt(i / (len(stops) - 1), QColor(c))
    painter.setPen(QPen(QColor("#41484f"), 0.8))
    painter.setBrush(QBrush(grad))
    painter.drawRect(bar)
    painter.setFont(font)
    y = bar.bottom() + 3.0
    left, right = metric.low_text, metric.high_text
    if not metric.neutral:
        left, right = f"{left} (worse)", f"{right} (better)"
    painter.drawText(QRectF(bar.left(), y, bar.width(), fm.height()),
                     Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, left)
    painter.drawText(QRectF(bar.left(), y, bar.width(), fm.height()),
                     Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, right)
    painter.restore()
    return box


def rows_size(theme: Theme, rows: list, title: str | None = None) -> QSizeF:
    """Size of a legend box of (kind, text, colour) rows, plus a bold title line if given."""
    fm = QFontMetricsF(_font(theme))
    line_h = max(fm.height(), SWATCH_H) + 3.0
    text_w = max(fm.horizontalAdvance(t) for _, t, _ in rows)
    if title:
        bold = _font(theme)
        bold.setBold(True)
        text_w = max(text_w, QFontMetricsF(bold).horizontalAdvance(title) - SWATCH_W - GAP)
    lines = len(rows) + (1 if title else 0)
    return QSizeF(2 * PAD + SWATCH_W + GAP + text_w, 2 * PAD + line_h * lines)


def paint_rows(painter: QPainter, top_left: QPointF, theme: Theme, rows: list,
               title: str | None = None) -> QRectF:
    """Any legend box in the canvas' style: the on-screen legend, exports and overlays share it."""
    painter.save()
    font = _font(theme)
    fm = QFontMetricsF(font)
    size = rows_size(theme, rows, title)
    box = QRectF(top_left, size)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(QPen(QColor("#9aa0a6"), 1.0))
    painter.setBrush(QBrush(QColor(255, 255, 255, 235)))
    painter.drawRoundedRect(box, 6.0, 6.0)
    line_h = max(fm.height(), SWATCH_H) + 3.0
    y = box.top() + PAD
    if title:
        bold = QFont(font)
        bold.setBold(True)
        painter.setFont(bold)
        painter.setPen(QColor("#1b1f23"))
        painter.drawText(QRectF(box.left() + PAD, y, size.width(), line_h),
                         Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, title)
        y += line_h
    painter.setFont(font)
    for kind, text, color in rows:
        sw = QRectF(box.left() + PAD, y + (line_h - SWATCH_H) / 2.0, SWATCH_W, SWATCH_H)
        _paint_swatch(painter, kind, sw, color)
        painter.setPen(QColor("#1b1f23"))
        painter.drawText(QRectF(sw.right() + GAP, y, size.width(), line_h),
                         Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, text)
        y += line_h
    painter.restore()
    return box


def _paint_swatch(painter: QPainter, kind: str, sw: QRectF, color) -> None:
    if kind == "box":
        painter.setPen(QPen(QColor("#41484f"), 1.0))
        painter.setBrush(QBrush(color))
        painter.drawRoundedRect(sw, 3.0, 3.0)
    elif kind == "group":
        painter.setPen(QPen(QColor("#5f6b7a"), 1.2))
        painter.setBrush(QBrush(color))
        painter.drawRoundedRect(sw.adjusted(0, -2, 0, 2), 3.0, 3.0)
        half = sw.width() * 0.6
        bar = QRectF(sw.left() + 2, sw.bottom() - 3, sw.width() - 4, 3)
        painter.fillRect(QRectF(bar.left(), bar.top(), half, bar.height()), QColor("#6cc58a"))
        painter.fillRect(QRectF(bar.left() + half, bar.top(), bar.width() - half, bar.height()),
                         QColor("#f4a640"))
    elif kind == "edge":
        painter.setPen(QPen(color, 3.0, Qt.PenStyle.DashLine))
        painter.drawLine(QPointF(sw.left(), sw.center().y()), QPointF(sw.right(), sw.center().y()))
    else:
        painter.setPen(QPen(QColor("#ffffff"), 1.0))
        painter.setBrush(QBrush(color))
        painter.drawEllipse(sw.center(), 7.0, 7.0)
        painter.drawText(QRectF(sw.center().x() - 7, sw.center().y() - 7, 14, 14),
                         Qt.AlignmentFlag.AlignCenter, "n")


class LegendOverlay(QWidget):
    """Legend floating over the view's viewport. A child of the view, not of its viewport,
    so scrolling (which blits the viewport and its children) never drags it along."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.theme = Theme.make()
        self.subgraphs = 1
        self.groups = False
        self.gradient: MetricLegend | None = None   # not "metric": that is QPaintDevice.metric()
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground, True)

    def configure(self, theme: Theme, subgraphs: int, groups: bool | None = None,
                  metric: MetricLegend | None | bool = False) -> None:
        """`groups` / `metric` left out keep what they were."""
        self.theme, self.subgraphs = theme, subgraphs
        if groups is not None:
            self.groups = groups
        if not isinstance(metric, bool):
            self.gradient = metric
        s = legend_size(theme, subgraphs, self.groups, self.gradient)
        self.resize(int(s.width()) + 2, int(s.height()) + 2)
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        paint_legend(p, QPointF(0.5, 0.5), self.theme, self.subgraphs, self.groups, self.gradient)
        p.end()

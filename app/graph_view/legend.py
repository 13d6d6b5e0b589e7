"""The legend: one row per colour the picture uses (vpu_core.graph.legend.LegendFacts), and a
metric overlay's gradient that states its clipping and the true worst value.

Painted in device (viewport or image) coordinates by `paint_legend`, shared by the
on-screen overlay widget and the exporters so both always agree. On screen the legend folds to
a one-line "Legend ▸" chip (a click on it, or L on the canvas, toggles it).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSizeF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QLinearGradient, QPainter, QPen
from PySide6.QtWidgets import QWidget

from vpu_core.graph.legend import LegendFacts

from .style import ACCELERATOR_FILL, FRAME_EDGE, REMOVED_FILL, SHARED, Theme, legend_entries

if TYPE_CHECKING:
    from PySide6.QtGui import QMouseEvent, QPaintEvent

PAD, SWATCH_W, SWATCH_H, GAP = 8.0, 22.0, 12.0, 6.0


def _font(theme: Theme) -> QFont:
    f = QFont(theme.label_font)
    f.setBold(False)
    return f


@dataclass(frozen=True)
class MetricLegend:
    """The gradient of a metric overlay: title, the values at its two ends (worst on the left),
    a note that states any clipping and the true worst value, whether some ops have no value."""

    title: str
    low_text: str            # value at the left end of the bar, "(worse)" included
    high_text: str
    neutral: bool            # no good/bad direction (blues)
    note: str = ""           # "5th–95th percentile shown: 3 ops beyond · worst 3.52 dB"
    no_value: bool = False   # some ops are drawn in the no-value grey


def legend_size(theme: Theme, facts: LegendFacts, metric: MetricLegend | None = None,
                title: str | None = None) -> QSizeF:
    size = rows_size(theme, legend_entries(theme, facts), title)
    if metric is not None:
        m = metric_legend_size(theme, metric)
        size = QSizeF(max(size.width(), m.width()), size.height() + GAP + m.height())
    return size


def paint_legend(painter: QPainter, top_left: QPointF, theme: Theme, facts: LegendFacts,
                 metric: MetricLegend | None = None, title: str | None = None) -> QRectF:
    """Draw the legend box with its top-left corner at `top_left` (device coordinates), with a
    bold `title` line if given; the metric overlay's gradient goes below it."""
    box = paint_rows(painter, top_left, theme, legend_entries(theme, facts), title)
    if metric is not None:
        m = paint_metric_legend(painter, QPointF(box.left(), box.bottom() + GAP), theme, metric)
        box = box.united(m)
    return box


def _metric_lines(metric: MetricLegend) -> int:
    return 2 + bool(metric.note) + metric.no_value


def metric_legend_size(theme: Theme, metric: MetricLegend) -> QSizeF:
    fm = QFontMetricsF(_font(theme))
    ends = fm.horizontalAdvance(f"{metric.low_text}    {metric.high_text}")
    text_w = max(fm.horizontalAdvance(metric.title) + 10, fm.horizontalAdvance(metric.note),
                 ends, fm.horizontalAdvance("op without a value") + SWATCH_W + GAP, 190.0)
    return QSizeF(2 * PAD + text_w, 2 * PAD + fm.height() * _metric_lines(metric) + 14.0 + 6.0
                  + 3.0 * (_metric_lines(metric) - 2))


def paint_metric_legend(painter: QPainter, top_left: QPointF, theme: Theme,
                        metric: MetricLegend) -> QRectF:
    from .style import NO_VALUE, gradient

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
    line = QRectF(bar.left(), y, bar.width(), fm.height())
    painter.drawText(line, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, metric.low_text)
    painter.drawText(line, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, metric.high_text)
    if metric.note:
        y += fm.height() + 3.0
        painter.setPen(QColor("#5b636d"))
        painter.drawText(QRectF(bar.left(), y, bar.width(), fm.height()),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, metric.note)
    if metric.no_value:
        y += fm.height() + 3.0
        sw = QRectF(bar.left(), y + (fm.height() - SWATCH_H) / 2.0, SWATCH_W, SWATCH_H)
        _paint_swatch(painter, "box", sw, QColor(NO_VALUE))
        painter.setPen(QColor("#1b1f23"))
        painter.drawText(QRectF(sw.right() + GAP, y, bar.width(), fm.height()),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, "op without a value")
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
    if kind == "note":                      # a line of text only
        return
    if kind == "box":
        removed = color.name() == QColor(REMOVED_FILL).name()
        painter.setPen(QPen(QColor("#9aa0a6" if removed else "#41484f"), 1.0,
                            Qt.PenStyle.DashLine if removed else Qt.PenStyle.SolidLine))
        painter.setBrush(QBrush(color))
        painter.drawRoundedRect(sw, 3.0, 3.0)
    elif kind == "tag":                     # a green box with its partition's numbered tag
        painter.setPen(QPen(QColor("#41484f"), 1.0))
        painter.setBrush(QBrush(QColor(ACCELERATOR_FILL)))
        painter.drawRoundedRect(sw, 3.0, 3.0)
        tag = QRectF(sw.left() - 2, sw.top() - 3, 11, 10)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QBrush(color))
        painter.drawRoundedRect(tag, 3.0, 3.0)
        painter.setPen(QColor("#ffffff"))
        small = QFont(painter.font())
        small.setPixelSize(8)
        small.setBold(True)
        painter.save()
        painter.setFont(small)
        painter.drawText(tag, Qt.AlignmentFlag.AlignCenter, "1")
        painter.restore()
    elif kind == "group":
        painter.setPen(QPen(QColor("#5f6b7a"), 1.2))
        painter.setBrush(QBrush(color))
        painter.drawRoundedRect(sw.adjusted(0, -2, 0, 2), 3.0, 3.0)
        half = sw.width() * 0.6
        bar = QRectF(sw.left() + 2, sw.bottom() - 3, sw.width() - 4, 3)
        painter.fillRect(QRectF(bar.left(), bar.top(), half, bar.height()), QColor("#6cc58a"))
        painter.fillRect(QRectF(bar.left() + half, bar.top(), bar.width() - half, bar.height()),
                         QColor("#f4a640"))
    elif kind == "shades":                  # several colours: one stripe each
        painter.setPen(Qt.PenStyle.NoPen)
        step = sw.width() / max(len(color), 1)
        for i, c in enumerate(color):
            painter.fillRect(QRectF(sw.left() + i * step, sw.top(), step + 0.5, sw.height()), c)
        painter.setPen(QPen(QColor("#41484f"), 1.0))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(sw, 3.0, 3.0)
    elif kind == "frame":
        painter.setPen(QPen(QColor(FRAME_EDGE), 1.0))
        painter.setBrush(QBrush(color))
        painter.drawRoundedRect(sw.adjusted(0, -2, 0, 2), 4.0, 4.0)
        painter.fillRect(QRectF(sw.left() + 1, sw.top() - 1, sw.width() - 2, 4), QColor("#e8ecf1"))
    elif kind == "outline":                 # the canvas' outline of a node: shared scale, match
        painter.setPen(QPen(color, 2.0, Qt.PenStyle.DashLine if color.name() == QColor(SHARED).name()
                            else Qt.PenStyle.SolidLine))
        painter.setBrush(QBrush(QColor("#ffffff")))
        painter.drawRoundedRect(sw, 3.0, 3.0)
    elif kind == "edge":
        painter.setPen(QPen(color, 3.0, Qt.PenStyle.DashLine))
        painter.drawLine(QPointF(sw.left(), sw.center().y()), QPointF(sw.right(), sw.center().y()))
    elif kind == "mark":                    # a folded edge with its red dot
        painter.setPen(QPen(QColor("#7d848c"), 1.1))
        painter.drawLine(QPointF(sw.left(), sw.center().y()), QPointF(sw.right(), sw.center().y()))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QBrush(color))
        painter.drawEllipse(sw.center(), 5.5, 5.5)
    else:
        painter.setPen(QPen(QColor("#ffffff"), 1.0))
        painter.setBrush(QBrush(color))
        painter.drawEllipse(sw.center(), 7.0, 7.0)
        painter.drawText(QRectF(sw.center().x() - 7, sw.center().y() - 7, 14, 14),
                         Qt.AlignmentFlag.AlignCenter, "n")


WHOLE_GRAPH = "In the whole graph"     # the on-screen legend's title: a row may be off screen


class LegendOverlay(QWidget):
    """Legend floating over the view's viewport. A child of the view, not of its viewport,
    so scrolling (which blits the viewport and its children) never drags it along. A click
    folds it to a "Legend ▸" chip and back (`toggled`).

    It lists the colours of the whole graph (a legend changing while one pans would jump
    about), and its title says so: a subgraph's shade may be only in the minimap."""

    toggled = Signal(bool)                      # collapsed

    def __init__(self, parent: QWidget, title: str = "Legend") -> None:
        super().__init__(parent)
        self.theme = Theme.make()
        self.facts = LegendFacts()
        self.title = title
        self.gradient: MetricLegend | None = None   # not "metric": that is QPaintDevice.metric()
        self.collapsed = False
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground, True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.setToolTip("Click (or L on the canvas) to fold / unfold the legend")

    def configure(self, theme: Theme, facts: LegendFacts | None = None,
                  metric: MetricLegend | None | bool = False) -> None:
        """`facts` / `metric` left out keep what they were."""
        self.theme = theme
        if facts is not None:
            self.facts = facts
        if not isinstance(metric, bool):
            self.gradient = metric
        self._resize()

    def set_collapsed(self, on: bool) -> None:
        if on != self.collapsed:
            self.collapsed = on
            self._resize()
            self.toggled.emit(on)

    def _chip(self) -> QSizeF:
        fm = QFontMetricsF(_font(self.theme))
        return QSizeF(fm.horizontalAdvance(f"{self.title} ▸") + 2 * PAD, fm.height() + PAD)

    def full_size(self) -> QSizeF:
        return legend_size(self.theme, self.facts, self.gradient, WHOLE_GRAPH)

    def _resize(self) -> None:
        s = self._chip() if self.collapsed else self.full_size()
        self.resize(int(s.width()) + 2, int(s.height()) + 2)
        self.update()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.set_collapsed(not self.collapsed)
        event.accept()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        if self.collapsed:
            self._paint_chip(p)
        else:
            paint_legend(p, QPointF(0.5, 0.5), self.theme, self.facts, self.gradient, WHOLE_GRAPH)
        p.end()

    def _paint_chip(self, p: QPainter) -> None:
        size = self._chip()
        box = QRectF(QPointF(0.5, 0.5), size)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        p.setPen(QPen(QColor("#9aa0a6"), 1.0))
        p.setBrush(QBrush(QColor(255, 255, 255, 235)))
        p.drawRoundedRect(box, 6.0, 6.0)
        p.setFont(_font(self.theme))
        p.setPen(QColor("#1b1f23"))
        p.drawText(box, Qt.AlignmentFlag.AlignCenter, f"{self.title} ▸")

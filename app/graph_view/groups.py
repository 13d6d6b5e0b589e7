"""Module groups on the canvas: a collapsed group's box and an expanded group's frame.

Both only paint the numbers the core put in GroupStats: the name ("attention (BertAttention)"),
the node count, a VPU/CPU bar (share of the group's ops on each side), the violation count and,
with a metric overlay on, the distribution of the group's ops over the metric's gradient with
the worst value.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QGraphicsRectItem, QStyleOptionGraphicsItem

from vpu_core.graph.model import GroupStats, MetricBar
from vpu_core.layout.compound import HEADER

from .nodes import LOD_SHAPES, LOD_TEXT, NodeItem, StyleCache, fitted
from .style import ACCELERATOR_FILL, CPU_FILL, FRAME_EDGE, FRAME_FILLS, GROUP_EDGE, gradient

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget
    from vpu_core.graph.model import GraphNode
    from vpu_core.layout.types import Box

BAR_H = 6.0
LOD_GROUP_TEXT = 0.4 - 1e-6    # group names stay readable a little further out than op labels


def paint_split_bar(p: QPainter, r: QRectF, s: GroupStats) -> None:
    """VPU share green, CPU share amber, no ops grey."""
    p.setPen(Qt.PenStyle.NoPen)
    if s.ops == 0:
        p.fillRect(r, QColor("#d5d9de"))
        return
    vpu_w = r.width() * s.vpu_ops / s.ops
    p.fillRect(QRectF(r.x(), r.y(), vpu_w, r.height()), QColor(ACCELERATOR_FILL))
    p.fillRect(QRectF(r.x() + vpu_w, r.y(), r.width() - vpu_w, r.height()), QColor(CPU_FILL))


def paint_metric_bar(p: QPainter, r: QRectF, bar: MetricBar, neutral: bool) -> None:
    """Members per gradient bin, worst bin on the left, as proportional coloured segments."""
    total = sum(bar.counts)
    if not total:
        p.fillRect(r, QColor("#e3e6ea"))
        return
    stops, x = gradient(neutral), r.x()
    for i, count in enumerate(bar.counts):
        if count:
            w = r.width() * count / total
            p.fillRect(QRectF(x, r.y(), w, r.height()), QColor(stops[min(i, len(stops) - 1)]))
            x += w


class GroupItem(NodeItem):
    """A collapsed module group: one box, its numbers painted inside."""

    metric_bar: tuple | None = None       # (MetricBar, neutral, worst text) while an overlay is on
    stats: GroupStats                     # the group's numbers (its node's `group`)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        cache, r, n = self.cache, self.box, self.node
        s = self.stats
        brush = cache.fill(n)[0]
        if lod < LOD_SHAPES:
            painter.fillRect(r, brush)
            paint_split_bar(painter, QRectF(r.x(), r.bottom() - r.height() / 3, r.width(), r.height() / 3), s)
            if n.violations:
                painter.fillRect(QRectF(r.right() - r.height() / 2, r.y(), r.height() / 2, r.height() / 2),
                                 cache.badge_brush)
            if self.state:
                self._paint_state(painter, cosmetic=True)
            return
        painter.setPen(QPen(QColor(GROUP_EDGE), 1.4))
        painter.setBrush(brush)
        painter.drawRoundedRect(r, 6.0, 6.0)
        inner = r.adjusted(8.0, 4.0, -8.0, -6.0)
        bar = QRectF(inner.x(), inner.bottom() - BAR_H, inner.width(), BAR_H)
        if self.metric_bar:                    # VPU/CPU share left, metric distribution right
            half = (bar.width() - 6.0) / 2.0
            paint_split_bar(painter, QRectF(bar.x(), bar.y(), half, BAR_H), s)
            values, neutral, _ = self.metric_bar
            paint_metric_bar(painter, QRectF(bar.x() + half + 6.0, bar.y(), half, BAR_H), values, neutral)
        else:
            paint_split_bar(painter, bar, s)
        if lod >= LOD_GROUP_TEXT:
            (title, title_font), (detail, detail_font) = self._group_texts(inner.width())
            title_h = QFontMetricsF(cache.group_font).height()
            painter.setPen(QColor("#1b1f23"))
            painter.setFont(title_font)
            painter.drawText(QRectF(inner.x(), inner.y(), inner.width(), title_h),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, title)
            if lod >= LOD_TEXT:
                painter.setFont(detail_font)
                painter.setPen(QColor("#4a5360"))
                painter.drawText(QRectF(inner.x(), inner.y() + title_h,
                                        inner.width(), QFontMetricsF(cache.theme.detail_font).height()),
                                 Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, detail)
        if n.violations:
            self._paint_badge(painter, lod)
        if self.state:
            self._paint_state(painter, cosmetic=False)


    def _group_texts(self, width: float) -> tuple[tuple[str, QFont], tuple[str, QFont]]:
        """The title ("▸ name (Class)") and the counts line, each whole in a font that fits."""
        n, cache = self.node, self.cache
        detail = n.detail + (f" · worst {self.metric_bar[2]}" if self.metric_bar else "")
        return (fitted("▸ " + n.label, cache.group_font, width),
                fitted(detail, cache.theme.detail_font, width))

    def drawn_texts(self) -> tuple[tuple[str, QFont], ...]:
        return self._group_texts(self.box.adjusted(8.0, 4.0, -8.0, -6.0).width())


def make_group_item(node: GraphNode, x: float, y: float, w: float, h: float, cache: StyleCache) -> GroupItem:
    if node.group is None:
        raise ValueError(f"{node.id} is no collapsed module group: it has no GroupStats")
    it = GroupItem(x - 4.0, y - 9.0, w + 13.0, h + 13.0)
    it.node = node
    it.stats = node.group
    it.box = QRectF(x, y, w, h)
    it.cache = cache
    return it


class FrameItem(QGraphicsRectItem):
    """An expanded module group: a tinted frame behind its members (`header=False`, drawn under
    the edges) or its title strip (`header=True`, drawn over them: an edge entering the group
    passes under its name instead of through it)."""

    stats: GroupStats
    box: QRectF
    cache: StyleCache
    selected = False
    is_header = False

    def header(self) -> QRectF:
        return QRectF(self.box.x(), self.box.y(), self.box.width(), HEADER)

    def set_selected(self, on: bool) -> None:
        if on != self.selected:
            self.selected = on
            self.update()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        r, s = self.box, self.stats
        pen = QPen(QColor("#c51162") if self.selected else QColor(FRAME_EDGE),
                   2.4 if self.selected else 1.0)
        pen.setCosmetic(lod < 0.5)
        head = self.header()
        if not self.is_header:
            painter.setPen(pen)
            painter.setBrush(QBrush(QColor(FRAME_FILLS[s.depth % 2])))
            painter.drawRoundedRect(r, 7.0, 7.0)
            return
        painter.setPen(pen)
        painter.setBrush(QBrush(QColor("#e8ecf1")))
        painter.drawRoundedRect(head, 7.0, 7.0)
        painter.fillRect(head.adjusted(0.5, HEADER / 2, -0.5, 0.0), QColor("#e8ecf1"))
        bar_w = min(70.0, r.width() / 4)
        paint_split_bar(painter, QRectF(head.right() - bar_w - 8.0, head.y() + 7.0, bar_w, BAR_H), s)
        if lod < LOD_GROUP_TEXT:
            return
        right = bar_w + 16.0
        if s.violations:
            badge = QRectF(head.right() - right - 26.0, head.y() + 3.0, 24.0, 14.0)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(self.cache.badge_color)
            painter.drawRoundedRect(badge, 7.0, 7.0)
            painter.setPen(QColor("#ffffff"))
            painter.setFont(self.cache.badge_font)
            painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, str(min(s.violations, 999)))
            right += 30.0
        painter.setPen(QColor("#1b1f23"))
        text, font = self._title(right)
        painter.setFont(font)
        painter.drawText(QRectF(head.x() + 8.0, head.y(), head.width() - right - 8.0, HEADER),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, text)

    def _right(self) -> float:
        """Room at the title strip's right end: the VPU/CPU bar, and the violation badge."""
        right = min(70.0, self.box.width() / 4) + 16.0
        return right + 30.0 if self.stats.violations else right

    def _title(self, right: float) -> tuple[str, QFont]:
        s = self.stats
        return fitted(f"▾ {s.label} · {s.nodes} nodes", self.cache.group_font, self.box.width() - right - 8.0)

    def drawn_texts(self) -> tuple[tuple[str, QFont], ...]:
        return (self._title(self._right()),) if self.is_header else ()


def make_frame_item(stats: GroupStats, box: Box, cache: StyleCache, header: bool = False) -> FrameItem:
    x, y, w, h = box
    it = FrameItem(x - 2.0, y - 2.0, w + 4.0, (HEADER if header else h) + 4.0)
    it.is_header = header
    it.stats = stats
    it.box = QRectF(x, y, w, h)
    it.cache = cache
    it.setAcceptedMouseButtons(Qt.MouseButton.NoButton)
    return it





"""One QGraphicsItem per graph node, painted with level of detail.

paint() is the hot path (Qt calls it for every visible node on every frame), so it only
looks things up: brushes and pens live in a shared StyleCache, text is a QStaticText laid
out once per node and theme. Zoomed out it draws a plain filled rectangle; text appears
only once it is legible.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, NamedTuple

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen, QStaticText
from PySide6.QtWidgets import QGraphicsRectItem, QStyleOptionGraphicsItem

from vpu_core.formatting import badge_count_text, shorter_shapes
from vpu_core.graph.model import GraphNode

from .style import CPU_BADGE, MATCH, PARTITION_TAG, SELECT, SHARED as SHARED_COLOR, VIOLATION, Theme

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

# Qt's level of detail is a hair under the zoom (0.5999999999999972 at 0.6): the thresholds
# give way by LOD_SLACK, or a view fitted at exactly LEGIBLE would draw no label at all
LOD_SLACK = 1e-6
LOD_SHAPES = 0.3 - LOD_SLACK     # below: filled rectangle only
LOD_TEXT = 0.6 - LOD_SLACK       # from here: label (≈ 6.6 px glyphs at the normal font)
LOD_DETAIL = 0.85 - LOD_SLACK    # from here: the detail line too (≈ 7.7 px)

SELECTED, NEIGHBOUR, MATCHED, SHARED = 1, 2, 4, 8   # NodeItem.state bits


class StyleCache:
    """Per-theme brushes, pens and text colours shared by every node item. `badges`: what the
    graph's badges count (GraphModel.meta["badges"]): the VPU's rule "violations" (red) or the
    ops another target leaves on the "cpu" (deep orange). `numbered`: the graph has several
    partitions, so each op on the accelerator wears its partition's number."""

    def __init__(self, theme: Theme, badges: str = "violations", numbered: bool = False) -> None:
        self.theme = theme
        self.badges, self.numbered = badges, numbered
        self._fills: dict[tuple[str, int | None], tuple[QBrush, QColor, QColor]] = {}
        self.outline = {c: theme.outline(c) for c in ("vpu", "cpu", "removed", "qdq", "param", "io")}
        self.badge_color = QColor(VIOLATION if badges == "violations" else CPU_BADGE)
        self.badge_brush = QBrush(self.badge_color)
        self.tag_brush = QBrush(QColor(PARTITION_TAG))
        self.badge_pen = QPen(QColor("#ffffff"), 1.2)
        self.no_pen = QPen(Qt.PenStyle.NoPen)
        self.select_pen = QPen(QColor(SELECT), 3.0)
        self.neighbour_pen = QPen(QColor(SELECT), 1.6, Qt.PenStyle.DashLine)
        self.match_pen = QPen(QColor(MATCH), 4.0)
        self.select_cosmetic = QPen(QColor(SELECT), 3.0)
        self.select_cosmetic.setCosmetic(True)
        self.match_cosmetic = QPen(QColor(MATCH), 3.0)
        self.match_cosmetic.setCosmetic(True)
        self.shared_pen = QPen(QColor(SHARED_COLOR), 2.0, Qt.PenStyle.DashLine)
        self.shared_cosmetic = QPen(QColor(SHARED_COLOR), 3.0)
        self.shared_cosmetic.setCosmetic(True)
        self.badge_font = QFont(theme.label_font)
        self.badge_font.setPixelSize(theme.label_font.pixelSize() - 1)
        self.badge_font.setBold(True)
        self.badge_metrics = QFontMetricsF(self.badge_font)
        self.label_metrics = QFontMetricsF(theme.label_font)
        self.detail_metrics = QFontMetricsF(theme.detail_font)
        self.group_font = QFont(theme.label_font)
        self.group_font.setBold(True)
        self.group_metrics = QFontMetricsF(self.group_font)
        self.overrides: dict[str, tuple[QBrush, QColor, QColor]] = {}   # metric overlay fills

    def set_overrides(self, colors: dict[str, QColor]) -> None:
        """Fill these node ids with these colours instead of their category's (metric overlay)."""
        self.overrides = {nid: (QBrush(c), c, self.theme.text_color(c)) for nid, c in colors.items()}

    def fill(self, node: GraphNode) -> tuple[QBrush, QColor, QColor]:
        """(brush, fill colour, text colour) for a node's category and subgraph."""
        if self.overrides:
            got = self.overrides.get(node.id)
            if got is not None:
                return got
        key = (node.category, node.subgraph if node.category == "vpu" else None)
        got = self._fills.get(key)
        if got is None:
            c = self.theme.fill(*key)
            got = self._fills[key] = (QBrush(c), c, self.theme.text_color(c))
        return got


class NodeItem(QGraphicsRectItem):
    """A node at its absolute scene rectangle `box` (pos stays 0,0).

    A QGraphicsRectItem only so that boundingRect() stays in C++: Qt asks for it on every
    frame and index update, and a Python override costs ~0.2 µs x every item in the scene.
    The item's rect is the box plus room for the violation badge and the selection outline;
    the rect item's own painting is replaced by paint() below. Top-level on purpose: the
    children of a parent item are bounds-checked one by one on every frame (no BSP).
    """

    state = 0                      # class defaults: only items that change pay for them
    _text: tuple | None = None
    _text_ver = -1

    # No __init__ override: PySide's Python-level constructor chain costs ~3 µs per item,
    # 60 ms at 20k nodes. make_node_item() below sets the three attributes instead.
    node: GraphNode
    box: QRectF
    cache: StyleCache

    def set_state(self, state: int) -> None:
        if state != self.state:
            self.state = state
            self.update()

    def _texts(self) -> tuple:
        """(label, label pos above the detail, detail, detail pos, label pos alone): each text a
        DrawnText laid out once per theme."""
        theme = self.cache.theme
        if self._text is None or self._text_ver != theme.version:
            r, n = self.box, self.node
            label = _static(n.label, theme.label_font, r.width() - 8.0)
            lw, lh = label.static.size().width(), label.static.size().height()
            alone = QPointF(r.center().x() - lw / 2.0, r.y() + (r.height() - lh) / 2.0)
            detail, dpos, lpos = None, None, alone
            small = n.category in ("qdq", "param") or n.is_param
            if n.detail and not small:
                detail = _static(n.detail, theme.detail_font, r.width() - 8.0, shorter_shapes(n.detail))
                dh = detail.static.size().height()
                top = r.y() + (r.height() - lh - dh) / 2.0
                dpos = QPointF(r.center().x() - detail.static.size().width() / 2.0, top + lh)
                lpos = QPointF(alone.x(), top)
            self._text = (label, lpos, detail, dpos, alone)
            self._text_ver = theme.version
        return self._text

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        cache, r, n = self.cache, self.box, self.node
        brush, _, text_col = cache.fill(n)
        if lod < LOD_SHAPES:
            painter.fillRect(r, brush)
            if n.violations:
                painter.fillRect(QRectF(r.right() - r.height(), r.y(), r.height(), r.height()),
                                 cache.badge_brush)
            if self.state:
                self._paint_state(painter, cosmetic=True)
            return
        painter.setPen(cache.outline[n.category] if n.category in cache.outline else cache.no_pen)
        painter.setBrush(brush)
        painter.drawRoundedRect(r, 4.0, 4.0)
        if lod >= LOD_TEXT:
            label, lpos, detail, dpos, alone = self._texts()
            painter.setPen(text_col)
            painter.setFont(label.font)
            if detail is not None and lod >= LOD_DETAIL:
                painter.drawStaticText(lpos, label.static)
                painter.setFont(detail.font)
                painter.drawStaticText(dpos, detail.static)
            else:
                painter.drawStaticText(alone, label.static)
        if n.violations:
            self._paint_badge(painter, lod)
        if self.state:
            self._paint_state(painter, cosmetic=False)
        if cache.numbered and n.category == "vpu" and n.subgraph is not None and lod >= LOD_TEXT:
            self._paint_tag(painter, n.subgraph)        # over the selection's outline: always legible

    def _paint_tag(self, painter: QPainter, partition: int) -> None:
        """The partition's number on a dark green tag over the box's top-left corner: which
        partition an op is in, without a second shade of green."""
        cache, r = self.cache, self.box
        text = str(partition)
        w = max(14.0, cache.badge_metrics.horizontalAdvance(text) + 6.0)
        tag = QRectF(r.left() - 3.0, r.top() - 6.0, w, 13.0)
        painter.setPen(cache.badge_pen)
        painter.setBrush(cache.tag_brush)
        painter.drawRoundedRect(tag, 4.0, 4.0)
        painter.setFont(cache.badge_font)
        painter.drawText(tag, Qt.AlignmentFlag.AlignCenter, text)

    def _paint_badge(self, painter: QPainter, lod: float) -> None:
        """A disc with the count (red: VPU rule violations; deep orange: CPU ops of another target); a pill for "99+" (more than 99: the hover tooltip and the
        group's panel give the full count)."""
        cache, r = self.cache, self.box
        rad = 8.0
        text = self.badge_text()
        half = max(rad, cache.badge_metrics.horizontalAdvance(text) / 2.0 + 3.0) if len(text) > 2 else rad
        c = QPointF(r.right() - 1.0 - (half - rad), r.top() + 0.5)
        badge = QRectF(c.x() - half, c.y() - rad, 2 * half, 2 * rad)
        painter.setPen(cache.badge_pen)
        painter.setBrush(cache.badge_brush)
        painter.drawRoundedRect(badge, rad, rad)
        if lod >= LOD_TEXT:
            painter.setFont(cache.badge_font)
            painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, text)

    def drawn_texts(self) -> tuple[tuple[str, QFont], ...]:
        """(text, font) of what this box draws when zoomed in: its label, then its detail line."""
        label, _, detail, _, _ = self._texts()
        return tuple((t.static.text(), t.font) for t in (label, detail) if t is not None)

    def badge_text(self) -> str:
        """What the violation badge reads ("" without violations)."""
        return badge_count_text(self.node.violations) if self.node.violations else ""

    def _paint_state(self, painter: QPainter, cosmetic: bool) -> None:
        cache, s = self.cache, self.state
        painter.setBrush(Qt.BrushStyle.NoBrush)
        if s & MATCHED:
            painter.setPen(cache.match_cosmetic if cosmetic else cache.match_pen)
            painter.drawRoundedRect(self.box.adjusted(-3, -3, 3, 3), 6.0, 6.0)
        if s & SHARED:
            painter.setPen(cache.shared_cosmetic if cosmetic else cache.shared_pen)
            painter.drawRoundedRect(self.box.adjusted(-2.5, -2.5, 2.5, 2.5), 5.0, 5.0)
        if s & SELECTED:
            painter.setPen(cache.select_cosmetic if cosmetic else cache.select_pen)
            painter.drawRoundedRect(self.box.adjusted(-1.5, -1.5, 1.5, 1.5), 5.0, 5.0)
        elif s & NEIGHBOUR and not cosmetic:
            painter.setPen(cache.neighbour_pen)
            painter.drawRoundedRect(self.box.adjusted(-1, -1, 1, 1), 5.0, 5.0)


def make_node_item(node: GraphNode, x: float, y: float, w: float, h: float,
                   cache: StyleCache) -> NodeItem:
    it = NodeItem(x - 4.0, y - 9.0, w + 13.0, h + 13.0)
    it.node = node
    it.box = QRectF(x, y, w, h)
    it.cache = cache
    return it


MIN_FIT = 0.8    # a text shrinks to 80 % of its font to fit before a shape drops dimensions


def fitted(text: str, font: QFont, max_w: float, shorter: Iterable[str] = ()) -> tuple[str, QFont]:
    """`text` whole in `font` if it fits `max_w`, else in a smaller font; a shape that still
    does not fit at MIN_FIT drops whole dimensions (`shorter`, vpu_core.formatting.
    shorter_shapes), and the last resort is the font that fits. Never an elided name or number:
    the layout sizes boxes for the font (vpu_core.layout.types.node_sizer), this only absorbs
    the difference between its estimate and the real glyphs."""
    width = QFontMetricsF(font).horizontalAdvance(text)
    if width <= max_w or max_w <= 0:
        return text, font
    if width * MIN_FIT > max_w:
        for short in shorter:
            w = QFontMetricsF(font).horizontalAdvance(short)
            if w * MIN_FIT <= max_w:
                text, width = short, w
                break
    if width <= max_w:
        return text, font
    small = QFont(font)
    size = font.pixelSize() if font.pixelSize() > 0 else font.pointSizeF()
    scaled = max(size * max_w / width * 0.98, 1.0)
    if font.pixelSize() > 0:
        small.setPixelSize(max(int(scaled), 1))
    else:
        small.setPointSizeF(scaled)
    return text, small


class DrawnText(NamedTuple):
    static: QStaticText
    font: QFont          # drawStaticText lays out in the painter's font: set this one first


def _static(text: str, font: QFont, max_w: float, shorter: Iterable[str] = ()) -> DrawnText:
    text, font = fitted(text, font, max_w, shorter)
    st = QStaticText(text)
    st.setTextFormat(Qt.TextFormat.PlainText)
    st.prepare(font=font)
    return DrawnText(st, font)

"""Tables that stay readable in a 300 px dock: columns sized to what they hold, names elided in
the middle, long text wrapped between words (and between the parts of an identifier).

    fit = ColumnFit(tree, [Col(min=110, share=0.45), Col(min=120, wrap=True, stretch=True)])
    fit.compute_natural_widths()   # after filling the tree: each column's natural width
    fit.apply()                    # on every resize: widths (and folded columns) for the room there is

`WrapDelegate` draws a column's text on up to `max_lines` lines, breaking after spaces, "_" and
"." (`breakable`), the last line elided; the row grows to fit. A column the dock has no room for
steps aside (`Col.fold`, lowest first); the row's tooltip keeps every column's text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, QSize, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QPalette, QTextLayout, QTextOption
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QTreeWidget

from app.widgets.tree_items import child_items, top_level_items

if TYPE_CHECKING:
    from PySide6.QtGui import QPainter
    from PySide6.QtWidgets import QTreeWidgetItem

# after "." between two parts that are not both digits (never inside "0.03125"); after "_" between
# parts of two characters or more (never "s_ / in")
_BREAK_AFTER = re.compile(r"(?<=[A-Za-z])(\.)(?=[A-Za-z0-9])|(?<=[0-9])(\.)(?=[A-Za-z])"
                          r"|(?<=[A-Za-z0-9]{2})(_)(?=[A-Za-z0-9]{2})")
PAD = 4.0                     # px left and right of a cell's text (the style's item margin)


def breakable(text: str) -> str:
    """`text` with a zero-width break opportunity after every "_" and "." inside an identifier
    ("normalized_shape", "layer_norm.default"); numbers ("0.03125") stay whole."""
    return _BREAK_AFTER.sub(lambda m: m.group(0) + "\u200b", text)


def _layout_lines(text: str, font: QFont, width: float) -> list[str]:
    """Lines broken at word boundaries only (spaces and the zero-width breaks of `breakable`); a
    single part wider than the line stays whole here and is elided by the caller, never cut mid-word."""
    layout = QTextLayout(text, font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WordWrap)
    layout.setTextOption(option)
    layout.beginLayout()
    spans = []
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(max(width, 10.0))
        spans.append((line.textStart(), line.textLength()))
    layout.endLayout()
    return [text[a:a + n] for a, n in spans]


def _fit(lines: list[str], font: QFont, width: float, middle: bool) -> list[str]:
    """Each line within `width`: an unbreakable part too wide for it is elided."""
    fm = QFontMetricsF(font)
    mode = Qt.TextElideMode.ElideMiddle if middle else Qt.TextElideMode.ElideRight
    return [fm.elidedText(ln, mode, width) if fm.horizontalAdvance(ln) > width + 0.5 else ln for ln in lines]


def _clean(lines: list[str]) -> list[str]:
    return [ln.replace("\u200b", "").rstrip() for ln in lines] or [""]


def wrapped_lines(text: str, font: QFont, width: float, max_lines: int, middle: bool = False) -> list[str]:
    """`text` broken into at most `max_lines` lines of `width` px. What does not fit is elided at
    the end of the last line or (`middle`: a node's "module · op", whose most telling part is its
    end) in the middle: the first line keeps the start, the others "…" and the whole end."""
    lines = _layout_lines(breakable(text), font, width)
    if len(lines) <= max_lines:
        return _fit(_clean(lines), font, width, middle)
    if not middle or max_lines < 2:
        rest = "".join(lines[max_lines - 1:]).replace("\u200b", "")
        last = QFontMetricsF(font).elidedText(rest, Qt.TextElideMode.ElideRight, width)
        return _fit(_clean(lines[:max_lines - 1]), font, width, middle) + [last]
    # the longest end, starting at a part of the name ("attention.query #2 · linear"), that fits
    starts = [i + 1 for i, ch in enumerate(text) if ch in "._ "] or [len(text) - 1]
    lo, hi = 0, len(starts) - 1                  # starts ascend: a later start is a shorter end
    while lo < hi:
        mid = (lo + hi) // 2
        if len(_layout_lines(breakable("…" + text[starts[mid]:]), font, width)) <= max_lines - 1:
            hi = mid
        else:
            lo = mid + 1
    tail = _clean(_layout_lines(breakable("…" + text[starts[lo]:]), font, width))[:max_lines - 1]
    return _fit(_clean(lines[:1]) + tail, font, width, True)


class WrapDelegate(QStyledItemDelegate):
    """Wraps the text of the columns in `columns` (and, with `top_level`, of every column of a
    top-level row: a group's title) on up to `max_lines` lines; other cells as the view draws them."""

    def __init__(self, tree: QTreeWidget, columns: set[int], max_lines: int = 4, top_level: bool = False,
                 middle: set[int] | None = None) -> None:
        super().__init__(tree)
        self.tree, self.columns, self.max_lines, self.top_level = tree, columns, max_lines, top_level
        self.middle = middle or set()            # columns elided in the middle (names: keep the op)
        self.column_lines: dict[int, int] = {}   # a column's own line limit
        self._cache: dict[tuple, list[str]] = {}

    def _spanned(self, index: QModelIndex | QPersistentModelIndex) -> bool:
        return index.column() == 0 and self.tree.isFirstColumnSpanned(index.row(), QModelIndex(index.parent()))

    def wraps(self, index: QModelIndex | QPersistentModelIndex) -> bool:
        return (index.column() in self.columns or (self.top_level and not index.parent().isValid())
                or self._spanned(index))

    def _width(self, index: QModelIndex | QPersistentModelIndex) -> float:
        width = float(self.tree.viewport().width() if self._spanned(index)
                      else self.tree.header().sectionSize(index.column()))
        if index.column() == 0:                 # the tree's indentation and expand arrow
            depth, parent = 0, index.parent()
            while parent.isValid():
                depth, parent = depth + 1, parent.parent()
            width -= self.tree.indentation() * (depth + (1 if self.tree.rootIsDecorated() else 0))
        return width - 2 * PAD

    def lines(self, index: QModelIndex | QPersistentModelIndex, font: QFont) -> list[str]:
        text = str(index.data() or "")
        width = self._width(index)
        title = self._spanned(index) or (self.top_level and not index.parent().isValid())
        most = self.max_lines if title else self.column_lines.get(index.column(), self.max_lines)
        middle = index.column() in self.middle and not title
        key = (text, font.key(), round(width), most, middle)    # columns differ in the last two
        got = self._cache.get(key)
        if got is None:
            if len(self._cache) > 4000:
                self._cache.clear()
            got = self._cache[key] = wrapped_lines(text, font, width, most, middle)
        return got

    def _font(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QFont:
        font = index.data(Qt.ItemDataRole.FontRole)
        return font if isinstance(font, QFont) else option.font

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        base = super().sizeHint(option, index)
        if not self.wraps(index):
            return base
        font = self._font(option, index)
        height = QFontMetricsF(font).lineSpacing() * len(self.lines(index, font)) + 4
        return QSize(base.width(), max(base.height(), int(height + 0.999)))

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        if not self.wraps(index):
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget is not None else self.tree.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        painter.save()
        painter.setFont(opt.font)
        painter.setPen(opt.palette.color(role))
        rect = QRectF(option.rect).adjusted(PAD, 2, -PAD, 0)
        step = QFontMetricsF(opt.font).lineSpacing()
        for i, line in enumerate(self.lines(index, opt.font)):
            painter.drawText(QRectF(rect.left(), rect.top() + i * step, rect.width(), step),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, line)
        painter.restore()


@dataclass(frozen=True)
class Col:
    """How one column takes its room: at least `min` px; `share` caps it (a fraction of the
    table's width) unless it is the `stretch` column, which takes what is left; `fold` > 0: the
    column steps aside when there is no room (1 first); `wrap`: its text wraps (WrapDelegate);
    `middle`: what does not fit is elided in the middle (a node's "module · op")."""

    min: int = 60
    share: float = 1.0
    stretch: bool = False
    fold: int = 0
    wrap: bool = False
    middle: bool = False
    lines: int = 4


class ColumnFit:
    """Sizes a tree's columns to its width: natural widths from the content (`compute_natural_widths`), the
    room shared out on every resize (`apply`), columns folded when even their minimums do not fit."""

    def __init__(self, tree: QTreeWidget, cols: list[Col], max_lines: int = 4, wrap_titles: bool = False) -> None:
        self.tree, self.cols = tree, cols
        self.natural = [c.min for c in cols]
        self.mins = [c.min for c in cols]         # at least the header's text
        self._applied: tuple | None = None        # (room, natural, mins) of the last apply
        tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)        # "encoder.layer.…· linear"
        tree.setUniformRowHeights(False)
        tree.setWordWrap(True)
        tree.setIndentation(min(tree.indentation(), 14))          # a narrow dock keeps its width for text
        tree.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        header = tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(header.ResizeMode.Fixed)
        self.delegate = WrapDelegate(tree, {i for i, c in enumerate(cols) if c.wrap}, max_lines, wrap_titles,
                                     {i for i, c in enumerate(cols) if c.middle})
        self.delegate.column_lines = {i: c.lines for i, c in enumerate(cols)}
        tree.setItemDelegate(self.delegate)

    def compute_natural_widths(self) -> None:
        """Each column's natural width: its widest text (rows below the top level for column 0
        when titles wrap), plus padding and the tree's indentation."""
        fm = QFontMetricsF(self.tree.font())
        widest = [0.0] * len(self.cols)

        def visit(item: QTreeWidgetItem, depth: int) -> None:
            for col in range(len(self.cols)):
                if col == 0 and depth == 0 and self.delegate.top_level:
                    continue
                text = item.text(col)
                if text:
                    indent = self.tree.indentation() * (depth + 1) if col == 0 else 0
                    widest[col] = max(widest[col], fm.horizontalAdvance(text) * (1.1 if item.font(col).bold() else 1.0)
                                      + indent + 2 * PAD + 4)
            for child in child_items(item):
                visit(child, depth + 1)

        for top in top_level_items(self.tree):
            visit(top, 0)
        head = self.tree.headerItem()
        hfm = QFontMetricsF(self.tree.header().font())
        heads = [hfm.horizontalAdvance(head.text(i)) * 1.08 + 2 * PAD + 12 for i in range(len(self.cols))]
        self.mins = [int(max(c.min, min(h, 104))) for c, h in zip(self.cols, heads)]
        self.natural = [int(max(m, w, h)) for m, w, h in zip(self.mins, widest, heads)]
        self._applied = None                      # the content changed: the next apply lays out

    def apply(self) -> None:
        """Widths for the tree's current width; relays the rows out (wrapped heights change)."""
        room = self.tree.viewport().width()
        if room <= 0:
            return
        state = (room, tuple(self.natural), tuple(self.mins))
        if state == self._applied:                # the same widths again (a resize of height only)
            return
        self._applied = state
        header = self.tree.header()
        shown = list(range(len(self.cols)))
        for col in sorted((i for i, c in enumerate(self.cols) if c.fold), key=lambda i: self.cols[i].fold):
            if sum(self.mins[i] for i in shown) <= room:
                break
            shown.remove(col)
        for i in range(len(self.cols)):
            header.setSectionHidden(i, i not in shown)
        widths = {i: min(self.natural[i], max(self.mins[i], int(room * self.cols[i].share))) for i in shown}
        stretch = [i for i in shown if self.cols[i].stretch]
        over = sum(widths.values()) - room
        if over > 0:                      # each gives back in proportion to what it has above its minimum
            slack = {i: widths[i] - self.mins[i] for i in shown}
            total = sum(slack.values())
            for i in shown:
                widths[i] -= min(slack[i], int(over * slack[i] / total + 0.999)) if total else 0
        over = sum(widths.values()) - room
        if stretch or over > 0:                    # the stretch column takes what is left (or gives)
            last = (stretch or [max(widths, key=lambda i: widths[i])])[0]
            widths[last] = max(30, widths[last] - over)
        for i, w in widths.items():
            self.tree.setColumnWidth(i, w)
        self.delegate._cache.clear()
        self.tree.doItemsLayout()

    def hidden(self) -> list[int]:
        """Columns folded away now (for tests)."""
        return [i for i in range(len(self.cols)) if self.tree.header().isSectionHidden(i)]

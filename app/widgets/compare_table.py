"""The diff table of compare mode: per matched op, both sides' qparams, broken rules, placement.

One row per `OpPair` of vpu_core.compare (graph order of side A), then one row per op that has
no counterpart ("only in A" / "only in B"). Cells that differ between the two sides are tinted;
clicking a row selects the op on both graphs. The text of each cell comes from plain functions
below, so tests can compare a row with the pair it shows.
"""
from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QCheckBox, QHBoxLayout, QLabel, QSizePolicy,
                               QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from app import theme
from app.widgets.tree_items import top_level_items
from app.widgets.wrapping import Col, ColumnFit
from vpu_core.formatting import op_label, scales_text
from vpu_core.compare import Side

if TYPE_CHECKING:
    from PySide6.QtGui import QResizeEvent, QShowEvent
    from vpu_core.compare import Comparison
    from vpu_core.compare import OpPair, OpSide

PAIR_ROLE = Qt.ItemDataRole.UserRole + 3     # (side, node) to select when the row is clicked
DIFF_BG = "#fff4d6"
MOVED_BG = "#ffe1cc"
UNMATCHED_FG = "#7e22ce"
COLUMNS = ("Op", "Module", "{a} qparams", "{b} qparams", "{a} breaks", "{b} breaks", "VPU partition")
# In a narrow dock the qparams, then the partition and A's breaks step aside (the row's first cell's
# tooltip and the node panel of a clicked row keep them); names wrap between their parts.
COLUMN_FIT = [Col(min=80, share=0.2, wrap=True, middle=True, lines=2), Col(min=100, share=0.3, wrap=True, middle=True, lines=3),
              Col(min=120, share=0.25, wrap=True, fold=1), Col(min=120, share=0.25, wrap=True, fold=2),
              Col(min=56, share=0.2, wrap=True, fold=4), Col(min=64, share=0.2, wrap=True, stretch=True),
              Col(min=60, share=0.15, wrap=True, fold=3)]


def _zp(points) -> str:
    values = sorted(set(points))
    if values == [0]:
        return ""
    return f" zp {values[0]}" if len(values) == 1 else f" zp {values[0]}…{values[-1]}"


def qparams_text(side: OpSide) -> str:
    """"out 2^-4 · w 16 ch 2^-9…2^-6 · b int32" for one OpSide."""
    parts = []
    if side.output is not None:
        parts.append(f"out {scales_text(side.output.scales)}{_zp(side.output.zero_points)}")
    if side.weight is not None:
        parts.append(f"w {scales_text(side.weight.scales)}{_zp(side.weight.zero_points)}")
    if side.bias is not None:
        parts.append(f"b {side.bias.dtype}")
    return " · ".join(parts) or "—"


def rules_text(side: OpSide) -> str:
    """The rules an op breaks by their short labels (the table is narrow: the full titles and
    messages are in the tooltips)."""
    return ", ".join(side.rule_labels) if side.rules else "✓"


def placement_text(side: OpSide) -> str:
    return "CPU" if side.placement == "cpu" else "VPU"


def partition_text(pair: OpPair) -> str:
    a, b = placement_text(pair.a), placement_text(pair.b)
    return a if not pair.partition_differs else f"{a} → {b}"


def module_text(key: str) -> str:
    """"stages.0.path_a.0 (Conv2d) · resnet8.py:51" → "stages.0.path_a.0 (Conv2d)"."""
    return key.split(" · ", 1)[0] if key else "—"


def pair_html(cmp: Comparison, side: Side, node: str, op: str) -> str:
    """The top of the node panel in compare mode: what this node is matched with."""
    labels = {"a": cmp.a_label, "b": cmp.b_label}
    other = "b" if side == "a" else "a"
    pair = cmp.pair_for(op, side)
    box = ('<table width="100%" cellpadding="6" cellspacing="0" style="background:#f3f0ff; '
           'margin-bottom:8px"><tr><td>{}</td></tr></table>')
    here = f"<b>{side.upper()} · {html.escape(labels[side])}</b>"
    if pair is None:
        text = (f'{here} — <b style="color:{UNMATCHED_FG}">no counterpart in {html.escape(labels[other])}</b>'
                if op in (cmp.only_a if side == "a" else cmp.only_b) else
                f"{here} — not a compute op; nothing to match")
        return box.format(text)
    mine, theirs = (pair.a, pair.b) if side == "a" else (pair.b, pair.a)
    rows = [f"{here} {html.escape(mine.node)} ⇄ {html.escape(labels[other])} "
            f"{html.escape(theirs.node)}  <span style='color:{theme.MUTED}'>({html.escape(pair.op)})</span>",
            f"qparams: {html.escape(qparams_text(mine))} &nbsp;vs&nbsp; {html.escape(qparams_text(theirs))}",
            f"breaks: {html.escape(rules_text(mine))} &nbsp;vs&nbsp; {html.escape(rules_text(theirs))}",
            f"VPU partition: {html.escape(partition_text(pair))}"]
    return box.format("<br>".join(rows))


def pair_row(pair: OpPair) -> list[str]:
    return [op_label(pair.op), module_text(pair.key), qparams_text(pair.a), qparams_text(pair.b),
            rules_text(pair.a), rules_text(pair.b), partition_text(pair)]


class CompareTable(QWidget):
    """`node_activated(side, node)`: a row was clicked (the op on side A, or B if only there)."""

    node_activated = Signal(str, str)

    def __init__(self) -> None:
        super().__init__()
        self.summary = QLabel("")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.summary.setWordWrap(True)
        self.only_diff = QCheckBox("Only differences")
        self.only_diff.toggled.connect(self._apply_filter)
        self.tree = QTreeWidget()
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        self.tree.setColumnCount(len(COLUMNS))
        self.fit = ColumnFit(self.tree, COLUMN_FIT)
        self.tree.itemClicked.connect(self._on_item)
        self.tree.itemActivated.connect(self._on_item)
        top = QHBoxLayout()
        top.addWidget(self.summary, 1)
        top.addWidget(self.only_diff)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(top)
        layout.addWidget(self.tree)
        self.comparison: Comparison | None = None
        self._differs: list[bool] = []

    def set_comparison(self, cmp: Comparison, names: dict | None = None) -> None:
        """Fill from a vpu_core.compare.Comparison; `names` maps side -> {node: op text} for
        the unmatched rows (the analyses' NodeInfo.op)."""
        self.comparison = cmp
        self.tree.clear()
        self._differs = []
        self.tree.setHeaderLabels([c.format(a=cmp.a_label, b=cmp.b_label) for c in COLUMNS])
        for pair in cmp.pairs:
            self._pair_item(cmp, pair)
        unmatched: tuple[tuple[Side, tuple[str, ...]], ...] = (("a", cmp.only_a), ("b", cmp.only_b))
        for side, nodes in unmatched:
            for node in nodes:
                self._unmatched_item(cmp, side, node, (names or {}).get(side, {}).get(node, ""))
        self._summary(cmp)
        self._columns()
        self._apply_filter()

    def _pair_item(self, cmp: Comparison, pair) -> None:
        item = QTreeWidgetItem(self.tree, pair_row(pair))
        item.setData(0, PAIR_ROLE, ("a", pair.a.node))
        a, b = cmp.a_label, cmp.b_label
        item.setToolTip(0, f"{a}: {pair.a.node}   ·   {b}: {pair.b.node}\n{a} qparams: {qparams_text(pair.a)}\n"
                           f"{b} qparams: {qparams_text(pair.b)}\nVPU partition: {partition_text(pair)}")
        item.setToolTip(1, pair.key)
        if pair.qparams_differ:
            for col in (2, 3):
                item.setBackground(col, QBrush(QColor(DIFF_BG)))
        for col, side in ((4, pair.a), (5, pair.b)):
            item.setForeground(col, QBrush(QColor(theme.DANGER if side.rules else theme.OK)))
            item.setToolTip(col, "\n".join(v.message for v in side.violations) or "no violations")
        if pair.partition_differs:
            item.setBackground(6, QBrush(QColor(MOVED_BG)))
        self._differs.append(pair.differs)

    def _unmatched_item(self, cmp: Comparison, side: Side, node: str, op: str) -> None:
        label = cmp.a_label if side == "a" else cmp.b_label
        texts = [op_label(op) if op else node, f"only in {label}", "", "", "", "", ""]
        texts[2 if side == "a" else 3] = node
        item = QTreeWidgetItem(self.tree, texts)
        item.setData(0, PAIR_ROLE, (side, node))
        for col in range(len(texts)):
            item.setForeground(col, QBrush(QColor(UNMATCHED_FG)))
        self._differs.append(True)

    def _summary(self, cmp: Comparison) -> None:
        unmatched = len(cmp.only_a) + len(cmp.only_b)
        moved = len(cmp.partition_changes)
        self.summary.setText(
            f"<b>{len(cmp.pairs)}</b> matched ops · <b>{len(cmp.differing)}</b> differ · "
            f'<b style="color:{theme.WARN if moved else theme.TEXT}">{moved}</b> placed differently · '
            f'<b style="color:{UNMATCHED_FG if unmatched else theme.TEXT}">{unmatched}</b> unmatched'
            f'&nbsp;&nbsp;<span style="color:{theme.MUTED}">(matched by source module and op)</span>')

    def _columns(self) -> None:
        self.fit.compute_natural_widths()
        self.fit.apply()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit.apply()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.fit.apply()

    def _apply_filter(self, *_args) -> None:
        only = self.only_diff.isChecked()
        for item, differs in zip(top_level_items(self.tree), self._differs):
            item.setHidden(only and not differs)

    def _on_item(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        target = item.data(0, PAIR_ROLE)
        if target:
            self.node_activated.emit(*target)

    def rows(self) -> list[list[str]]:
        """Every row's texts (for tests and the status bar)."""
        return [[item.text(c) for c in range(self.tree.columnCount())] for item in top_level_items(self.tree)]

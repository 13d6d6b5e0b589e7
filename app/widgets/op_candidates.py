"""Which kernel (or which relaxed limit) should the next chip add first, and does each VPU subgraph
pay for its transfers?

Two tables from the analysis (vpu_core.whatif, computed with every run): the op-list candidates and
the per-op limit relaxations, ranked together, and the partition economics with the subgraphs whose transfers outweigh their work
highlighted. A row jumps to its node: a candidate to its first CPU node, a subgraph to its first op.
Both fit a 300 px dock without scrolling sideways (1280×720): short headers (their meaning is the
tooltip), the first column takes what is left and elides, the full op name and verdict are tooltips,
and when the dock is narrower still the least telling columns step aside (`FOLD_FIRST`; a row's
tooltip keeps all of its numbers).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QAbstractItemView, QHeaderView, QLabel, QSizePolicy, QTableWidget, QTableWidgetItem,
                               QVBoxLayout, QWidget)

from app import theme
from vpu_core.formatting import op_label
from vpu_core.reports.whatif_text import (candidate_name, candidate_sentence, economics_sentence, human_bytes,
                                          human_macs, signed_bytes)

if TYPE_CHECKING:
    from PySide6.QtGui import QResizeEvent, QShowEvent
    from vpu_core.inspection import Attached

NODE_ROLE = Qt.ItemDataRole.UserRole + 1
# (short header for a narrow dock, what it means)
CANDIDATE_HEADERS = (("Op added / limit", "Op type added alone to the VPU op list, or one per-op limit "
                                          "relaxed alone (conv2d kernel_max 3×3→5×5)"),
                     ("Moved", "CPU nodes that join the VPU"),
                     ("Merged", "Existing VPU partitions that join another one"),
                     ("New", "New partitions made only of moved ops (islands)"),
                     ("Saved", "Boundary bytes saved: before minus after (negative: more traffic)"),
                     ("Left", "CPU nodes left after the change"))
ECONOMICS_HEADERS = (("Partition", ""), ("Ops", "Compute ops in the partition"),
                     ("MAC", "Multiply-accumulates kept on the VPU"), ("In", "Bytes entering"),
                     ("Out", "Bytes leaving"), ("B/MAC", "Boundary bytes per MAC"),
                     ("Pays", "✓ its work pays for its transfers; ✗ the transfer outweighs the work"))


FIRST_COLUMN_MIN = 72      # px the name column keeps before other columns step aside
FOLD_FIRST = {"candidates": (3, 2), "economics": (1, 3, 4)}   # New, Merged · Ops, In, Out


def fit_columns(table: QTableWidget, fold: tuple[int, ...]) -> None:
    """Hide the columns of `fold`, in order, while the table would need to scroll sideways."""
    header = table.horizontalHeader()
    for col in fold:
        header.setSectionHidden(col, False)
    room = table.viewport().width()

    def need() -> int:
        return FIRST_COLUMN_MIN + sum(max(table.sizeHintForColumn(c), header.sectionSizeHint(c))
                                      for c in range(1, table.columnCount()) if not header.isSectionHidden(c))
    for col in fold:
        if need() <= room:
            break
        header.setSectionHidden(col, True)


def _row_tooltip(table: QTableWidget, row: int, headers) -> None:
    """Every number of the row, whichever columns are shown."""
    cells = [(h, table.item(row, c)) for c, (h, _) in enumerate(headers) if c]
    text = " · ".join(f"{h}: {item.text()}" for h, item in cells if item is not None)
    for c in range(1, table.columnCount()):
        item = table.item(row, c)
        if item is not None and not item.toolTip():
            item.setToolTip(text)


def _table(headers) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels([h for h, _ in headers])
    for col, (_, tip) in enumerate(headers):
        header_item = table.horizontalHeaderItem(col)       # set by setHorizontalHeaderLabels above
        if header_item is not None:
            header_item.setToolTip(tip)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setAlternatingRowColors(True)
    table.verticalHeader().setVisible(False)
    header = table.horizontalHeader()
    header.setMinimumSectionSize(24)
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)     # what is left, elided
    table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.setTextElideMode(Qt.TextElideMode.ElideRight)
    table.setWordWrap(False)
    return table


def _cell(text, node: str | None = None, numeric: bool = False) -> QTableWidgetItem:
    item = QTableWidgetItem(str(text))
    if numeric:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    if node:
        item.setData(NODE_ROLE, node)
        item.setToolTip(f"Click to show {node} in the graph")
    return item


def _wrapped(text: str) -> QLabel:
    label = QLabel(text)
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)   # wraps, never widens the dock
    return label


class OpCandidatesPanel(QWidget):
    node_activated = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.candidates = _table(CANDIDATE_HEADERS)
        self.economics = _table(ECONOMICS_HEADERS)
        self.economics_note = QLabel()
        self.economics_note.setWordWrap(True)
        self.economics_note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        for table in (self.candidates, self.economics):
            table.cellClicked.connect(lambda row, _col, t=table: self._jump(t, row))
        layout = QVBoxLayout(self)
        intro = _wrapped("<b>Which kernel should the next chip add first?</b> Each CPU-fallback op "
                         "added alone to the VPU op list, and each per-op limit relaxed alone, ranked.")
        intro.setToolTip("The graph is partitioned again with the op added or the limit relaxed "
                         "(nothing is re-quantized)")
        for table in (self.candidates, self.economics):
            table.setMinimumHeight(120)          # a header and four rows, even at 720 px high
        layout.addWidget(intro)
        layout.addWidget(self.candidates, 3)
        layout.addWidget(_wrapped("<b>Does each VPU partition pay for its transfers?</b>"))
        layout.addWidget(self.economics_note)
        layout.addWidget(self.economics, 2)

    def set_whatif(self, attached: Attached) -> None:
        """The op-list candidates and the partition economics computed for the analysis shown."""
        self._fill_candidates(attached)
        self._fill_economics(attached)
        self._fit()

    def _fit(self) -> None:
        fit_columns(self.candidates, FOLD_FIRST["candidates"])
        fit_columns(self.economics, FOLD_FIRST["economics"])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self._fit()

    def _fill_candidates(self, a: Attached) -> None:
        self.candidates.setRowCount(len(a.op_candidates))
        for row, c in enumerate(a.op_candidates):
            name = _cell(op_label(c.op) if c.kind != "limit" else candidate_name(c), c.first_node)
            full = c.op if c.kind != "limit" else candidate_name(c)          # the full op name first
            name.setToolTip(f"{full}: {candidate_sentence(c)}" + (f"; click to show {c.first_node} in the graph"
                                                                   if c.first_node else ""))
            cells = [name, _cell(c.nodes_moved, numeric=True),
                     _cell(c.subgraphs_merged, numeric=True), _cell(c.new_subgraphs, numeric=True),
                     _cell(signed_bytes(c.bytes_saved), numeric=True), _cell(c.cpu_nodes_left, numeric=True)]
            for col, item in enumerate(cells):
                self.candidates.setItem(row, col, item)
            _row_tooltip(self.candidates, row, CANDIDATE_HEADERS)
        if not a.op_candidates:
            self.candidates.setRowCount(1)
            self.candidates.setItem(0, 0, _cell("No op falls back to the CPU for lack of a kernel or over a limit."))

    def _fill_economics(self, a: Attached) -> None:
        e = a.economics
        subgraphs = e.subgraphs if e is not None else ()
        break_even = e.break_even_bytes_per_mac if e is not None else 0.0
        self.economics.setRowCount(len(subgraphs))
        bad = QBrush(QColor("#fdecea"))
        for row, s in enumerate(subgraphs):
            ratio = "—" if s.bytes_per_mac is None else f"{s.bytes_per_mac:.3g}"
            cells = [_cell(f"p {s.subgraph}", s.first_op), _cell(s.ops, numeric=True),
                     _cell(human_macs(s.macs), numeric=True), _cell(human_bytes(s.bytes_in), numeric=True),
                     _cell(human_bytes(s.bytes_out), numeric=True), _cell(ratio, numeric=True),
                     _cell("✓" if s.pays else "✗")]
            cells[-1].setToolTip("pays for its transfers" if s.pays
                                 else economics_sentence(s, break_even))
            for col, item in enumerate(cells):
                if not s.pays:
                    item.setBackground(bad)
                self.economics.setItem(row, col, item)
            _row_tooltip(self.economics, row, ECONOMICS_HEADERS)
        if e is None:
            self.economics_note.setText("")
            return
        flagged = [economics_sentence(s, e.break_even_bytes_per_mac) for s in e.flagged]
        head = (f"Break-even (hardware profile): {e.break_even_bytes_per_mac:g} bytes per MAC kept on the VPU. ")
        # The first flagged subgraph in words; the others are the red rows (each its sentence as tooltip).
        more = f" ({len(flagged) - 1} more in red below)" if len(flagged) > 1 else ""
        self.economics_note.setText(
            head + (f"<span style='color:{theme.DANGER}'>{flagged[0]}</span>{more}" if flagged
                    else "Every partition keeps enough work on the VPU to pay for its transfers."))

    def _jump(self, table: QTableWidget, row: int) -> None:
        item = table.item(row, 0)
        node = item.data(NODE_ROLE) if item is not None else None
        if node:
            self.node_activated.emit(str(node))

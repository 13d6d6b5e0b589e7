"""A sweep folder as a sortable table: one row per model × quantizer × profile run.

Draws what vpu_core.sweep.folder read (SweepSummary of frozen SweepRows); numbers sort as
numbers (the sort role holds the value, the display role its text). Double-click (or Enter) on a
row emits `open_requested(RunConfig)`: the window opens that model with its quantizer, profile
and the sweep's run options. A failed run's row says why, in its reason column and tooltip.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSortFilterProxyModel, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QLabel, QTableView, QVBoxLayout, QWidget

from app import theme

if TYPE_CHECKING:
    from vpu_core.sweep.folder import SweepRow, SweepSummary

SORT_ROLE = Qt.ItemDataRole.UserRole + 1
ROW_ROLE = Qt.ItemDataRole.UserRole + 2
COLUMNS = ("model", "quantizer", "profile", "status", "VPU MACs", "CPU ops", "subgraphs",
           "rules broken", "SQNR dB", "seconds", "reason")
NUMERIC = {"VPU MACs", "CPU ops", "subgraphs", "rules broken", "SQNR dB", "seconds"}
HEADER_TIPS = {"VPU MACs": "share of the model's multiply-accumulates that run on the VPU",
               "CPU ops": "ops that fall back to the CPU", "subgraphs": "VPU partitions",
               "rules broken": "VPU rules the quantized graph breaks", "seconds": "the run's wall time"}


def share_colour(share: float | None) -> QColor | None:
    """The dashboard's ramp: red (0 % of the MACs on the VPU) through amber to green (100 %)."""
    if share is None:
        return None
    s = max(0.0, min(1.0, share))
    return QColor.fromHslF((4 + 126 * s) / 360, (72 - 27 * s) / 100, (80 - 8 * s) / 100)


class SweepTable(QWidget):
    open_requested = Signal(object)      # RunConfig of the double-clicked row

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel("File ▸ Open sweep… shows a sweep folder here (vpu-inspector sweep MODELS -o DIR).")
        self.title.setObjectName("muted")
        self.title.setMinimumWidth(10)      # a long folder name never widens the dock
        self.model = QStandardItemModel(0, len(COLUMNS), self)
        self.model.setHorizontalHeaderLabels(list(COLUMNS))
        for col, name in enumerate(COLUMNS):
            if name in HEADER_TIPS:
                self.model.horizontalHeaderItem(col).setToolTip(HEADER_TIPS[name])
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setSortRole(SORT_ROLE)
        self.view = QTableView()
        self.view.setModel(self.proxy)
        self.view.setSortingEnabled(True)
        self.view.setAlternatingRowColors(True)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.view.setWordWrap(False)
        self.view.horizontalHeader().setStretchLastSection(True)
        self.view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        self.view.doubleClicked.connect(self._open)
        self.view.activated.connect(self._open)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(self.view, 1)
        self.summary: SweepSummary | None = None

    def set_summary(self, summary: SweepSummary) -> None:
        """Show a SweepSummary (vpu_core.sweep.folder)."""
        self.summary = summary
        self.view.setSortingEnabled(False)
        self.model.removeRows(0, self.model.rowCount())
        for row in summary.rows:
            self.model.appendRow(self._items(row))
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(COLUMNS.index("VPU MACs"), Qt.SortOrder.AscendingOrder)
        counts = {s: sum(r.status == s for r in summary.rows) for s in ("ok", "error", "timeout")}
        text = (f"{counts['ok']} ok · {counts['error']} error · {counts['timeout']} timeout — "
                f"{summary.models} models × {', '.join(summary.quantizers)} × {', '.join(summary.profiles)} — "
                f"double-click a run to open it · {summary.folder}")
        self.title.setText(text)
        self.title.setToolTip(text)
        self.view.resizeColumnsToContents()
        for col in range(len(COLUMNS) - 1):
            self.view.setColumnWidth(col, min(self.view.columnWidth(col), 200))

    def _items(self, row: SweepRow) -> list[QStandardItem]:
        share = row.vpu_mac_share
        values = {
            "model": (row.model, row.model), "quantizer": (row.quantizer, row.quantizer),
            "profile": (row.profile, row.profile), "status": (row.status, row.status),
            "VPU MACs": ("—" if share is None else f"{100 * share:.0f} %", -1.0 if share is None else share),
            "CPU ops": (_text(row.cpu_ops), _num(row.cpu_ops)),
            "subgraphs": (_text(row.subgraphs), _num(row.subgraphs)),
            "rules broken": (", ".join(row.rules_broken) or ("none" if row.status == "ok" else "—"),
                             len(row.rules_broken) if row.status == "ok" else -1),
            "SQNR dB": ("—" if row.sqnr_db is None else f"{row.sqnr_db:.1f}", _num(row.sqnr_db)),
            "seconds": (f"{row.seconds:.1f}", row.seconds),
            "reason": (row.reason, row.reason),
        }
        items = []
        for name in COLUMNS:
            text, key = values[name]
            item = QStandardItem(text)
            item.setData(key, SORT_ROLE)
            item.setData(row, ROW_ROLE)
            if name in NUMERIC:
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            item.setToolTip(row.reason or f"{row.model} · {row.quantizer} · {row.profile}: double-click to open")
            items.append(item)
        colour = share_colour(share)
        if colour is not None:
            items[COLUMNS.index("VPU MACs")].setBackground(QBrush(colour))
        if row.status != "ok":
            items[COLUMNS.index("status")].setForeground(QBrush(QColor(theme.DANGER)))
        return items

    def _open(self, index) -> None:
        row = self.proxy.data(index, ROW_ROLE)
        if row is not None:
            self.open_requested.emit(row.config)

    def row_count(self) -> int:
        return self.proxy.rowCount()

    def shown_rows(self) -> list:
        """The SweepRows in the order they are shown (sorted)."""
        return [self.proxy.data(self.proxy.index(r, 0), ROW_ROLE) for r in range(self.proxy.rowCount())]


def _text(value) -> str:
    return "—" if value is None else str(value)


def _num(value) -> float:
    return -1.0 if value is None else float(value)

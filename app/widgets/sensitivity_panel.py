"""Which layer costs the decibels: the ranking as a chart and a table, and the fixes of one layer.

A widget: it draws the SensitivityReport it is given (vpu_core.sensitivity.results: frozen numbers;
the sentences from vpu_core.reports.sensitivity) and announces what the user does — Analyse /
Cancel, a layer picked (a bar or a row), "Predict fixes" for a layer whose fixes were not
predicted yet, Apply on a fix, an edited metric function. The sensitivity feature
(app.features.sensitivity) runs the jobs and applies the fix; nothing here imports torch.

    chart    the worst layers by their share of the end-to-end error (first order), the picked
             one in the accent colour; a click picks a bar's layer
    table    (the "All layers" tab) every layer, ranked: local / cumulative / weight-only /
             activation-only SQNR, share
    fixes    the picked layer's fixes, best first: dB gained, the user's metric, CPU ops and
             subgraphs after, the VPU's MAC share after; the picked fix's whole trade below, Apply
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QFrame, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QProgressBar, QPushButton, QScrollArea, QSizePolicy, QSplitter, QStackedLayout,
                               QTableWidget, QTableWidgetItem, QTabWidget, QVBoxLayout, QWidget)

from app import theme
from app.widgets.plot_slot import PlotSlot, pyqtgraph_module, ranked_bars_look
from vpu_core.reports.sensitivity import change_title, fix_trade, search_summary

if TYPE_CHECKING:
    import pyqtgraph as pg
    from PySide6.QtGui import QResizeEvent
    from vpu_core.sensitivity.results import Fix, LayerSensitivity, SensitivityReport

CHART_ROWS = 8
ROW_PX = 30
NODE_ROLE = Qt.ItemDataRole.UserRole + 1
LAYER_HEADERS = (("Layer", "Ranked by share of the end-to-end error, the largest first"),
                 ("Local", "SQNR of this layer quantized, its inputs exact (dB): the error it adds"),
                 ("Cumul.", "SQNR with everything quantized (dB): the error it adds and inherits"),
                 ("W", "Only its weights quantized (dB)"), ("A", "Only its activations quantized (dB)"),
                 ("Share", "Its share of the end-to-end error energy, to first order"))
FIX_HEADERS = (("Fix", ""), ("dB", "SQNR gained end to end (predicted by quantizing the fix for real)"),
               ("Metric", "Your metric with the fix (--eval)"), ("CPU", "CPU ops after (before)"),
               ("Part.", "VPU partitions after (before)"), ("MACs", "The VPU's share of the MACs after"))
FOLD = {"layers": (3, 4, 2), "fixes": (2, 4)}     # columns that step aside first in a narrow dock


def _wrapping(label: QLabel) -> QLabel:
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)   # never widens the dock
    return label


def _table(headers: tuple[tuple[str, str], ...]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    for col, (text, tip) in enumerate(headers):
        item = QTableWidgetItem(text)
        item.setToolTip(tip)
        table.setHorizontalHeaderItem(col, item)
    table.verticalHeader().hide()
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Expanding)
    header = table.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)          # the name takes what is left
    return table


def _db(value: float | None) -> str:
    return "—" if value is None else f"{value:.1f}"


def _cell(text: str, node: str, tip: str = "", align_right: bool = True) -> QTableWidgetItem:
    item = QTableWidgetItem(text)
    item.setData(NODE_ROLE, node)
    if tip:
        item.setToolTip(tip)
    if align_right:
        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return item


class SensitivityPanel(QWidget):
    run_clicked = Signal()
    cancel_clicked = Signal()
    layer_selected = Signal(str)        # the layer's node name
    predict_clicked = Signal(str)       # predict the fixes of this layer
    apply_clicked = Signal(object)      # the Fix (vpu_core.sensitivity.results) to apply
    metric_edited = Signal(str)         # FILE.py:fn of --eval, "" for none

    def __init__(self) -> None:
        super().__init__()
        self.report: SensitivityReport | None = None
        self.layer: str | None = None
        self._fixes: list[Fix] = []
        self._chart_rows_shown: list[str] = []
        self._build()
        self.show_idle("", "Run a model first.", can_run=False)

    # -- layout ------------------------------------------------------------------------------------
    def _build(self) -> None:
        self.title = _wrapping(QLabel())
        self.metric_edit = QLineEdit()
        self.metric_edit.setPlaceholderText("metric: FILE.py:fn")
        self.metric_edit.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.metric_edit.setToolTip("fn(model) returns a number, e.g. top-1 on your data: reported for the float "
                               "model, the quantized one and every fix (as check --eval)")
        self.metric_edit.editingFinished.connect(lambda: self.metric_edited.emit(self.metric_edit.text().strip()))
        self.run_button, self.cancel_button = QPushButton("Analyse"), QPushButton("Cancel")
        self.run_button.setObjectName("primary")
        self.run_button.setToolTip("Rank the layers by error and predict the fixes of the worst (each fix is "
                                   "quantized for real from the same export and calibration data)")
        self.run_button.clicked.connect(self.run_clicked)
        self.cancel_button.clicked.connect(self.cancel_clicked)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress.setStyleSheet("min-width: 40px;")
        self.status = _wrapping(QLabel())
        self.status.setObjectName("muted")
        top = QHBoxLayout()
        top.addWidget(self.metric_edit, 1)
        top.addWidget(self.run_button)
        top.addWidget(self.cancel_button)
        self.plot_slot = PlotSlot(self._style_chart)        # made with the first ranking
        self.plot_slot.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Expanding)
        self.plot_slot.setMinimumHeight(90)
        self.layers = _table(LAYER_HEADERS)
        self.layers.itemSelectionChanged.connect(self._on_layer_row)
        self.fix_title = _wrapping(QLabel())
        self.fixes = _table(FIX_HEADERS)
        self.fixes.itemSelectionChanged.connect(self._on_fix_row)
        for table in (self.layers, self.fixes):         # compact rows: a 720 px window shows four fixes
            table.verticalHeader().setDefaultSectionSize(22)
        self.fixes.setMinimumHeight(22 * 2 + 28)
        self.fix_detail = _wrapping(QLabel())
        self.fix_detail.setObjectName("muted")
        # four lines in view at 720 px, the rest scrolls: a cap on the label itself cut the trade's
        # last line through a number ("boundary 4.2 KiB→4.5")
        self.fix_detail_area = QScrollArea()
        self.fix_detail_area.setWidget(self.fix_detail)
        self.fix_detail_area.setWidgetResizable(True)
        self.fix_detail_area.setFrameShape(QFrame.Shape.NoFrame)
        self.fix_detail_area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.fix_detail_area.setMaximumHeight(4 * self.fix_detail.fontMetrics().lineSpacing() + 6)
        self.predict_button, self.apply_button = QPushButton("Predict fixes"), QPushButton("Apply")
        self.apply_button.setObjectName("primary")
        self.apply_button.setToolTip("Run with this fix (its command-line options) and show before → after")
        self.predict_button.clicked.connect(self._predict)
        self.apply_button.clicked.connect(self._apply)
        buttons = QHBoxLayout()
        buttons.addWidget(self.predict_button)
        buttons.addStretch(1)
        buttons.addWidget(self.apply_button)
        fixes_box = QWidget()
        fixes_layout = QVBoxLayout(fixes_box)
        fixes_layout.setContentsMargins(0, 0, 0, 0)
        fixes_layout.addWidget(self.fix_title)
        fixes_layout.addWidget(self.fixes)
        fixes_layout.addWidget(self.fix_detail_area)
        fixes_layout.addLayout(buttons)
        self.ranking = QTabWidget()              # the chart, or every layer's numbers
        self.ranking.setDocumentMode(True)
        self.ranking.addTab(self.plot_slot, "Chart")
        self.ranking.addTab(self.layers, "All layers")
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.ranking)
        self.splitter.addWidget(fixes_box)
        self.splitter.setChildrenCollapsible(False)
        self.hint = _wrapping(QLabel())
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setStyleSheet(f"color: {theme.MUTED}; font-size: 11pt; background: white; padding: 20px;")
        self._stack = QStackedLayout()
        self._stack.addWidget(self.hint)
        self._stack.addWidget(self.splitter)
        status = QHBoxLayout()
        status.addWidget(self.progress)
        status.addWidget(self.status, 1)
        layout = QVBoxLayout(self)
        layout.setSpacing(4)
        layout.addWidget(self.title)
        layout.addLayout(top)
        layout.addLayout(status)
        layout.addLayout(self._stack, 1)

    # -- states ------------------------------------------------------------------------------------
    def show_idle(self, model: str, hint: str, can_run: bool) -> None:
        self.report, self.layer, self._fixes = None, None, []
        self._title(model)
        self.status.setText("")
        self.hint.setText(hint)
        self._stack.setCurrentWidget(self.hint)
        self.set_running(False, can_run)

    def set_running(self, running: bool, can_run: bool = True) -> None:
        self.run_button.setEnabled(not running and can_run)
        self.cancel_button.setEnabled(running)
        self.predict_button.setEnabled(not running and self.report is not None)
        self.apply_button.setEnabled(not running and bool(self._fixes))
        self.progress.setVisible(running)
        if running:
            self.progress.setValue(0)

    def set_progress(self, fraction: float, text: str) -> None:
        self.progress.setValue(int(fraction * 1000))
        self.status.setText(text)

    def set_status(self, text: str) -> None:
        self.status.setText(text)

    def set_metric_text(self, text: str) -> None:
        if self.metric_edit.text() != text:
            self.metric_edit.setText(text)

    def _title(self, model: str) -> None:
        self.title.setText(f"<b>Which layer costs the decibels</b> — {model}" if model else
                           "<b>Which layer costs the decibels</b>")

    # -- the report ----------------------------------------------------------------------------------
    def show_report(self, report: SensitivityReport) -> None:
        self.report = report
        self._title(report.model)
        b = report.baseline
        metric = (f"; {report.metric_name.rsplit(':', 1)[-1]} {report.metric_float:.4g} float → "
                  f"{b.metric:.4g} quantized" if report.metric_name and b.metric is not None
                  and report.metric_float is not None else "")
        found = search_summary(report)
        self.status.setText(f"End to end {_db(b.sqnr_db)} dB{metric}, on {report.samples} held-out "
                            f"sample(s); the ranking on {report.ranking_samples or report.samples}; "
                            f"{report.seconds:.1f} s."
                            + (f" {found}." if found else ""))
        self._fill_layers(report)
        self._draw_chart()
        self._stack.setCurrentWidget(self.splitter)
        total = sum(self.splitter.sizes()) or self.splitter.height()
        self.splitter.setSizes([total * 2 // 5, total - total * 2 // 5])  # the fixes get the larger part
        self.run_button.setEnabled(not self.cancel_button.isEnabled())   # analyse again (another metric)
        ops = self.ops()
        self.select_layer(self.layer if self.layer and report.layer(self.layer) else (ops[0].node if ops else None))

    def ops(self) -> list[LayerSensitivity]:
        return [row for row in self.report.layers if row.kind == "op"] if self.report is not None else []

    def _fill_layers(self, report: SensitivityReport) -> None:
        table, ops = self.layers, self.ops()
        table.blockSignals(True)
        table.setRowCount(len(ops))
        for row, r in enumerate(ops):
            share = "—" if r.error_share is None else f"{100 * r.error_share:.1f} %"
            tip = (f"{r.node} ({r.op}): local {_db(r.local_db)} dB, cumulative {_db(r.cumulative_db)} dB, weights "
                   f"{_db(r.weight_db)} dB, activations {_db(r.activation_db)} dB, share {share}"
                   + (f", alone end to end {_db(r.alone_db)} dB" if r.alone_db is not None else ""))
            tip = f"#{r.rank or '—'} {tip}"
            for col, text in enumerate((r.node, _db(r.local_db), _db(r.cumulative_db), _db(r.weight_db),
                                        _db(r.activation_db), share)):
                table.setItem(row, col, _cell(text, r.node, tip, align_right=col != 0))
        table.blockSignals(False)
        self._fit()

    def _style_chart(self, plot: pg.PlotWidget) -> None:
        ranked_bars_look(plot, "share of the end-to-end error (%)")
        plot.scene().sigMouseClicked.connect(self._on_chart_click)
        plot.getPlotItem().getViewBox().sigResized.connect(self._on_plot_resized)

    def _chart_rows(self) -> int:
        """As many rows as fit legibly (a name over a bar: ROW_PX each), 3 to CHART_ROWS."""
        return max(3, min(CHART_ROWS, int(self.plot_slot.height() - 40) // ROW_PX))

    def _on_plot_resized(self) -> None:
        fits = min(self._chart_rows(), sum(1 for r in self.ops() if r.error_share is not None))
        if self.report is not None and fits != len(self._chart_rows_shown):
            self._draw_chart()

    def _draw_chart(self) -> None:
        pg = pyqtgraph_module()
        item = self.plot_slot.plot.getPlotItem()
        item.clear()
        rows = [r for r in self.ops() if r.error_share is not None][:self._chart_rows()]
        self._chart_rows_shown = [r.node for r in rows]
        if not rows:
            return
        values = np.asarray([100.0 * max(r.error_share or 0.0, 0.0) for r in rows])
        reach = max(float(values.max()), 1.0)
        ys = np.arange(len(rows), dtype=float)
        brushes = [pg.mkBrush(theme.ACCENT if r.node == self.layer else theme.DANGER) for r in rows]
        item.addItem(pg.BarGraphItem(x0=np.zeros(len(rows)), y=ys + 0.2, height=0.36, width=values,
                                     brushes=brushes, pen=pg.mkPen(None)))
        font = theme.ui_font(theme.BASE_PT - 1.5)
        for y, r, v in zip(ys, rows, values):
            name = pg.TextItem(r.node, color=theme.TEXT, anchor=(0, 0.5))
            name.setFont(font)
            name.setPos(0.0, float(y) - 0.22)
            value = pg.TextItem(f"{v:.1f} % · local {_db(r.local_db)} dB", color=theme.MUTED, anchor=(0, 0.5))
            value.setFont(font)
            value.setPos(float(v), float(y) + 0.2)
            item.addItem(name)
            item.addItem(value)
        item.setXRange(0.0, reach * 2.2, padding=0)
        item.setYRange(-0.5, len(rows) - 0.4, padding=0)

    def _on_chart_click(self, event) -> None:
        rows = self._chart_rows_shown
        if not rows:
            return
        point = self.plot_slot.plot.getPlotItem().getViewBox().mapSceneToView(event.scenePos())
        index = int(round(point.y()))
        if 0 <= index < len(rows):
            self.layer_selected.emit(rows[index])

    # -- one layer -----------------------------------------------------------------------------------
    def select_layer(self, node: str | None) -> None:
        """Show `node`'s row, bar and fixes (a layer of the report; its fused activation names it too)."""
        r = self.report.layer(node) if self.report is not None and node else None
        self.layer = r.node if r is not None else None
        table = self.layers
        table.blockSignals(True)
        table.clearSelection()
        for row in range(table.rowCount()):
            cell = table.item(row, 0)
            if cell is not None and cell.data(NODE_ROLE) == self.layer:
                table.selectRow(row)
                table.scrollToItem(cell)
        table.blockSignals(False)
        self._draw_chart()
        self._show_fixes()

    def _on_layer_row(self) -> None:
        items = self.layers.selectedItems()
        if items:
            self.layer_selected.emit(items[0].data(NODE_ROLE))

    def _show_fixes(self) -> None:
        report, node = self.report, self.layer
        self._fixes = list(report.fixes_for(node)) if report is not None and node else []
        table = self.fixes
        table.blockSignals(True)
        table.setRowCount(len(self._fixes))
        b = report.baseline if report is not None else None
        for row, f in enumerate(self._fixes):
            p = f.predicted
            gain = "—" if f.gain_db is None else f"{f.gain_db:+.1f}"
            metric = "—" if p.metric is None else f"{p.metric:.4g}"
            before = (b.cpu_ops, b.subgraphs) if b is not None else ("?", "?")
            tip = f"{f.detail}. {' '.join(f.args)}"
            for col, text in enumerate((change_title(f), gain, metric, f"{p.cpu_ops} ({before[0]})",
                                        f"{p.subgraphs} ({before[1]})", f"{100 * p.vpu_mac_share:.0f} %")):
                table.setItem(row, col, _cell(text, f.node, tip, align_right=col != 0))
        table.blockSignals(False)
        if self._fixes:
            table.selectRow(0)
        self.fix_title.setText(f"<b>Fixes for {node}</b>" if self._fixes else
                               f"<b>{node}</b>: no fix predicted yet" if node else "")
        self.fix_title.setToolTip("Each fix quantized for real: the decibels it gains against what it costs "
                                  "the partition (CPU ops, partitions, the VPU's share of the MACs)")
        self.predict_button.setVisible(bool(node) and not self._fixes)
        self.predict_button.setEnabled(bool(node))
        self.apply_button.setVisible(bool(self._fixes))
        self.apply_button.setEnabled(bool(self._fixes))
        self._on_fix_row()
        self._fit()

    def _on_fix_row(self) -> None:
        f = self.picked_fix()
        b = self.report.baseline if self.report is not None else None
        text = (f"{f.detail}.<br><code>{' '.join(f.args)}</code><br>{fix_trade(f, b)}"
                if f is not None and b is not None else "")
        self.fix_detail.setText(text)
        self.fix_detail.setToolTip(text)

    def picked_fix(self) -> Fix | None:
        rows = self.fixes.selectionModel().selectedRows() if self.fixes.selectionModel() else []
        row = rows[0].row() if rows else (0 if self._fixes else -1)
        return self._fixes[row] if 0 <= row < len(self._fixes) else None

    def pick_fix(self, index: int) -> None:
        if 0 <= index < len(self._fixes):
            self.fixes.selectRow(index)

    def _predict(self) -> None:
        if self.layer:
            self.predict_clicked.emit(self.layer)

    def _apply(self) -> None:
        f = self.picked_fix()
        if f is not None:
            self.apply_clicked.emit(f)

    # -- narrow docks ------------------------------------------------------------------------------
    def _fit(self) -> None:
        from app.widgets.op_candidates import fit_columns

        fit_columns(self.layers, FOLD["layers"])
        fit_columns(self.fixes, FOLD["fixes"])

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

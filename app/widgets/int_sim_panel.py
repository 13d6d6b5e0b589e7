"""Integer simulation of the selected layer: what the VPU computes vs the Q/DQ graph.

Self-contained widget: fed with the core's IntSimReport (vpu_core.intsim.results, frozen numbers)
through `set_report`, then told which node is selected (`show_node`) or that none is
(`show_summary`). It displays the layer's numbers and the histogram of its differences that the
core computed (integer − Q/DQ, in LSBs; identical elements are counted in the text, not drawn, as
they are almost all of them). Nothing is computed here.

Folded by default to one line — "▸ Integer simulation · 28.5 dB vs float · max 1 LSB over 29
layers", the selected layer's "max 1 LSB · 0.05 % differ", or "refused: …" — so the node panel
keeps the dock; a click on the line (`set_expanded`) shows the facts and the chart.

Wiring (four lines, wherever the window lives): the node dock holds `Panels.node_area`, a vertical
splitter of the node panel and this widget; `Panels.set_analysis` / `show_node` / `show_summary`
pass `inspection.attached.int_sim` and the selected node on; the run worker asks the session for
`inspect(..., int_sim=True)`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QSizePolicy, QStackedLayout, QToolButton, QVBoxLayout, QWidget

from app import theme
from app.widgets.plot_slot import PlotSlot, pyqtgraph_module
from vpu_core.formatting import db_on_samples, db_text, percent_text, samples_text

if TYPE_CHECKING:
    import pyqtgraph as pg
    from PySide6.QtGui import QResizeEvent
    from vpu_core.intsim.results import IntSimLayer, IntSimReport

_LABEL_STYLE = {"color": theme.MUTED, "font-size": "9pt"}
PLOT_MIN_HEIGHT = 110
CHART_MIN_HEIGHT = 250      # numbers and a readable chart, even at 1280×720
COLORS = {"local": theme.PLOT_COLORS["shift"], "drift": theme.PLOT_COLORS["float"]}


def layer_facts(layer: IntSimLayer) -> list[tuple[str, str]]:
    """(label, value) rows for one IntSimLayer."""
    sat = f"{layer.saturated}" if not layer.saturated else f'<b style="color:{theme.DANGER}">{layer.saturated}</b>'
    rows = [("vs Q/DQ", f"max |Δ| {layer.max_abs_lsb} LSB · {percent_text(layer.mismatch_frac)} "
                        f"of {layer.elements:,} differ"),
            ("drift", f"max {layer.drift_max_lsb} LSB · {percent_text(layer.drift_mismatch_frac)} "
                      "(integer pipeline running free)"),
            ("saturated", f"{sat} in the accumulator · {layer.clipped} clipped to int8 (as Q/DQ)")]
    if layer.window:
        rule = "not 2^k: the profile's divisor rule" if "non_pow2_window" in layer.flags else "2^k: one more shift"
        rows.append(("window", f"{layer.window} values, {rule}"))
    if "float" in layer.flags:
        rows.append(("kernel", "none in integers: ran in float as the graph says"))
    return rows


def report_facts(report: IntSimReport) -> list[tuple[str, str]]:
    """(label, value) rows for the whole model's simulation."""
    return [("hardware", f"{report.rounding}, {report.accumulator_bits}-bit accumulator"),
            ("SQNR int vs float", f"{db_text(report.sqnr_db)} (Q/DQ graph {db_text(report.qdq_sqnr_db)}; "
                                  f"{samples_text(report.samples)})"),
            ("vs Q/DQ", f"max |Δ| {report.max_abs_lsb} LSB over {len(report.layers)} VPU layers"),
            ("saturated", f"{report.saturated} accumulator sums")]


def report_line(report: IntSimReport | None, pending: bool = False) -> str:
    """The folded panel's one line for the whole model (plain text); `pending`: the graph shown is
    a prediction, the simulation follows the quantized graph."""
    if report is None:
        return "quantizing… it follows the quantized graph" if pending else "not run for this result"
    if report.refused:
        return f"refused: {report.refused}"
    return (f"{db_on_samples(report.sqnr_db, report.samples)} vs float · max {report.max_abs_lsb} LSB over "
            f"{len(report.layers)} layers · {report.saturated} saturated")


def layer_line(layer: IntSimLayer) -> str:
    """The folded panel's one line for the selected layer (plain text)."""
    return (f"{layer.node}: max {layer.max_abs_lsb} LSB · {percent_text(layer.mismatch_frac)} differ"
            + (f" · {layer.saturated} saturated" if layer.saturated else ""))


def _table(rows) -> str:
    cells = "".join(f'<tr><td style="color:{theme.MUTED}; padding:1px 12px 1px 0">{k}</td><td>{v}</td></tr>'
                    for k, v in rows)
    return f'<table cellspacing="0" cellpadding="0">{cells}</table>'


class IntSimPanel(QWidget):
    """Numbers and difference histogram of the selected VPU layer under integer simulation."""

    expanded_changed = Signal(bool)

    def __init__(self) -> None:
        super().__init__()
        self.report: IntSimReport | None = None
        self.layer: IntSimLayer | None = None    # the IntSimLayer shown, or None
        self.expanded = False
        self.line = ""                      # the one-line summary (folded)
        self.header = QToolButton()         # "▸ Integer simulation · …": folds / unfolds
        self.header.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.header.setAutoRaise(True)
        self.header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.header.setStyleSheet(f"QToolButton {{ text-align: left; color: {theme.TEXT}; padding: 2px 0; }}")
        self.header.setCursor(Qt.CursorShape.PointingHandCursor)
        self.header.clicked.connect(lambda: self.set_expanded(not self.expanded))
        self.facts = QLabel()
        self.facts.setTextFormat(Qt.TextFormat.RichText)
        self.facts.setWordWrap(True)
        self.facts.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.plot_slot = PlotSlot(lambda plot: self._style(plot.getPlotItem()))   # drawn on unfolding
        self.plot_slot.setMinimumHeight(PLOT_MIN_HEIGHT)
        self.caption = QLabel()             # the legend, outside the plot: bars stay uncovered
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        # one line, clipped rather than widening the dock (and a narrow window) or taking the
        # chart's tick labels' height
        self.caption.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.note = QLabel()
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color: {theme.MUTED}; padding: 12px;")
        chart = QWidget()
        chart_layout = QVBoxLayout(chart)
        chart_layout.setContentsMargins(0, 4, 0, 0)
        chart_layout.setSpacing(2)
        chart_layout.addWidget(self.caption)
        chart_layout.addWidget(self.plot_slot, 1)
        self._body = QWidget()              # the note or the chart
        self._stack = QStackedLayout(self._body)
        self._stack.addWidget(self.note)
        self._stack.addWidget(chart)
        layout = self._layout = QVBoxLayout(self)   # kept: layout() is Optional to the type checker
        layout.setContentsMargins(14, 4, 14, 4)
        layout.addWidget(self.header)
        layout.addWidget(self.facts)
        layout.addWidget(self._body, 1)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        self.setMinimumHeight(CHART_MIN_HEIGHT)
        self.set_report(None)

    def set_expanded(self, on: bool) -> None:
        """Unfold (facts and chart) or fold to the one line."""
        if on != self.expanded:
            self.expanded = on
            if self.layer is not None:
                self.show_node(self.layer.node)
            else:
                self.show_summary()
            self.expanded_changed.emit(on)

    def _set_line(self, text: str) -> None:
        self.line = text
        self._show_header()

    def _show_header(self) -> None:
        arrow = "▾" if self.expanded else "▸"
        full = f"{arrow} Integer simulation · {self.line}"
        width = max(self.header.width() - 8, 60)
        self.header.setText(self.header.fontMetrics().elidedText(full, Qt.TextElideMode.ElideRight, width))
        self.header.setToolTip(full[2:] + ("" if self.expanded else "\n(click for the details)"))

    def _fold(self) -> None:
        """Only the one line: the node panel above gets the rest of the dock."""
        for widget in (self.facts, self._body):
            widget.setVisible(False)
        margins = self._layout.contentsMargins()
        height = self.header.sizeHint().height() + margins.top() + margins.bottom()
        self.setMinimumHeight(height)
        self.setMaximumHeight(height)

    @staticmethod
    def _style(item: pg.PlotItem) -> None:
        item.showGrid(x=False, y=True, alpha=0.25)
        item.setLabel("bottom", "integer − Q/DQ (LSB)", **_LABEL_STYLE)
        item.setLabel("left", "elements", **_LABEL_STYLE)
        item.setMenuEnabled(False)
        item.hideButtons()
        item.setMouseEnabled(x=False, y=False)
        item.getAxis("bottom").setTickSpacing(major=1, minor=1)
        for name in ("bottom", "left"):
            item.getAxis(name).setTickFont(theme.ui_font(8))
            item.getAxis(name).setTextPen(pyqtgraph_module().mkPen(theme.MUTED))

    # -- what the window calls --------------------------------------------------------------------------
    def set_report(self, report: IntSimReport | None, pending: bool = False) -> None:
        """The IntSimReport of the current analysis (None: integer simulation was not run);
        `pending`: the graph shown is a prediction, the simulation comes with the quantized one."""
        self._pending = pending
        self.report = report
        self.show_summary()

    def show_summary(self) -> None:
        self.layer = None
        self._set_line(report_line(self.report, getattr(self, "_pending", False)))
        if not self.expanded:
            self._fold()
            return
        self.facts.setVisible(True)
        r = self.report
        if r is None:
            self.facts.setText("")
            self._note("Quantizing… the integer simulation follows the quantized graph."
                       if getattr(self, "_pending", False) else "Integer simulation was not run for this result.")
        elif r.refused:
            self.facts.setText(f'<span style="color:{theme.DANGER}">Refused.</span> {r.refused}')
            self._note("")                   # the reason above says it all
        else:
            self.facts.setText(_table(report_facts(r)))
            self._note("Select a VPU layer (conv, linear, add, pool …) to see how its integer "
                       "output differs from the Q/DQ graph.")

    def show_node(self, node: str) -> None:
        r = self.report
        if r is None or r.refused:
            self.show_summary()
            return
        self.layer = r.layer_of(node)
        if self.layer is None:
            self.show_summary()
            self._set_line(f"{node} is not a layer the VPU requantizes · {report_line(r)}")
            if self.expanded:
                self._note(f"{node} is not a layer the VPU requantizes (only VPU ops with a quantized "
                           "output are compared).")
            return
        la = self.layer
        self._set_line(layer_line(la))
        if not self.expanded:
            self._fold()
            return
        self.facts.setVisible(True)
        self.facts.setText(_table(layer_facts(la)))
        self._draw(la)

    # -- drawing ----------------------------------------------------------------------------------------
    def _note(self, text: str) -> None:
        self.note.setText(text)
        self._stack.setCurrentWidget(self.note)
        self._fit_to_text()

    def _text_width(self) -> int:
        margins = self._layout.contentsMargins()
        return max(self.width() - margins.left() - margins.right(), 200)

    def _hold_facts(self, width: int) -> int:
        """The facts' full height at `width`, reserved: the splitter holding this panel does not
        ask labels how tall their wrapped text is, so without it the last rows were cut off."""
        height = max(self.facts.heightForWidth(width), 0) + self.fontMetrics().lineSpacing() // 2
        self.facts.setMinimumHeight(height)
        return height

    def _fit_to_text(self) -> None:
        """Without a chart the panel is exactly as tall as its text: the node panel above gets the rest."""
        margins, width = self._layout.contentsMargins(), self._text_width()
        note = self.note.heightForWidth(width) if self.note.text() else 0
        height = (margins.top() + margins.bottom() + 2 * self._layout.spacing()
                  + self.header.sizeHint().height() + self._hold_facts(width) + note
                  + self.fontMetrics().lineSpacing())  # rich text wraps a little wider than measured
        self.plot_slot.setMinimumHeight(0)       # the hidden chart must not reserve its height
        self._body.setVisible(bool(self.note.text()))
        height = max(height, 40)
        if (self.minimumHeight(), self.maximumHeight()) != (height, height):
            self.setMinimumHeight(height)
            self.setMaximumHeight(height)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() == event.oldSize().width():
            return
        self._show_header()
        if not self.expanded:
            return
        if self._stack.currentWidget() is self.note:
            self._fit_to_text()     # the text wraps anew at the new width
        else:
            self._hold_facts(self._text_width())

    def _fit_to_chart(self) -> None:
        self.setMaximumHeight(16777215)     # QWIDGETSIZE_MAX
        self.plot_slot.setMinimumHeight(PLOT_MIN_HEIGHT)
        self._body.setVisible(True)
        self.setMinimumHeight(CHART_MIN_HEIGHT)
        self._hold_facts(self._text_width())

    def _draw(self, la) -> None:
        pg = pyqtgraph_module()
        item = self.plot_slot.plot.getPlotItem()
        item.clear()
        local = {d: c for d, c in la.diff_hist if d}
        drift = {d: c for d, c in la.drift_hist if d}
        if not local and not drift:
            self._note(f"All {la.elements:,} elements equal the Q/DQ graph, also when the "
                       "integer pipeline runs free.")
            return
        keys = sorted(set(local) | set(drift) | {0})
        xs = np.asarray(keys, float)
        legend = []
        for offset, (name, counts) in zip((-0.2, 0.2), (("this layer", local), ("drift", drift))):
            heights = np.asarray([counts.get(k, 0) for k in keys], float)
            color = COLORS["local" if name == "this layer" else "drift"]
            item.addItem(pg.BarGraphItem(x=xs + offset, height=heights, width=0.38,
                                         brush=pg.mkBrush(color), pen=pg.mkPen("w", width=0.5)))
            legend.append(f'<span style="color:{color}">■</span> {name}: {sum(counts.values()):,} differ')
        self.caption.setText("&nbsp;&nbsp;&nbsp;".join(legend)
                             + f' <span style="color:{theme.MUTED}">(identical elements not drawn)</span>')
        item.setXRange(keys[0] - 0.7, keys[-1] + 0.7, padding=0)
        top = max([*local.values(), *drift.values()])
        item.setYRange(0, top * 1.25, padding=0)
        self._stack.setCurrentIndex(1)
        self._fit_to_chart()

"""pyqtgraph plots of what the analysis computed: scale and shift histograms, the selected node's
per-channel scales and shifts, and (VPU quantizer) float vs power-of-two scales.

The histograms come ready-binned from `Analysis.histograms`; these widgets only draw. When a plot
has nothing to show it says why instead of staying blank.

Every plot is bounded to its data (`_bound`: view-box limits, so the wheel and a drag can zoom in
and pan but never past the data), and integer axes tick from the visible range (`IntegerAxis`):
a fixed tick spacing of 1 zoomed out thirty notches asked the axis for millions of ticks (seconds
per repaint, then MemoryError).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QStackedLayout, QWidget

from app import theme
from app.widgets.plot_slot import pyqtgraph_module
from vpu_core.formatting import op_label, scales_text
from vpu_core.reports.summary_text import empty_weights_reason

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.graph.model import GraphModel

pyqtgraph_module()          # the window's plot look, set once for every plot (app.widgets.plot_slot)
_LABEL_STYLE = {"color": theme.MUTED, "font-size": "10pt"}


def _style_plot(plot: pg.PlotItem, left: str, bottom: str | None = None) -> None:
    plot.showGrid(x=False, y=True, alpha=0.25)
    if left:
        plot.setLabel("left", left, **_LABEL_STYLE)
    if bottom:
        plot.setLabel("bottom", bottom, **_LABEL_STYLE)
    plot.setMenuEnabled(False)
    plot.hideButtons()
    plot.setMouseEnabled(x=True, y=False)
    for name in ("bottom", "left"):
        plot.getAxis(name).setTickFont(theme.ui_font(9))
        plot.getAxis(name).setTextPen(pg.mkPen(theme.MUTED))
    plot.getAxis("left").setWidth(56)


class IntegerAxis(pg.AxisItem):
    """Shift counts and channel numbers are integers: ticks at integers only, spaced 1, 2, 4, …
    so that at most one tick per ~40 px of the visible range is drawn."""

    PX_PER_TICK = 40

    def tickSpacing(self, minVal: float, maxVal: float, size: float) -> list[tuple[float, float]]:
        span = max(float(maxVal) - float(minVal), 1.0)
        most = max(2, int(size / self.PX_PER_TICK))
        step = 1.0
        while span / step > most:
            step *= 2.0
        return [(step, 0.0)]


def _integer_axes(*names: str) -> dict[str, IntegerAxis]:
    return {name: IntegerAxis(name) for name in names}


MIN_SPAN_FRACTION = 1 / 64     # zoomed in: at least this share of the data stays visible


def _bound(plot: pg.PlotItem, x: tuple[float, float], y: tuple[float, float] | None = None) -> None:
    """Limit the view to the data: x (and y) within [lo, hi], zoomed out at most to all of it,
    zoomed in at most to 1/64 of it (or one unit of an integer axis)."""
    vb = plot.getViewBox()
    limits: dict[str, float | None] = {}
    for axis, span in (("x", x), ("y", y)):
        if span is None:
            continue
        lo, hi = float(min(span)), float(max(span))
        if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
            lo, hi = (lo - 0.5, lo + 0.5) if math.isfinite(lo) else (0.0, 1.0)
        width = hi - lo
        limits.update({f"{axis}Min": lo, f"{axis}Max": hi, f"max{axis.upper()}Range": width,
                       f"min{axis.upper()}Range": width * MIN_SPAN_FRACTION})
    vb.setLimits(**limits)


def _unbound(plot: pg.PlotItem) -> None:
    """No limits (before the next data: old limits would clamp its range)."""
    plot.getViewBox().setLimits(xMin=None, xMax=None, yMin=None, yMax=None, minXRange=None,
                                maxXRange=None, minYRange=None, maxYRange=None)


def _plot_widget(bottom: str, left: str, axes: dict | None = None) -> pg.PlotWidget:
    widget = pg.PlotWidget(axisItems=axes)
    _style_plot(widget.getPlotItem(), left, bottom)
    return widget


def _bars(plot: pg.PlotItem, centers, heights, width, color: str, name: str | None = None):
    bars = pg.BarGraphItem(x=np.asarray(centers, float), height=np.asarray(heights, float),
                           width=width, brush=pg.mkBrush(color), pen=pg.mkPen("w", width=0.5), name=name)
    plot.addItem(bars)
    return bars


def _corner_label(plot: pg.PlotItem, text: str, color: str) -> None:
    """A small title pinned to the plot's top-left corner (it stays put when the plot pans), on a
    light background so bars behind it do not hide it."""
    label = pg.TextItem(text, color=color, fill=pg.mkBrush(255, 255, 255, 215), anchor=(0, 0))
    label.setFont(theme.ui_font(9, bold=True))
    label.setParentItem(plot.getViewBox())
    label.setPos(4, 2)


def _centers(hist) -> tuple[np.ndarray, np.ndarray]:
    edges = np.asarray(hist.edges, float)
    return (edges[:-1] + edges[1:]) / 2.0, np.diff(edges)


class _HintPlot(QWidget):
    """A plot with a hint page shown when there is nothing to plot."""

    def __init__(self, plot: pg.PlotWidget, hint: str) -> None:
        super().__init__()
        self.plot = plot
        self.hint = QLabel(hint)
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.hint.setStyleSheet(f"color: {theme.MUTED}; font-size: 11pt; background: white; padding: 20px;")
        self._stack = QStackedLayout(self)
        self._stack.addWidget(self.hint)
        self._stack.addWidget(plot)

    def show_hint(self, text: str) -> None:
        self.hint.setText(text)
        self._stack.setCurrentWidget(self.hint)

    def show_plot(self) -> None:
        self._stack.setCurrentWidget(self.plot)

    @property
    def showing_plot(self) -> bool:
        return self._stack.currentWidget() is self.plot


class ScaleHistogram(_HintPlot):
    """Histogram of log2(scale) over all tensors: activations above, weights below, same x axis.

    Two plots rather than one: weights count per channel and would dwarf the activations.
    """

    SERIES = (("log2_scale_activation", "activation tensors", "activation"),
              ("log2_scale_weight", "weight channels", "weight"))

    def __init__(self) -> None:
        layout = pg.GraphicsLayoutWidget()
        # integer ticks: a bar sits on its power of two (the core's bins are centred on integers)
        self.series_plots = [layout.addPlot(row=i, col=0, axisItems=_integer_axes("bottom"))
                             for i in range(len(self.SERIES))]
        for plot, (_key, name, kind) in zip(self.series_plots, self.SERIES):
            _style_plot(plot, "")
            _corner_label(plot, name, theme.PLOT_COLORS[kind])     # an axis title would not fit a short plot
        self.series_plots[-1].setLabel("bottom", "log2(scale)  — integer = power of two", **_LABEL_STYLE)
        self.series_plots[0].setXLink(self.series_plots[-1])
        super().__init__(layout, "Run a model to see its scale histogram.")
        self._notes: list[pg.TextItem] = []             # "why this plot is empty", per result

    def set_analysis(self, analysis: Analysis) -> None:
        spans = []
        for note in self._notes:                        # the previous result's
            if note.scene() is not None:
                note.scene().removeItem(note)
        self._notes = []
        for plot, (key, _name, kind) in zip(self.series_plots, self.SERIES):
            plot.clear()
            _unbound(plot)
            hist = analysis.histograms.get(key)
            if hist is None or not hist.counts or not sum(hist.counts):
                why = empty_weights_reason(analysis.summary, short=True) if kind == "weight" else ""
                if why:                       # an empty plot says why it is empty
                    note = pg.TextItem(why, color=theme.MUTED, anchor=(0, 0))
                    note.setParentItem(plot.getViewBox())
                    note.setPos(4, 22)
                    self._notes.append(note)
                continue
            centers, widths = _centers(hist)
            _bars(plot, centers, hist.counts, float(np.min(widths)) * 0.85, theme.PLOT_COLORS[kind])
            used = np.nonzero(np.asarray(hist.counts))[0]
            spans.append((hist.edges[used[0]], hist.edges[used[-1] + 1]))
            plot.setYRange(0, max(hist.counts) * 1.08, padding=0)
        if not spans:
            self.show_hint("Quantizing… the scales appear when PT2E has finished (this is the predicted graph)."
                           if getattr(analysis, "predicted", False) else
                           "The analysis produced no quantized tensors for this model.")
            return
        lo, hi = min(s[0] for s in spans) - 0.25, max(s[1] for s in spans) + 0.25
        self.series_plots[-1].setXRange(lo, hi, padding=0)   # x is linked: both plots
        for plot in self.series_plots:
            _bound(plot, (lo, hi))
        self.show_plot()


class ShiftHistogram(_HintPlot):
    """How many requantization channels use each right-shift count n."""

    def __init__(self) -> None:
        super().__init__(_plot_widget("right-shift count n   (M = 2^-n)", "channels",
                                      _integer_axes("bottom")),
                         "Run a model to see its requantization shifts.")

    def set_analysis(self, analysis: Analysis) -> None:
        item = self.plot.getPlotItem()
        item.clear()
        _unbound(item)
        hist = analysis.histograms.get("shifts")
        if hist is None or not hist.counts or not sum(hist.counts):
            exact = sum(1 for r in analysis.requant if r.exact)
            self.show_hint("No exact right shifts in this model: with non-power-of-two scales, "
                           "M = s_in·s_w/s_out is not 2^-n, so the hardware would need a multiplier."
                           if analysis.requant and not exact else
                           " ".join(filter(None, ["This model has no requantization sites.",
                                                  empty_weights_reason(analysis.summary)])))
            return
        centers, widths = _centers(hist)
        _bars(item, centers, hist.counts, float(np.min(widths)) * 0.8, theme.PLOT_COLORS["shift"])
        x = (float(hist.edges[0]) - 0.5, float(hist.edges[-1]) + 0.5)
        item.setXRange(*x, padding=0)
        item.setYRange(0, max(hist.counts) * 1.08, padding=0)
        _bound(item, x, (0.0, max(hist.counts) * 1.08))
        self.show_plot()


class ChannelPlot(_HintPlot):
    """The selected node's per-channel log2(weight scale) and right shifts."""

    HINT = "Select a conv or linear node (or a weight) to see its per-channel scales and shifts."

    def __init__(self) -> None:
        layout = pg.GraphicsLayoutWidget()
        self.scales_plot = layout.addPlot(row=0, col=0, axisItems=_integer_axes("bottom"))
        self.shifts_plot = layout.addPlot(row=1, col=0, axisItems=_integer_axes("bottom", "left"))
        _style_plot(self.scales_plot, "log2(weight scale)")
        _style_plot(self.shifts_plot, "right shift n", "output channel")
        self.shifts_plot.setXLink(self.scales_plot)
        super().__init__(layout, self.HINT)
        self.node: str | None = None

    def set_node(self, analysis: Analysis, model: GraphModel | None, node_id: str | None) -> None:
        self.node = node_id
        scales, shifts, exact = self._data(analysis, model, node_id)
        for plot in (self.scales_plot, self.shifts_plot):
            plot.clear()
            _unbound(plot)
        if not scales and not shifts:
            self.show_hint(self.HINT if node_id is None else no_channels_reason(analysis, node_id, self.HINT))
            return
        x = (-0.6, max(len(scales), len(shifts)) - 0.4)
        if scales:
            logs = [math.log2(s) if 0 < s < math.inf else 0.0 for s in scales]
            base = math.floor(min(logs)) - 1.0          # bars rise from below the smallest scale
            bars = pg.BarGraphItem(x=np.arange(len(logs)), y0=base, y1=np.asarray(logs), width=0.8,
                                   brush=pg.mkBrush(theme.PLOT_COLORS["weight"]), pen=pg.mkPen("w", width=0.5))
            self.scales_plot.addItem(bars)
            self.scales_plot.setTitle(f"{node_id}: {len(scales)} weight scales", color=theme.TEXT, size="10pt")
            y = (base, max(logs) + 0.25)
            self.scales_plot.setRange(xRange=x, yRange=y, padding=0)
            _bound(self.scales_plot, x, y)
        if shifts:
            color = theme.PLOT_COLORS["shift"] if exact else theme.PLOT_COLORS["bad"]
            _bars(self.shifts_plot, np.arange(len(shifts)), shifts, 0.8, color)
            y = (min(0.0, min(shifts)) - 0.25, max(shifts) + 0.75)
            self.shifts_plot.setRange(xRange=x, yRange=y, padding=0)
            _bound(self.shifts_plot, x, y)
        else:
            _bound(self.shifts_plot, x)
        self.show_plot()

    @staticmethod
    def _data(analysis, model, node_id):
        if analysis is None or node_id is None:
            return [], [], True
        members = {node_id}
        if model is not None:
            try:
                members.update(model.node(node_id).folded)
            except KeyError:
                pass
        weight = next((t for t in analysis.tensors if t.kind == "weight"
                       and (t.consumer == node_id or t.node in members)), None)
        scales = list(weight.scales) if weight is not None and len(weight.scales) > 1 else []
        site_node = weight.consumer if weight is not None and weight.consumer else node_id
        site = next((r for r in analysis.requant if r.node == site_node), None)
        shifts = list(site.shifts if site and site.shifts is not None else (site.nearest_shifts if site else ()))
        return scales, shifts, bool(site and site.exact)


def no_channels_reason(analysis: Analysis, node_id: str, hint: str) -> str:
    """Why the selected node has nothing per channel to plot, in its own terms: an op without
    weights, a weighted op left in float on the CPU (its weights are not quantized), or weights
    with one per-tensor scale."""
    info = analysis.nodes.get(node_id)
    name = op_label(info.op) if info is not None and info.op else node_id
    weighted = info is not None and any(arg.name == "weight" for arg in info.arguments)
    if not weighted:
        return f"{name} ({node_id}) has no weights. {hint}"
    weight = next((t for t in analysis.tensors if t.kind == "weight" and t.consumer == node_id), None)
    if weight is not None:
        return (f"{name} ({node_id}) has one per-tensor weight scale ({scales_text(weight.scales)}): "
                "nothing per channel to plot.")
    cpu = next((c for c in analysis.partition.cpu_nodes if c.node == node_id), None)
    if cpu is not None:
        return (f"{name} ({node_id}) runs on the CPU in float — {cpu.reason} — so its weights are not "
                "quantized: no per-channel scales or shifts.")
    return f"The weights of {name} ({node_id}) are not quantized: no per-channel scales or shifts."


class Pow2Comparison(_HintPlot):
    """VPU quantizer: every scale before (float) and after rounding up to 2^k."""

    def __init__(self) -> None:
        super().__init__(_plot_widget("log2(float scale from the observer)", "log2(power-of-two scale used)"),
                         "Run a model to compare float and power-of-two scales.")
        self.plot.setMouseEnabled(x=True, y=True)
        self.plot.getPlotItem().addLegend(offset=(-10, -10), labelTextColor=theme.TEXT)

    def set_analysis(self, analysis: Analysis) -> None:
        item = self.plot.getPlotItem()
        item.clear()
        _unbound(item)
        points: dict[str, tuple[list[float], list[float]]] = {"activation": ([], []), "weight": ([], [])}
        for t in analysis.tensors:
            if not t.float_scales or t.kind not in points:
                continue
            for f, s in zip(t.float_scales, t.scales):
                if 0 < f < math.inf and 0 < s < math.inf:   # an inf scale is a note, not a point
                    points[t.kind][0].append(math.log2(f))
                    points[t.kind][1].append(math.log2(s))
        if not any(xs for xs, _ in points.values()):
            self.show_hint("Float vs power-of-two scales are shown for the VPU quantizer, whose "
                           "observers round every scale up to 2^k. The XNNPACK quantizer keeps float "
                           "scales, which is why it breaks the power-of-two rule.")
            return
        xs_all = [x for xs, _ in points.values() for x in xs]
        lo, hi = math.floor(min(xs_all)) - 0.5, math.ceil(max(xs_all)) + 0.5
        item.plot([lo, hi], [lo, hi], pen=pg.mkPen(theme.MUTED, width=1.5), name="same scale (y = x)")
        item.plot([lo, hi], [lo + 1, hi + 1], pen=pg.mkPen(theme.MUTED, width=1, style=Qt.PenStyle.DashLine),
                  name="2× coarser (y = x + 1)")
        for kind, (xs, ys) in points.items():
            if xs:
                item.plot(xs, ys, pen=None, symbol="o", symbolSize=6, symbolPen=None,
                          symbolBrush=pg.mkBrush(theme.PLOT_COLORS[kind] + "b0"), name=f"{kind}s")
        item.setRange(xRange=(lo, hi), yRange=(lo, hi + 1), padding=0)
        _bound(item, (lo, hi), (lo, hi + 1))
        self.show_plot()

"""How long the plots take to repaint while a user zooms out of them with the wheel.

Every plot of the plots dock (scale and shift histograms, the selected conv's per-channel scales
and shifts, float vs 2^k scales), drawn for one analysis at 420 × 300 px, gets `notches` wheel
clicks out and then as many in; each click is followed by a full repaint (QWidget.grab). The
target: no repaint over 50 ms after 60 notches, no exception.
"""
from __future__ import annotations

import statistics
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis

NOTCHES = 60


def measure_plot_zoom(analysis: Analysis, notches: int = NOTCHES) -> list[dict]:
    """One row per plot: the slowest and the median repaint over `notches` out and in."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    from app import fonts
    from app.widgets.plots import ChannelPlot, Pow2Comparison, ScaleHistogram, ShiftHistogram

    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication([])
    fonts.install(app)
    conv = next((n for n, i in analysis.nodes.items() if i.op.startswith(("conv", "linear"))), None)
    rows = []
    channels = ChannelPlot()
    channels.set_node(analysis, None, conv)
    widgets: list[tuple[str, ScaleHistogram | ShiftHistogram | ChannelPlot | Pow2Comparison]] = [
        ("scales", ScaleHistogram()), ("shifts", ShiftHistogram()), ("channels", channels),
        ("pow2", Pow2Comparison())]
    for name, widget in widgets:
        if not isinstance(widget, ChannelPlot):
            widget.set_analysis(analysis)
        widget.resize(420, 300)
        widget.show()
        app.processEvents()
        viewport = widget.plot.viewport()
        pos = QPointF(viewport.width() / 2, viewport.height() / 2)
        times = []
        for delta in [-120] * notches + [120] * notches:
            QApplication.sendEvent(viewport, QWheelEvent(
                pos, viewport.mapToGlobal(pos), QPoint(0, 0), QPoint(0, delta),
                Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                Qt.ScrollPhase.NoScrollPhase, False))
            start = time.perf_counter()
            widget.grab()
            times.append(time.perf_counter() - start)
        widget.close()
        rows.append({"plot": name, "notches": notches, "max_repaint_s": max(times),
                     "median_repaint_s": statistics.median(times)})
    return rows

"""Plots are bounded to their data: sixty wheel notches out (or in) on any plot never
raise and never show past the data; integer axes tick from the visible range.

Before: the Shifts and per-channel plots kept a fixed tick spacing of 1, so zooming out thirty
notches asked the axis for millions of ticks (seconds per repaint, then MemoryError). Timing is
`python -m tools.bench`'s job (plot_zoom rows), never a test's.
"""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from app.widgets.plots import ChannelPlot, IntegerAxis, Pow2Comparison, ScaleHistogram, ShiftHistogram

NOTCHES = 60


def wheel(widget, notches: int) -> None:
    """`notches` wheel clicks over the middle of `widget` (negative: zoom out), painted every
    fifth (a repaint: the axes draw their ticks, where the MemoryError came from)."""
    viewport = widget.viewport()
    pos = QPointF(viewport.width() / 2, viewport.height() / 2)
    step = QPoint(0, 120 if notches > 0 else -120)
    for i in range(abs(notches)):
        QApplication.sendEvent(viewport, QWheelEvent(
            pos, viewport.mapToGlobal(pos), QPoint(0, 0), step, Qt.MouseButton.NoButton,
            Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False))
        if i % 5 == 4:
            widget.grab()


def _within(plot) -> None:
    vb = plot.getViewBox()
    limits = vb.state["limits"]
    (x0, x1), (y0, y1) = vb.viewRange()
    lo, hi = limits["xLimits"]
    assert lo <= x0 + 1e-9 and x1 <= hi + 1e-9, (x0, x1, lo, hi)
    if limits["yLimits"][0] is not None:
        assert limits["yLimits"][0] - 1e-9 <= y0 and y1 <= limits["yLimits"][1] + 1e-9
    return (x0, x1), (lo, hi)


@pytest.fixture(scope="module")
def resnet8(analysis):
    return analysis("resnet8")


def _plot(resnet8, name: str):
    """(widget, the view that takes the wheel, its plot items) of one plot, drawn for resnet8."""
    if name == "channels":
        widget = ChannelPlot()
        conv = next(n for n, i in resnet8.nodes.items() if i.op.startswith("conv2d"))
        widget.set_node(resnet8, None, conv)
        return widget, widget.plot, [widget.scales_plot, widget.shifts_plot]
    widget = {"shifts": ShiftHistogram, "scales": ScaleHistogram, "pow2": Pow2Comparison}[name]()
    widget.set_analysis(resnet8)
    items = widget.series_plots if name == "scales" else [widget.plot.getPlotItem()]
    return widget, widget.plot, items


@pytest.mark.parametrize("name", ["shifts", "channels", "scales", "pow2"])
def test_sixty_notches_out_and_in_stay_within_the_data(qtbot, resnet8, name):
    widget, view, items = _plot(resnet8, name)
    qtbot.addWidget(widget)
    widget.resize(420, 300)
    widget.show()
    qtbot.waitExposed(widget)
    assert widget.showing_plot
    wheel(view, -NOTCHES)                           # out: clamped to the whole data
    for item in items:
        (x0, x1), (lo, hi) = _within(item)
        assert x1 - x0 == pytest.approx(hi - lo, rel=1e-6)
    wheel(view, NOTCHES)                            # in: at most to 1/64 of the data
    for item in items:
        (x0, x1), (lo, hi) = _within(item)
        assert x1 - x0 >= (hi - lo) / 64 * (1 - 1e-6)
    for item in items:                              # integer axes: a few ticks, never millions
        for axis in ("bottom", "left"):
            ax = item.getAxis(axis)
            if isinstance(ax, IntegerAxis):
                (v0, v1) = item.getViewBox().viewRange()[0 if axis == "bottom" else 1]
                (step, _), = ax.tickSpacing(v0, v1, 300)
                assert step >= 1 and (v1 - v0) / step <= 300 / IntegerAxis.PX_PER_TICK + 1


def test_integer_ticks_follow_the_visible_range():
    axis = IntegerAxis("bottom")
    assert axis.tickSpacing(0, 10, 400) == [(1.0, 0.0)]
    assert axis.tickSpacing(0, 1000, 400) == [(128.0, 0.0)]          # ≤ 10 ticks in 400 px
    assert axis.tickSpacing(-1e12, 1e12, 400)[0][0] >= 2e11            # huge: still a handful


def test_the_log2_scale_axis_ticks_at_integers_under_bars_on_integers(qtbot, resnet8):
    """"integer = power of two" — ticks at integers only, each bar centred on one."""
    import numpy as np
    import pyqtgraph as pg

    widget = ScaleHistogram()
    qtbot.addWidget(widget)
    widget.set_analysis(resnet8)
    for plot in widget.series_plots:
        assert isinstance(plot.getAxis("bottom"), IntegerAxis)
        bars = [i for i in plot.items if isinstance(i, pg.BarGraphItem)]
        xs = np.concatenate([np.asarray(b.opts["x"], float) for b in bars])
        assert len(xs) and np.allclose(xs, np.round(xs))

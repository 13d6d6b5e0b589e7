"""pyqtgraph, imported when the first plot is made, not when the window starts.

Why: `import pyqtgraph` costs about 0.35 s of CPU (measured with `python -X importtime` and in
`python -m tools.bench --first-graph`: a warm launch of resnet8 painted its graph at 1.66–1.74 s
with it at the top of five widget modules), and no plot is on screen before the first graph: the
node dock's integer-simulation chart opens folded, the What-if and Sensitivity charts wait for a
run, the Plots tabs are built when they are first shown (app.widgets.deferred).

`pyqtgraph_module()` imports and configures it once; `PlotSlot` is the place in a layout where a
`pg.PlotWidget` goes, a Deferred made the first time its `.plot` is asked for or it is painted
(sizes, policies and tooltips are set on the slot, which the layout holds from the start).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QSizePolicy

from app import theme
from app.widgets.deferred import Deferred

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import ModuleType

    import pyqtgraph as pg

_configured = False


def pyqtgraph_module() -> ModuleType:
    """pyqtgraph, imported on first use with the window's plot look (white, anti-aliased)."""
    global _configured
    import pyqtgraph

    if not _configured:
        pyqtgraph.setConfigOptions(background="w", foreground=theme.TEXT, antialias=True)
        _configured = True
    return pyqtgraph


class PlotSlot(Deferred["pg.PlotWidget"]):
    """A Deferred pyqtgraph PlotWidget: made (and passed to `made`, which styles and wires it)
    the first time `plot` is read or the slot is painted; it takes the slot's tooltip."""

    def __init__(self, made: Callable[[pg.PlotWidget], None] | None = None) -> None:
        super().__init__(self._make)
        self._made = made

    def _make(self) -> pg.PlotWidget:
        plot = pyqtgraph_module().PlotWidget()
        plot.setToolTip(self.toolTip())
        if self._made is not None:
            self._made(plot)
        return plot

    @property
    def plot(self) -> pg.PlotWidget:
        return self.widget


def ranked_bars_look(plot: pg.PlotWidget, bottom: str) -> None:
    """The look of a ranked horizontal bar chart in a narrow dock (what-if's constraint costs,
    sensitivity's error shares): fixed axes, rows top down, each name over its bar (no left axis),
    and a size hint that never widens the dock."""
    plot.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Expanding)
    item = plot.getPlotItem()
    item.setMenuEnabled(False)
    item.hideButtons()
    item.setMouseEnabled(x=False, y=False)
    item.showGrid(x=True, y=False, alpha=0.25)
    item.setLabel("bottom", bottom, color=theme.MUTED)
    item.getViewBox().invertY(True)
    item.hideAxis("left")

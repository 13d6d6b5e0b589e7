"""pyqtgraph, imported when the first plot is made, not when the window starts.

Why: `import pyqtgraph` costs about 0.35 s of CPU (measured with `python -X importtime` and in
`vpu-inspector bench --first-graph`: a warm launch of resnet8 painted its graph at 1.66–1.74 s
with it at the top of five widget modules), and no plot is on screen before the first graph: the
node dock's integer-simulation chart opens folded, the What-if and Sensitivity charts wait for a
run, the Plots tabs are built when they are first shown (app.widgets.deferred).

`pyqtgraph_module()` imports and configures it once; `PlotSlot` is the place in a layout where a
`pg.PlotWidget` goes, made the first time its `.plot` is asked for (sizes, policies and tooltips
are set on the slot, which the layout holds from the start).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QSizePolicy, QVBoxLayout, QWidget

from app import theme

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


class PlotSlot(QWidget):
    """Holds one pyqtgraph PlotWidget, made (and passed to `made`, which styles and wires it) the
    first time `plot` is read."""

    def __init__(self, made: Callable[[pg.PlotWidget], None] | None = None) -> None:
        super().__init__()
        self._made = made
        self._plot: pg.PlotWidget | None = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    @property
    def built(self) -> bool:
        return self._plot is not None

    @property
    def plot(self) -> pg.PlotWidget:
        if self._plot is None:
            plot = pyqtgraph_module().PlotWidget()
            plot.setToolTip(self.toolTip())
            self._layout.addWidget(plot)
            self._plot = plot
            if self._made is not None:
                self._made(plot)
        return self._plot


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

"""The legend of a graph coloured by a target's verdict (XNNPACK, an Ethos-U, TOSA INT).

Green means "on the target's accelerator" and orange "on the CPU" under every target (XNNPACK's
delegates, an Ethos-U's NPU partitions); the canvas' own legend is replaced by `DelegationLegend`,
painted in the same style and titled with the target's name.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, QSizeF, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QWidget

from app.graph_view.legend import paint_rows, rows_size
from app.graph_view.overlays import EDGE
from app.graph_view.style import Theme, legend_entries
from vpu_core.graph.legend import LegendFacts, legend_facts

if TYPE_CHECKING:
    from PySide6.QtGui import QPaintEvent
    from app.graph_view.view import GraphView

def delegation_entries(theme: Theme, facts: LegendFacts, source: str = "xnnpack") -> list[tuple[str, str, object]]:
    """The canvas legend's rows, worded for the verdict of target `source` (the facts carry its
    accelerator's name and what its badges count: vpu_core.graph.legend)."""
    return legend_entries(theme, facts)


def legend_title(source: str, title: str) -> str:
    """The legend names the target whose verdict colours the graph ("XNNPACK", "Ethos-U55-128")."""
    return title


TITLE = legend_title("xnnpack", "XNNPACK")


def entries_size(theme: Theme, rows: list, title: str = TITLE) -> QSizeF:
    return rows_size(theme, rows, title)


def paint_entries(painter: QPainter, top_left: QPointF, theme: Theme, rows: list, title: str = TITLE) -> QRectF:
    """A legend box like the canvas' own (same swatches, same painter), with a title line."""
    return paint_rows(painter, top_left, theme, rows, title)


class DelegationLegend(QWidget):
    """Floats over a GraphView's top-right corner while the overlay is on (the view's own
    legend is hidden then); follows the view's size through an event filter."""

    def __init__(self, view: GraphView) -> None:
        super().__init__(view)
        self.view = view
        self.rows: list = []
        self.title = TITLE
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents, True)
        self.setAttribute(Qt.WidgetAttribute.WA_NoSystemBackground, True)
        self.hide()
        self._filter = _ResizeFilter(self)
        view.installEventFilter(self._filter)

    def refresh(self, on: bool, source: str = "xnnpack", title: str = "XNNPACK") -> None:
        scene = self.view.graph_scene()
        self.view.set_corner_legend(self if on and scene is not None else None)
        if not on or scene is None:
            self.hide()
            return
        self.rows = delegation_entries(self.view.theme(), legend_facts(scene.model), source)
        self.title = legend_title(source, title)
        size = entries_size(self.view.theme(), self.rows, self.title)
        self.resize(int(size.width()) + 2, int(size.height()) + 2)
        self.place()
        self.show()
        self.raise_()
        self.update()

    def place(self) -> None:
        vp = self.view.viewport().geometry()
        self.move(vp.right() - self.width() - EDGE, vp.top() + EDGE)   # where the canvas' legend sits

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        paint_entries(painter, QPointF(0.5, 0.5), self.view.theme(), self.rows, self.title)
        painter.end()


class _ResizeFilter(QObject):
    def __init__(self, legend: DelegationLegend) -> None:
        super().__init__(legend)
        self.legend = legend

    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.Resize and self.legend.isVisible():
            self.legend.place()
        return False

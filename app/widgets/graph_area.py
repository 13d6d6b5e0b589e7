"""The centre of the window: a placeholder until there is a graph, then the canvas or, in compare
mode, the compare view (one QStackedWidget; the display feature picks the page)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QStackedWidget, QWidget

from app import theme

if TYPE_CHECKING:
    from app.graph_view import GraphView
    from app.widgets.compare_view import CompareView


class GraphArea(QStackedWidget):
    def __init__(self, graph_view: GraphView, compare_view: CompareView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.graph_view, self.compare_view = graph_view, compare_view
        self.placeholder = QLabel("Loading…")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setStyleSheet(f"color: {theme.MUTED}; font-size: 15pt; background: white;")
        for widget in (self.placeholder, graph_view, compare_view):
            self.addWidget(widget)

    def show_placeholder(self, text: str | None = None) -> None:
        """The placeholder (with `text`, or the one it has)."""
        if text is not None:
            self.placeholder.setText(text)
        self.setCurrentWidget(self.placeholder)

    def show_single(self) -> None:
        self.setCurrentWidget(self.graph_view)

    def show_compare(self) -> None:
        self.setCurrentWidget(self.compare_view)

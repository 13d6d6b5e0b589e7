"""The centre of the window: a placeholder until there is a graph, then the canvas or, in compare
mode, the compare view (one QStackedWidget; the display feature picks the page)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QLabel, QStackedWidget, QWidget

from app import theme
from app.widgets.before_after_card import BeforeAfterCard

if TYPE_CHECKING:
    from PySide6.QtGui import QResizeEvent

    from vpu_core.whatif.try_on_vpu import BeforeAfter
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
        self.card = BeforeAfterCard(self)        # floats over the canvas, bottom left
        self.card.hide()

    def show_card(self, card: BeforeAfter | None) -> None:
        """The before / after card of the last Apply (None: hide it)."""
        self.card.show_card(card)
        self._place_card()

    def _place_card(self) -> None:
        """Bottom left, unless that covers a node the Apply moved: then the free corner that
        covers fewest of them (bottom right beside the minimap, top left under the breadcrumbs)."""
        self.card.adjustSize()
        w, h, cw, ch = self.width(), self.height(), self.card.width(), self.card.height()
        spots = [(12, h - ch - 12), (w - cw - 200, h - ch - 12), (12, 44)]
        moved = self._moved_rects()
        best = min(spots, key=lambda p: sum(QRect(p[0], p[1], cw, ch).intersects(r) for r in moved))
        self.card.move(max(0, best[0]), max(0, best[1]))

    def _moved_rects(self) -> list[QRect]:
        """Where the nodes the last Apply moved are drawn, in this widget's pixels."""
        card, view = self.card.card, self.graph_view
        scene = view.graph_scene()
        if card is None or not card.moved or scene is None or self.currentWidget() is not view:
            return []
        out = []
        for rect in scene.rects_of(card.moved):
            box = view.mapFromScene(rect).boundingRect()
            out.append(QRect(view.viewport().mapTo(self, box.topLeft()), box.size()))
        return out

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._place_card()

    def show_placeholder(self, text: str | None = None) -> None:
        """The placeholder (with `text`, or the one it has)."""
        if text is not None:
            self.placeholder.setText(text)
        self.setCurrentWidget(self.placeholder)

    def show_single(self) -> None:
        self.setCurrentWidget(self.graph_view)

    def show_compare(self) -> None:
        self.setCurrentWidget(self.compare_view)

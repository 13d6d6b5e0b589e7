"""What the last Apply changed: a small card of before → after numbers with their deltas.

Displays a vpu_core.whatif.try_on_vpu.BeforeAfter (the core computed every number and delta;
vpu_core.formatting writes them): CPU ops, VPU subgraphs, boundary bytes, SQNR and the VPU's share
of the MACs, an improvement in green, a regression in red. It floats over the canvas' bottom-left
corner (app.widgets.graph_area), where the eye goes back after Apply, and takes no room from the
docks at 1280×720. The × (or Escape on it) closes it.
"""
from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QSizePolicy, QToolButton, QWidget

from app import theme
from vpu_core.formatting import card_delta_text, card_value_text

if TYPE_CHECKING:
    from vpu_core.whatif.try_on_vpu import BeforeAfter


class BeforeAfterCard(QFrame):
    WIDTH = 370

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("beforeAfter")
        self.setStyleSheet("#beforeAfter { background: rgba(243,248,244,245); border: 1px solid #9cc7a9; "
                           "border-radius: 6px; } #beforeAfter QLabel { background: transparent; }")
        self.setMinimumWidth(self.WIDTH)    # wider when its labels need it: never "VPU subgrapł"
        self.card: BeforeAfter | None = None
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(10, 6, 6, 6)
        self.grid.setHorizontalSpacing(10)
        self.grid.setVerticalSpacing(1)
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.close_button = QToolButton()
        self.close_button.setText("×")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip("Close")
        self.close_button.clicked.connect(self.hide)
        self.cells: dict[str, tuple[QLabel, QLabel, QLabel]] = {}

    def show_card(self, card: BeforeAfter | None) -> None:
        self.card = card
        while self.grid.count():
            item = self.grid.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None and widget not in (self.title, self.close_button):
                widget.deleteLater()
        if card is None:
            self.hide()
            return
        self.title.setText(f"<b>Applied:</b> {html.escape(card.change or 'the edited profile')}")
        self.grid.addWidget(self.title, 0, 0, 1, 4)
        self.grid.addWidget(self.close_button, 0, 4, Qt.AlignmentFlag.AlignTop)
        for col, head in enumerate(("", "before", "after", "change")):
            label = QLabel(head)
            label.setStyleSheet(f"color: {theme.MUTED}; font-size: 8pt;")
            self.grid.addWidget(label, 1, col, Qt.AlignmentFlag.AlignRight if col else Qt.AlignmentFlag.AlignLeft)
        self.cells = {}
        for row, d in enumerate(card.rows, start=2):
            color = {True: theme.OK, False: theme.DANGER, None: theme.MUTED}[d.improved]
            name = QLabel(d.title)
            cells = (QLabel(card_value_text(d.before, d.unit)), QLabel(card_value_text(d.after, d.unit)),
                     QLabel(f'<b style="color:{color}">{card_delta_text(d.delta, d.unit)}</b>'))
            self.grid.addWidget(name, row, 0)
            for col, label in enumerate(cells, start=1):
                self.grid.addWidget(label, row, col, Qt.AlignmentFlag.AlignRight)
            self.cells[d.key] = cells
        self.adjustSize()
        self.show()
        self.raise_()

    def texts(self, key: str) -> tuple[str, str, str]:
        """(before, after, change) as shown for a row key (for tests)."""
        import re

        return tuple(re.sub(r"<[^>]+>", "", label.text()) for label in self.cells[key])  # type: ignore[return-value]

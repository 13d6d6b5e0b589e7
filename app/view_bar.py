"""The strip above the graph: fold toggle, fit, search with next/previous, projector options.

The colour legend is drawn by the graph view itself (top-right corner of the canvas).
"""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QFrame, QHBoxLayout, QLabel, QLineEdit, QPushButton

from app import theme


class ViewBar(QFrame):
    fold_toggled = Signal(bool)
    fit_clicked = Signal()
    search_changed = Signal(str)
    next_clicked = Signal()
    prev_clicked = Signal()
    large_font_toggled = Signal(bool)
    high_contrast_toggled = Signal(bool)

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("viewBar")
        self.fold = QCheckBox("Fold parameters")
        self.fold.setChecked(True)
        self.fold.setToolTip("Fold weights, biases and their Q/DQ chains into the op that uses them")
        self.fit = QPushButton("Fit  (F)")
        self.fit.setToolTip("Fit the whole graph in the view (F)")
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search nodes…  (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumWidth(240)
        self.prev = QPushButton("◀")
        self.next = QPushButton("▶")
        for button, tip in ((self.prev, "Previous match (Shift+Enter)"), (self.next, "Next match (Enter)")):
            button.setToolTip(tip)
            button.setFixedWidth(38)
        self.matches = QLabel("")
        self.matches.setObjectName("muted")
        self.matches.setMinimumWidth(90)
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 6, 10, 6)
        row.setSpacing(8)
        for w in (self.fold, self.fit, self.search, self.prev, self.next, self.matches):
            row.addWidget(w)
        row.addStretch(1)
        self.large_font = QPushButton("Large labels")
        self.large_font.setToolTip("Bigger node labels, for projectors")
        self.high_contrast = QPushButton("High contrast")
        self.high_contrast.setToolTip("Darker colours and bolder outlines")
        for button in (self.large_font, self.high_contrast):
            button.setCheckable(True)
            row.addWidget(button)
        self.fold.toggled.connect(self.fold_toggled)
        self.fit.clicked.connect(self.fit_clicked)
        self.search.textChanged.connect(self.search_changed)
        self.search.returnPressed.connect(self.next_clicked)
        self.next.clicked.connect(self.next_clicked)
        self.prev.clicked.connect(self.prev_clicked)
        self.large_font.toggled.connect(self.large_font_toggled)
        self.high_contrast.toggled.connect(self.high_contrast_toggled)

    def set_match_count(self, index: int | None, count: int, text: str) -> None:
        if not text:
            self.matches.setText("")
        elif count == 0:
            self.matches.setText(f'<span style="color:{theme.DANGER}">no match</span>')
        else:
            self.matches.setText(f"{index + 1 if index is not None else 1} of {count}")

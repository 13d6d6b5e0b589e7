"""The view toolbar: fold, hide Q/DQ, fit, search, the walk through what the target rejects,
compare mode, colouring by the partition or a metric, and the presentation options (the target
itself is the run toolbar's first choice: app.widgets.run_controls).

A QToolBar, so a narrow window moves its last items into the overflow menu (») instead of
clipping them or widening the window. The colour legend is drawn by the graph view itself.
Escape in the search field clears the search.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QSizePolicy, QToolBar,
                               QWidget)

from app import theme

METRIC_CHOICES = (("", "Partition"), ("sqnr", "Layer SQNR"), ("pow2_loss", "Pow2 loss"),
                  ("shift", "Shift"), ("boundary_bytes", "Bytes"), ("measured_us", "Measured µs"),
                  ("npu_cycles", "NPU cycles"))


class _EscapeClears(QObject):
    def eventFilter(self, obj, event) -> bool:
        if event.type() == QEvent.Type.KeyPress and event.key() == Qt.Key.Key_Escape and obj.text():
            obj.clear()
            return True
        return False


class ViewBar(QToolBar):
    fold_toggled = Signal(bool)
    fit_clicked = Signal()
    search_changed = Signal(str)
    next_clicked = Signal()
    prev_clicked = Signal()
    large_font_toggled = Signal(bool)
    high_contrast_toggled = Signal(bool)
    compare_toggled = Signal(bool)
    violation_step = Signal(int)                # +1 next, -1 previous
    hide_qdq_toggled = Signal(bool)
    metric_changed = Signal(str)                # metric key, "" = colour by partition

    def __init__(self) -> None:
        super().__init__("View")
        self.setObjectName("viewToolbar")
        self.setMovable(False)
        self.fold = QCheckBox("Fold parameters")
        self.fold.setChecked(True)
        self.fold.setToolTip("Fold weights, biases and their Q/DQ chains into the op that uses them")
        self.hide_qdq = QCheckBox("Hide Q/DQ")
        self.hide_qdq.setToolTip("Fold quantize → dequantize pairs into the edge they sit on; the "
                                 "edge shows the tensor's dtype and scale")
        self.metric_combo = QComboBox()
        for key, text in METRIC_CHOICES:
            self.metric_combo.addItem(text, key)
        self.metric_combo.setToolTip("Colour ops by the target's partition, or by a number the analysis has (layer "
                                     "SQNR, pow2 rounding loss, requant shift, boundary bytes, µs measured on "
                                     "this CPU by Run ▸ Run on this CPU) on a gradient with a legend")
        self.fit = QPushButton("Fit")
        self.fit.setToolTip("Fit the graph's width at a legible zoom (F); Shift+F fits all")
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search name, op or module…  (Ctrl+F)")
        self.search.setToolTip("Find nodes by fx name, op or module path; Enter: next match, Escape: clear")
        self.search.setClearButtonEnabled(True)
        self.search.setMinimumWidth(200)
        self.search.setMaximumWidth(320)
        self._escape = _EscapeClears(self.search)
        self.search.installEventFilter(self._escape)
        self.prev, self.next = QPushButton("◀"), QPushButton("▶")
        for button, tip in ((self.prev, "Previous match (Shift+Enter, Shift+F3)"),
                            (self.next, "Next match (Enter, F3)")):
            button.setToolTip(tip)
            button.setFixedWidth(34)
        self.matches = QLabel("")
        self.matches.setObjectName("muted")
        self.matches.setMinimumWidth(64)
        self.compare = QPushButton("⇆ Compare")
        self.compare.setCheckable(True)
        self.compare.setToolTip("Compare mode: this configuration (A) side by side with another (B) — Ctrl+K")
        self.prev_violation, self.next_violation = QPushButton("◀"), QPushButton("▶")
        self.prev_violation.setToolTip("Previous violation (Shift+V, PgUp)")
        self.next_violation.setToolTip("Next violation (V, PgDown)")
        for button in (self.prev_violation, self.next_violation):
            button.setFixedWidth(34)
        self.violation_label = QLabel("")
        self.violation_label.setMinimumWidth(90)
        self.large_font = QPushButton("Aa")
        self.large_font.setToolTip("Large labels: bigger text on the graph and in the panels, for projectors")
        self.high_contrast = QPushButton("HC")
        self.high_contrast.setToolTip("High contrast: black outlines and edges, darker text")
        for button in (self.large_font, self.high_contrast):
            button.setCheckable(True)
            button.setStyleSheet("padding: 5px 9px;")
        colour_label = QLabel("Colour by")
        colour_label.setObjectName("muted")
        # the label and its combo as one toolbar item: a narrow window moves them into » together,
        # never leaving "Colour by" beside the » without its choice
        colour_box = QWidget()
        colour_row = QHBoxLayout(colour_box)
        colour_row.setContentsMargins(0, 0, 0, 0)
        colour_row.addWidget(colour_label)
        colour_row.addWidget(self.metric_combo)
        widget: QWidget
        for widget in (self.fold, self.hide_qdq, self.fit, self.search, self.prev, self.next, self.matches):
            self.addWidget(widget)
        self.addSeparator()
        for widget in (self.prev_violation, self.violation_label, self.next_violation):
            self.addWidget(widget)
        self.addSeparator()
        for widget in (self.compare, colour_box):
            self.addWidget(widget)
        self.addSeparator()
        for widget in (self.large_font, self.high_contrast):
            self.addWidget(widget)
        # a separator keeps its width: otherwise the room left when the last items move into »
        # is spread over the separators, drawn as grey blocks
        for action in self.actions():
            if action.isSeparator():
                self.widgetForAction(action).setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)
        self._connect()
        self.set_violation_position(None, None)

    def _connect(self) -> None:
        self.fold.toggled.connect(self.fold_toggled)
        self.hide_qdq.toggled.connect(self.hide_qdq_toggled)
        self.metric_combo.currentIndexChanged.connect(lambda i: self.metric_changed.emit(self.metric_combo.itemData(i)))
        self.fit.clicked.connect(self.fit_clicked)
        self.search.textChanged.connect(self.search_changed)
        self.search.returnPressed.connect(self.next_clicked)
        self.next.clicked.connect(self.next_clicked)
        self.prev.clicked.connect(self.prev_clicked)
        self.large_font.toggled.connect(self.large_font_toggled)
        self.high_contrast.toggled.connect(self.high_contrast_toggled)
        self.compare.toggled.connect(self.compare_toggled)
        self.prev_violation.clicked.connect(lambda: self.violation_step.emit(-1))
        self.next_violation.clicked.connect(lambda: self.violation_step.emit(1))

    def set_match_count(self, index: int | None, count: int, text: str) -> None:
        if not text:
            self.matches.setText("")
        elif count == 0:
            self.matches.setText(f'<span style="color:{theme.DANGER}">no match</span>')
        else:
            self.matches.setText(f"{index + 1 if index is not None else 1} of {count}")

    def set_violation_position(self, index: int | None, count: int | None,
                               sides: Sequence[tuple[str, int]] = (), side: str = "",
                               colouring: str = "") -> None:
        """`count` None: no result yet, so no verdict either. Compare mode: `sides` = (side
        letter, its count) for both sides ("A 0 · B 148 violations") and `side` the side of the
        one shown ("B 3 of 148"). `colouring`: the target the graph is coloured by when it is not
        the VPU ("Ethos-U55-128"): then the walk is through that target's CPU ops, counted in the
        CPU's orange; "" the VPU's rule violations, in red."""
        alarm = theme.WARN if colouring else theme.DANGER
        rules = "CPU ops" if colouring else "violations"

        def number(n: int) -> str:
            return f'<b style="color:{alarm if n else theme.OK}">{n}</b>'

        if count is None:
            text = ""
        elif index is not None:
            where = f"{side} " if side else ""
            text = f'{where}<b style="color:{alarm}">{index + 1}</b> of {count}' + (" CPU ops" if colouring else "")
        elif sides:
            text = " · ".join(f"{letter} {number(n)}" for letter, n in sides) + f" {rules}"
        elif count == 0:
            text = f'<span style="color:{theme.OK}">no {rules}</span>'
        else:
            text = f"{number(count)} {rules}"
        self.violation_label.setText(text)
        self.violation_label.setToolTip(
            f"Walk through the ops {colouring} leaves on the CPU (their reasons in the node panel): "
            "V / Shift+V, or PgDown / PgUp" if colouring else
            "Walk through the VPU's rule violations: V / Shift+V, or PgDown / PgUp")
        # never narrower than its text: a full toolbar moves its last items into », the counter
        # is never cut ("A 0 · B 144 viola")
        self.violation_label.setMinimumWidth(max(90, self.violation_label.sizeHint().width()))
        for button in (self.prev_violation, self.next_violation):
            button.setEnabled(bool(count))

    def set_compare(self, on: bool) -> None:
        _quietly(self.compare.setChecked, self.compare, on)

    def set_fold(self, on: bool) -> None:
        _quietly(self.fold.setChecked, self.fold, on)

    def set_hide_qdq(self, on: bool) -> None:
        _quietly(self.hide_qdq.setChecked, self.hide_qdq, on)

    def set_metric(self, key: str | None) -> None:
        """Show colouring by `key` (None: by the partition) without announcing it."""
        index = self.metric_combo.findData(key or "")
        _quietly(self.metric_combo.setCurrentIndex, self.metric_combo, max(index, 0))

    def set_look(self, large_font: bool, high_contrast: bool) -> None:
        _quietly(self.large_font.setChecked, self.large_font, large_font)
        _quietly(self.high_contrast.setChecked, self.high_contrast, high_contrast)


def _quietly(setter: Callable[[Any], object], widget: QObject, value: Any) -> None:
    """Set a control the window changed, without the signal a user's change sends."""
    widget.blockSignals(True)
    try:
        setter(value)
    finally:
        widget.blockSignals(False)

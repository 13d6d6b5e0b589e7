"""The hardware profile as a form: constraint switches, the VPU op list (search, this model's ops),
the per-op limits and SRAM (app.widgets.limits_editor), shared-scale and fusable lists, shift
range, the integer simulation's rounding / accumulator / average-pool settings and the economics
break-even.

A widget: it shows the profile, op rows and feedback it is given and announces what the user
did (edited, Apply, Revert, Save as…, add an op). Validating, writing files, the diff against
the shipped profile and what Apply will re-run are the what-if feature's
(app.features.whatif), which asks the core.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import re

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDoubleSpinBox, QFileDialog, QFormLayout, QGroupBox,
                               QHBoxLayout, QLabel, QLineEdit, QListWidget, QListWidgetItem,
                               QPlainTextEdit, QPushButton, QScrollArea, QSizePolicy, QSpinBox, QTabWidget,
                               QVBoxLayout, QWidget)

from app import theme
from app.widgets.limits_editor import LimitsEditor

if TYPE_CHECKING:
    from vpu_core.profile import HardwareProfile
    from vpu_core.whatif.results import OpListRow

OP_ROWS = 8                          # op-list rows always visible (at 1280×720 the list had shrunk to one row)
OP_ROWS_LARGE = 5                    # … in the large font: 8 larger rows made the window 721 px high at 720
OP_ROLE = Qt.ItemDataRole.UserRole + 2
COUNT_ROLE = Qt.ItemDataRole.UserRole + 3


def _names(text: str) -> tuple[str, ...]:
    return tuple(n for n in re.split(r"[,\s]+", text.strip()) if n)


def _form(box: QGroupBox) -> QFormLayout:
    form = QFormLayout(box)
    form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)     # a narrow dock puts fields under labels
    return form


def _scrolling(widget: QWidget) -> QScrollArea:
    scroll = QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)   # the form fits the dock
    scroll.setWidget(widget)
    return scroll


def _wrapping(label: QLabel) -> QLabel:
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)   # never widens the dock
    return label


class ProfileEditor(QWidget):
    changed = Signal()                   # the form was edited
    apply_clicked = Signal()
    revert_clicked = Signal()
    save_requested = Signal(str)         # a .toml path the user chose
    add_op_requested = Signal(str)       # an op name typed into the add field

    def __init__(self) -> None:
        super().__init__()
        self._loading = False
        self.switches: dict[str, QCheckBox] = {}
        self._build()
        self.set_enabled(False)
        self.in_use_label.setText("Run a model to edit the hardware profile it uses.")

    # -- layout ------------------------------------------------------------------------------------
    def _size_op_list(self) -> None:
        """The op list's guaranteed rows in its current font (the large font of presentation
        mode keeps fewer: the dock's other rows grow too, and the window must still fit 720 px)."""
        large = self.op_list.font().pointSizeF() > theme.BASE_PT + 0.5
        row = self.op_list.fontMetrics().lineSpacing() + 4
        rows = OP_ROWS_LARGE if large else OP_ROWS
        self.op_list.setMinimumHeight(rows * row + 2 * self.op_list.frameWidth() + 4)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange) and hasattr(self, "op_list"):
            self._size_op_list()

    def _build(self) -> None:
        """Three pages, each with the whole height of the dock: the op list (outside any scroll
        area: at least OP_ROWS rows even at 720 px high), the per-op limits, and the switches and
        numbers (these two scroll)."""
        self.in_use_label = _wrapping(QLabel())
        self._form = form = QWidget()
        self._ops = self._ops_box()
        settings = QWidget()
        column = QVBoxLayout(settings)
        column.setContentsMargins(0, 0, 0, 0)
        self._switch_box = QGroupBox("Constraint switches")
        self._switch_box.setToolTip("Off: the constraint is not required (the quantizer relaxes it) and not checked")
        self._switch_layout = QVBoxLayout(self._switch_box)
        column.addWidget(self._switch_box)
        column.addWidget(self._lists_box())
        column.addWidget(self._numbers_box())
        column.addStretch(1)
        self.limits = LimitsEditor()
        self.limits.changed.connect(self._on_edit)
        self._scroll = _scrolling(self.limits)
        self.sections = QTabWidget()
        self.sections.setDocumentMode(True)
        self.sections.addTab(self._ops, "Op list")
        self.sections.addTab(self._scroll, "Per-op limits")
        self.sections.addTab(_scrolling(settings), "Switches · shifts")
        self.sections.setTabToolTip(1, "Per-op limits and SRAM: [op.NAME] tables and [memory]")
        form_column = QVBoxLayout(form)
        form_column.setContentsMargins(0, 0, 0, 0)
        form_column.addWidget(self.sections, 1)
        self.needs_label = _wrapping(QLabel())
        self.apply_button, self.revert_button = QPushButton("Apply"), QPushButton("Revert")
        self.save_button = QPushButton("Save as TOML…")
        self.apply_button.setObjectName("primary")
        self.apply_button.clicked.connect(self.apply_clicked)
        self.revert_button.clicked.connect(self.revert_clicked)
        self.save_button.clicked.connect(self._save_dialog)
        buttons = QHBoxLayout()
        for b in (self.apply_button, self.revert_button, self.save_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        self.diff_view = QPlainTextEdit()
        self.diff_view.setReadOnly(True)
        self.diff_view.setToolTip("Difference from the shipped profile")
        self.diff_view.setMinimumHeight(30)
        self.diff_view.setMaximumHeight(46)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.in_use_label)
        layout.addWidget(form, 1)
        layout.addWidget(self.needs_label)
        layout.addLayout(buttons)
        diff = QHBoxLayout()
        caption = QLabel("vs shipped:")
        caption.setToolTip("Difference from the shipped profile")
        caption.setAlignment(Qt.AlignmentFlag.AlignTop)
        diff.addWidget(caption)
        diff.addWidget(self.diff_view, 1)
        layout.addLayout(diff)

    def _ops_box(self) -> QGroupBox:
        box = QGroupBox("VPU op list (constraint 1)")
        box.setToolTip("Ops with a VPU kernel; the others fall back to the CPU")
        self.op_search = QLineEdit(placeholderText="Search ops…")
        self.op_search.setClearButtonEnabled(True)
        self.op_search.textChanged.connect(self._filter_ops)
        self.model_only = QCheckBox("this model's")
        self.model_only.setToolTip("Show only the ops this model uses")
        self.model_only.toggled.connect(self._filter_ops)
        self.op_list = QListWidget()
        self.op_list.setUniformItemSizes(True)
        self._size_op_list()
        self.op_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)   # long rows elide
        self.op_list.itemChanged.connect(self._on_edit)
        self.add_op = QLineEdit(placeholderText="Add an op (softmax, softmax.int) ⏎")
        self.add_op.setToolTip("Type an ATen op, with or without its overload, and press Enter")
        self.add_op.returnPressed.connect(self._on_add_op)
        top = QHBoxLayout()
        top.addWidget(self.op_search, 1)
        top.addWidget(self.model_only)
        layout = QVBoxLayout(box)
        layout.addLayout(top)
        layout.addWidget(self.op_list, 1)
        layout.addWidget(self.add_op)
        return box

    def _lists_box(self) -> QGroupBox:
        box = QGroupBox("Op lists of constraints 6 and 7")
        box.setToolTip("Comma-separated ATen op names")
        form = _form(box)
        self.shared_edit, self.fusable_edit, self.fused_edit = QLineEdit(), QLineEdit(), QLineEdit()
        for label, line in (("Shared scale (6)", self.shared_edit), ("Fusable (7)", self.fusable_edit),
                            ("Fused activations (7)", self.fused_edit)):
            line.textEdited.connect(self._on_edit)
            form.addRow(label, line)
        return box

    def _numbers_box(self) -> QGroupBox:
        box = QGroupBox("Shifts, integer simulation, economics")
        form = _form(box)
        self.min_shift, self.max_shift = QSpinBox(), QSpinBox()
        self.accumulator_bits, self.reciprocal_bits = QSpinBox(), QSpinBox()
        for spin, (lo, hi) in ((self.min_shift, (-64, 64)), (self.max_shift, (-64, 64)),
                               (self.accumulator_bits, (8, 64)), (self.reciprocal_bits, (1, 30))):
            spin.setRange(lo, hi)
            spin.valueChanged.connect(self._on_edit)
        shifts = QHBoxLayout()
        for w in (self.min_shift, QLabel("to"), self.max_shift):
            shifts.addWidget(w)
        shifts.addStretch(1)
        self.rounding, self.avg_pool_divisor = QComboBox(), QComboBox()
        for combo in (self.rounding, self.avg_pool_divisor):
            combo.currentIndexChanged.connect(self._on_edit)
        self.break_even = QDoubleSpinBox()
        self.break_even.setDecimals(3)
        self.break_even.setRange(0.001, 1000.0)
        self.break_even.setSuffix(" bytes / MAC")
        self.break_even.valueChanged.connect(self._on_edit)
        self.name_edit, self.description_edit = QLineEdit(), QLineEdit()
        for line in (self.name_edit, self.description_edit):
            line.textEdited.connect(self._on_edit)
        for label, field in (("Right shift n", shifts), ("Shift rounding", self.rounding),
                             ("Accumulator bits", self.accumulator_bits),
                             ("Avg-pool divisor", self.avg_pool_divisor),
                             ("Reciprocal bits", self.reciprocal_bits), ("Break-even", self.break_even),
                             ("Name", self.name_edit), ("Description", self.description_edit)):
            form.addRow(label, field)
        return box

    # -- what is shown -------------------------------------------------------------------------------
    def set_choices(self, rules: list[tuple[str, str, str]], rounding_modes: Sequence[str],
                    divisors: Sequence[str]) -> None:
        """The switches (rule id, label, tooltip) and the choices of the two enumerated keys."""
        self._loading = True
        for rid, label, tip in rules:
            check = self.switches.get(rid)
            if check is None:
                check = self.switches[rid] = QCheckBox()
                check.toggled.connect(self._on_edit)
                self._switch_layout.addWidget(check)
            check.setText(label)
            check.setToolTip(tip)
        for combo, items in ((self.rounding, rounding_modes), (self.avg_pool_divisor, divisors)):
            if combo.count() == 0:
                combo.addItems(list(items))
        self._loading = False

    def scroll_to_limits(self, limit_id: str = "") -> None:
        """Bring the per-op limits (or the row of `limit_id`) into view: the form is taller than a
        720 px window."""
        self.sections.setCurrentWidget(self._scroll)
        row = self.limits.row_widget(limit_id) if limit_id else None
        if row is not None:
            self._scroll.ensureWidgetVisible(row, 8, 40)
            return
        bar = self._scroll.verticalScrollBar()
        bar.setValue(min(bar.maximum(), self.limits.y() - 8))

    def focus_limit(self, limit_id: str) -> bool:
        """Show the per-op limit `limit_id` ("conv2d.kernel_max"), selected; False if none."""
        if not self.limits.select(limit_id):
            return False
        self.scroll_to_limits(limit_id)
        return True

    def focus_op(self, name: str) -> bool:
        """Show the op-list row `name` (filters cleared), selected and scrolled to; False if none."""
        self.sections.setCurrentWidget(self._ops)
        self.op_search.clear()
        self.model_only.setChecked(False)
        for i in range(self.op_list.count()):
            item = self.op_list.item(i)
            if item.data(OP_ROLE) == name:
                self.op_list.setCurrentItem(item)
                self.op_list.scrollToItem(item, QListWidget.ScrollHint.PositionAtCenter)
                return True
        return False

    def set_enabled(self, on: bool) -> None:
        self._form.setEnabled(on)
        self.save_button.setEnabled(on)
        if not on:
            self.apply_button.setEnabled(False)
            self.revert_button.setEnabled(False)

    def show_profile(self, p: HardwareProfile, rows: Sequence[OpListRow]) -> None:
        """Fill the form from a HardwareProfile `p` and its op-list rows (whatif OpListRow)."""
        self._loading = True
        for rid, check in self.switches.items():
            check.setChecked(p.enabled(rid))
        self.shared_edit.setText(", ".join(p.shared_scale_ops))
        self.fusable_edit.setText(", ".join(p.fusable_ops))
        self.fused_edit.setText(", ".join(p.fused_activations))
        self.min_shift.setValue(p.min_shift)
        self.max_shift.setValue(p.max_shift)
        self.rounding.setCurrentText(p.rounding)
        self.avg_pool_divisor.setCurrentText(p.avg_pool_divisor)
        self.accumulator_bits.setValue(p.accumulator_bits)
        self.reciprocal_bits.setValue(p.reciprocal_bits)
        self.break_even.setValue(p.break_even_bytes_per_mac)
        self.name_edit.setText(p.name)
        self.description_edit.setText(p.description)
        self.limits.show_limits(p.limits)
        self._loading = False
        self.show_ops(rows)
        self.set_enabled(True)

    def show_ops(self, rows: Sequence[OpListRow]) -> None:
        """One checkable row per OpListRow; model ops that fall back to the CPU in orange."""
        self._loading = True
        self.op_list.clear()
        for row in rows:
            item = QListWidgetItem(row.name + (f"  ×{row.count} here, {row.on_vpu} on VPU" if row.count else ""))
            if row.count:
                item.setToolTip(f"{row.name}: {row.count} op(s) in this model, {row.on_vpu} placed on the VPU")
            item.setData(OP_ROLE, row.name)
            item.setData(COUNT_ROLE, row.count)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if row.listed else Qt.CheckState.Unchecked)
            if row.count and not row.listed:
                item.setForeground(QBrush(QColor(theme.WARN)))
            self.op_list.addItem(item)
        self._loading = False
        self._filter_ops()

    def add_op_row(self, name: str) -> None:
        """Check `name` in the op list, adding its row first if it is not there."""
        item = next((self.op_list.item(i) for i in range(self.op_list.count())
                     if self.op_list.item(i).data(OP_ROLE) == name), None)
        if item is None:
            item = QListWidgetItem(name)
            item.setData(OP_ROLE, name)
            item.setData(COUNT_ROLE, 0)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked)
            self.op_list.addItem(item)
        self.add_op.clear()
        item.setCheckState(Qt.CheckState.Checked)      # announces the edit through itemChanged

    def show_status(self, in_use: str, modified: bool, needs: str, diff_lines: list[str],
                    source: str = "") -> None:
        """The profile in use (`source`: its file, as a tooltip), whether the form differs from it,
        what Apply re-runs, the diff against the shipped profile."""
        edited = f" &nbsp;<b style='color:{theme.WARN}'>edited, not applied</b>" if modified else ""
        self.in_use_label.setText(f"<b>In use:</b> {in_use}{edited}")
        self.in_use_label.setToolTip(source)
        self.apply_button.setEnabled(modified)
        self.revert_button.setEnabled(modified)
        self.needs_label.setText(needs if modified else "")
        self.diff_view.setPlainText("\n".join(diff_lines) if diff_lines else "Same as the shipped profile.")

    # -- what the user set ---------------------------------------------------------------------------
    def form_values(self) -> dict:
        """The form as HardwareProfile field values (vpu_core.whatif.profile_edit.edit takes them)."""
        vpu_ops = tuple(self.op_list.item(i).data(OP_ROLE) for i in range(self.op_list.count())
                        if self.op_list.item(i).checkState() == Qt.CheckState.Checked)
        return dict(name=self.name_edit.text().strip(), description=self.description_edit.text().strip(),
                    vpu_ops=vpu_ops, shared_scale_ops=_names(self.shared_edit.text()),
                    fusable_ops=_names(self.fusable_edit.text()), fused_activations=_names(self.fused_edit.text()),
                    constraints={rid: c.isChecked() for rid, c in self.switches.items()},
                    min_shift=self.min_shift.value(), max_shift=self.max_shift.value(),
                    rounding=self.rounding.currentText(), accumulator_bits=self.accumulator_bits.value(),
                    avg_pool_divisor=self.avg_pool_divisor.currentText(),
                    reciprocal_bits=self.reciprocal_bits.value(),
                    break_even_bytes_per_mac=round(self.break_even.value(), 6),
                    limits=self.limits.values())

    # -- reactions -----------------------------------------------------------------------------------
    def _save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save hardware profile", f"{self.name_edit.text()}.toml",
                                              "Hardware profile (*.toml)")
        if path:
            self.save_requested.emit(path if path.endswith(".toml") else path + ".toml")

    def _on_add_op(self) -> None:
        name = self.add_op.text().strip()
        if name:
            self.add_op_requested.emit(name)

    def _filter_ops(self, *_args) -> None:
        needle = self.op_search.text().strip().lower()
        model_only = self.model_only.isChecked()
        for i in range(self.op_list.count()):
            item = self.op_list.item(i)
            hidden = (needle and needle not in item.text().lower()) or (model_only and not item.data(COUNT_ROLE))
            item.setHidden(bool(hidden))

    def _on_edit(self, *_args) -> None:
        if not self._loading:
            self.changed.emit()

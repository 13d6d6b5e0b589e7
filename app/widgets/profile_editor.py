"""The hardware profile as a form: constraint switches, the VPU op list (search, ops of this model),
shared-scale and fusable lists, shift range, the integer simulation's rounding / accumulator /
average-pool settings and the economics break-even.

Apply validates the form exactly like a --profile file (vpu_core.whatif.profile_edit), writes it
to a content-named TOML file and emits `apply_requested(path)`; the window re-runs with it, and the
session re-quantizes only when the change can alter the quantized graph (the form says which).
Revert returns to the profile in use, Save as TOML writes a file `--profile` loads, and the diff
against the shipped profile follows every edit. No torch here: the core validates op names.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from PySide6.QtCore import QStandardPaths, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (QSizePolicy, QCheckBox, QComboBox, QDoubleSpinBox, QFileDialog, QFormLayout, QGroupBox,
                               QHBoxLayout, QLabel, QLineEdit, QListWidget, QListWidgetItem,
                               QPlainTextEdit, QPushButton, QScrollArea, QSpinBox, QVBoxLayout, QWidget)

from app import dialogs, theme
from vpu_core.errors import InspectorError
from vpu_core.profile import (AVG_POOL_DIVISORS, ROUNDING_MODES, RULE_IDS, HardwareProfile, load_profile,
                              op_matches)
from vpu_core.whatif.profile_edit import (edit, model_ops, profile_diff, profile_to_toml,
                                          requantization_needed, same_profile, save_profile,
                                          validate_profile)

OP_ROLE = Qt.ItemDataRole.UserRole + 2


def op_pattern(op: str) -> str:
    """The profile entry naming a model op: "relu_.default" is listed as "relu.default"."""
    packet, _, overload = op.partition(".")
    packet = packet.rstrip("_") if packet.endswith("_") and not packet.startswith("_") else packet
    return f"{packet}.{overload}" if overload else packet


def _names(text: str) -> tuple[str, ...]:
    return tuple(n for n in re.split(r"[,\s]+", text.strip()) if n)


def change_lines(base: HardwareProfile, other: HardwareProfile) -> list[str]:
    """The structured diff as short lines ("ops.vpu: + softmax.int")."""
    out = []
    for c in profile_diff(base, other):
        if isinstance(c.old, tuple):
            parts = [f"+ {x}" for x in c.added] + [f"− {x}" for x in c.removed]
            out.append(f"{c.key}: {', '.join(parts) or 'reordered'}")
        else:
            out.append(f"{c.key}: {_value(c.old)} → {_value(c.new)}")
    return out


def _value(v) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else repr(v) if isinstance(v, str) else str(v)


class ProfileEditor(QWidget):
    apply_requested = Signal(str)        # path of the validated, written profile
    changed = Signal()                   # the form was edited

    def __init__(self, profile_dir: str | Path | None = None) -> None:
        super().__init__()
        self.profile_dir = Path(profile_dir) if profile_dir else _default_dir()
        # Loading a profile validates op names against torch: not before the first run, so the
        # window still opens without importing torch.
        self.shipped: HardwareProfile | None = None
        self.in_use: HardwareProfile | None = None
        self.analysis = None
        self._loading = False
        self._build()
        self._form.setEnabled(False)
        self.in_use_label.setText("Run a model to edit the hardware profile it uses.")
        for button in (self.apply_button, self.revert_button, self.save_button):
            button.setEnabled(False)

    # -- layout ------------------------------------------------------------------------------------
    def _build(self) -> None:
        self.in_use_label = QLabel()
        self.in_use_label.setWordWrap(True)
        self.in_use_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.in_use_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._form = form = QWidget()
        column = QVBoxLayout(form)
        column.addWidget(self._constraints_box())
        column.addWidget(self._ops_box(), 1)
        column.addWidget(self._lists_box())
        column.addWidget(self._numbers_box())
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(form)
        self.needs_label = QLabel()
        self.needs_label.setWordWrap(True)
        self.needs_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.apply_button, self.revert_button = QPushButton("Apply"), QPushButton("Revert")
        self.save_button = QPushButton("Save as TOML…")
        self.apply_button.setObjectName("primary")
        self.apply_button.clicked.connect(self.apply)
        self.revert_button.clicked.connect(self.revert)
        self.save_button.clicked.connect(self.save_dialog)
        buttons = QHBoxLayout()
        for b in (self.apply_button, self.revert_button, self.save_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        self.diff_view = QPlainTextEdit()
        self.diff_view.setReadOnly(True)
        self.diff_view.setMaximumHeight(72)
        layout = QVBoxLayout(self)
        layout.addWidget(self.in_use_label)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.needs_label)
        layout.addLayout(buttons)
        layout.addWidget(QLabel("Difference from the shipped profile:"))
        layout.addWidget(self.diff_view)

    def _constraints_box(self) -> QGroupBox:
        box = QGroupBox("Constraint switches (off: not required, not checked)")
        grid = QVBoxLayout(box)
        self.switches: dict[str, QCheckBox] = {}
        for rid in RULE_IDS:
            check = QCheckBox(rid)
            check.toggled.connect(self._on_edit)
            self.switches[rid] = check
            grid.addWidget(check)
        return box

    def _ops_box(self) -> QGroupBox:
        box = QGroupBox("VPU op list (constraint 1: ops with a kernel)")
        self.op_search = QLineEdit(placeholderText="Search ops…")
        self.op_search.setClearButtonEnabled(True)
        self.op_search.textChanged.connect(self._filter_ops)
        self.model_only = QCheckBox("only ops in this model")
        self.model_only.toggled.connect(self._filter_ops)
        self.op_list = QListWidget()
        self.op_list.setMinimumHeight(150)
        self.op_list.itemChanged.connect(self._on_edit)
        self.add_op = QLineEdit(placeholderText="Add an ATen op (e.g. softmax or softmax.int) and press Enter")
        self.add_op.returnPressed.connect(self._add_typed_op)
        top = QHBoxLayout()
        top.addWidget(self.op_search, 1)
        top.addWidget(self.model_only)
        layout = QVBoxLayout(box)
        layout.addLayout(top)
        layout.addWidget(self.op_list, 1)
        layout.addWidget(self.add_op)
        return box

    def _lists_box(self) -> QGroupBox:
        box = QGroupBox("Op lists of constraints 6 and 7 (comma separated)")
        form = QFormLayout(box)
        self.shared_edit, self.fusable_edit, self.fused_edit = QLineEdit(), QLineEdit(), QLineEdit()
        for label, line in (("Shared scale (6)", self.shared_edit), ("Fusable (7)", self.fusable_edit),
                            ("Fused activations (7)", self.fused_edit)):
            line.textEdited.connect(self._on_edit)
            form.addRow(label, line)
        return box

    def _numbers_box(self) -> QGroupBox:
        box = QGroupBox("Requantization, integer simulation, economics, name")
        form = QFormLayout(box)
        self.min_shift, self.max_shift = QSpinBox(), QSpinBox()
        for spin in (self.min_shift, self.max_shift):
            spin.setRange(-64, 64)
            spin.valueChanged.connect(self._on_edit)
        shifts = QHBoxLayout()
        shifts.addWidget(self.min_shift)
        shifts.addWidget(QLabel("to"))
        shifts.addWidget(self.max_shift)
        shifts.addStretch(1)
        self.break_even = QDoubleSpinBox()
        self.break_even.setDecimals(3)
        self.break_even.setRange(0.001, 1000.0)
        self.break_even.setSuffix(" bytes / MAC")
        self.break_even.valueChanged.connect(self._on_edit)
        self.name_edit, self.description_edit = QLineEdit(), QLineEdit()
        for line in (self.name_edit, self.description_edit):
            line.textEdited.connect(self._on_edit)
        self.rounding, self.avg_pool_divisor = QComboBox(), QComboBox()
        self.rounding.addItems(list(ROUNDING_MODES))
        self.avg_pool_divisor.addItems(list(AVG_POOL_DIVISORS))
        self.accumulator_bits, self.reciprocal_bits = QSpinBox(), QSpinBox()
        self.accumulator_bits.setRange(8, 64)
        self.reciprocal_bits.setRange(1, 30)
        for combo in (self.rounding, self.avg_pool_divisor):
            combo.currentIndexChanged.connect(self._on_edit)
        for spin in (self.accumulator_bits, self.reciprocal_bits):
            spin.valueChanged.connect(self._on_edit)
        form.addRow("Right shift n", shifts)
        form.addRow("Shift rounding", self.rounding)
        form.addRow("Accumulator bits", self.accumulator_bits)
        form.addRow("Avg-pool divisor", self.avg_pool_divisor)
        form.addRow("Reciprocal bits", self.reciprocal_bits)
        form.addRow("Break-even", self.break_even)
        form.addRow("Name", self.name_edit)
        form.addRow("Description", self.description_edit)
        return box

    # -- state in ----------------------------------------------------------------------------------
    def set_profile(self, profile: HardwareProfile) -> None:
        """Show `profile` as the one in use (the form is reset to it)."""
        if self.shipped is None:
            self.shipped = load_profile()
        self.in_use = profile
        self._form.setEnabled(True)
        self.save_button.setEnabled(True)
        self._fill(profile)

    def set_analysis(self, analysis) -> None:
        """The run on screen: its ops join the op list, its rules name the switches."""
        self.analysis = analysis
        if self.in_use is None:
            self.set_profile(load_profile())
        for r in getattr(analysis, "rules", ()):
            if r.rule.id in self.switches:
                self.switches[r.rule.id].setText(f"{r.rule.constraint} · {r.rule.title}")
                self.switches[r.rule.id].setToolTip(f"{r.rule.id}: {r.rule.reason}")
        current = self.edited_profile()
        self._fill_ops(current.vpu_ops)
        self._refresh()

    def _fill(self, p: HardwareProfile) -> None:
        self._loading = True
        for rid, check in self.switches.items():
            check.setChecked(p.enabled(rid))
        self.shared_edit.setText(", ".join(p.shared_scale_ops))
        self.fusable_edit.setText(", ".join(p.fusable_ops))
        self.fused_edit.setText(", ".join(p.fused_activations))
        self.min_shift.setValue(p.min_shift)
        self.max_shift.setValue(p.max_shift)
        self.break_even.setValue(p.break_even_bytes_per_mac)
        self.rounding.setCurrentText(p.rounding)
        self.avg_pool_divisor.setCurrentText(p.avg_pool_divisor)
        self.accumulator_bits.setValue(p.accumulator_bits)
        self.reciprocal_bits.setValue(p.reciprocal_bits)
        self.name_edit.setText(p.name)
        self.description_edit.setText(p.description)
        self._loading = False
        self._fill_ops(p.vpu_ops)
        self._refresh()

    def _fill_ops(self, listed: tuple[str, ...]) -> None:
        """One row per op-list entry and per model op no entry covers; checked = on the VPU list."""
        uses = model_ops(self.analysis) if self.analysis is not None else ()
        rows: dict[str, list] = {name: [True, 0, 0] for name in listed}
        for m in uses:
            entry = next((n for n in listed if op_matches(m.op, (n,))), op_pattern(m.op))
            row = rows.setdefault(entry, [False, 0, 0])
            row[1] += m.count
            row[2] += m.on_vpu
        self._loading = True
        self.op_list.clear()
        for name, (checked, count, on_vpu) in rows.items():
            where = f"  — in this model ×{count}, {on_vpu} on the VPU" if count else ""
            item = QListWidgetItem(name + where)
            item.setData(OP_ROLE, name)
            item.setData(Qt.ItemDataRole.UserRole, count)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
            if count and not checked:          # an op of this model that falls back to the CPU
                item.setForeground(QBrush(QColor(theme.WARN)))
            self.op_list.addItem(item)
        self._loading = False
        self._filter_ops()

    # -- state out ---------------------------------------------------------------------------------
    def edited_profile(self) -> HardwareProfile:
        """The form as a profile (not validated yet: see apply / save_to)."""
        vpu_ops = tuple(self.op_list.item(i).data(OP_ROLE) for i in range(self.op_list.count())
                        if self.op_list.item(i).checkState() == Qt.CheckState.Checked)
        return edit(self.in_use, name=self.name_edit.text().strip(),
                    description=self.description_edit.text().strip(), vpu_ops=vpu_ops,
                    shared_scale_ops=_names(self.shared_edit.text()),
                    fusable_ops=_names(self.fusable_edit.text()),
                    fused_activations=_names(self.fused_edit.text()),
                    constraints={rid: c.isChecked() for rid, c in self.switches.items()},
                    min_shift=self.min_shift.value(), max_shift=self.max_shift.value(),
                    rounding=self.rounding.currentText(), accumulator_bits=self.accumulator_bits.value(),
                    avg_pool_divisor=self.avg_pool_divisor.currentText(),
                    reciprocal_bits=self.reciprocal_bits.value(),
                    break_even_bytes_per_mac=round(self.break_even.value(), 6))

    def is_modified(self) -> bool:
        return self.in_use is not None and not same_profile(self.edited_profile(), self.in_use)

    def needs(self) -> tuple[str, ...]:
        """Keys of the edit that make Apply quantize again (empty: re-analyse only)."""
        a = self.analysis
        if a is None:
            return ()
        ops = [info.op for info in a.nodes.values() if info.kind == "call_function"]
        return requantization_needed(self.in_use, self.edited_profile(), a.quantizer, ops, a.dynamic_batch)

    # -- actions -----------------------------------------------------------------------------------
    def apply(self) -> str | None:
        """Validate, write to a content-named file in profile_dir, emit apply_requested(path)."""
        try:
            profile = validate_profile(self.edited_profile())
            text = profile_to_toml(profile)
            stem = re.sub(r"[^A-Za-z0-9_.-]+", "-", profile.name) or "profile"
            path = self.profile_dir / f"{stem}-{hashlib.sha1(text.encode()).hexdigest()[:8]}.toml"
            self.profile_dir.mkdir(parents=True, exist_ok=True)
            saved = save_profile(profile, path)
        except InspectorError as exc:
            dialogs.show_error(self, exc, title="Invalid hardware profile", note="")
            return None
        self.set_profile(saved)
        self.apply_requested.emit(str(path))
        return str(path)

    def revert(self) -> None:
        if self.in_use is not None:
            self._fill(self.in_use)

    def save_to(self, path: str | Path) -> HardwareProfile:
        """Write the form as a --profile file (validated first; ProfileError / SaveError raised)."""
        return save_profile(self.edited_profile(), path)

    def save_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save hardware profile", f"{self.name_edit.text()}.toml",
                                              "Hardware profile (*.toml)")
        if not path:
            return
        try:
            self.save_to(path if path.endswith(".toml") else path + ".toml")
        except InspectorError as exc:
            dialogs.show_error(self, exc, title="Cannot save the profile", note="")

    # -- reactions ---------------------------------------------------------------------------------
    def _add_typed_op(self) -> None:
        from vpu_core.profile import is_known_op

        name = self.add_op.text().strip()
        if not name:
            return
        if not is_known_op(name):
            dialogs.show_error(self, InspectorError(f"'{name}' is not an ATen op."), title="Unknown op", note="")
            return
        existing = [self.op_list.item(i) for i in range(self.op_list.count())
                    if self.op_list.item(i).data(OP_ROLE) == name]
        if existing:
            existing[0].setCheckState(Qt.CheckState.Checked)
        else:
            self._fill_ops((*self.edited_profile().vpu_ops, name))
        self.add_op.clear()
        self._on_edit()

    def _filter_ops(self) -> None:
        needle = self.op_search.text().strip().lower()
        model_only = self.model_only.isChecked()
        for i in range(self.op_list.count()):
            item = self.op_list.item(i)
            hidden = (needle and needle not in item.text().lower()) or \
                (model_only and not item.data(Qt.ItemDataRole.UserRole))
            item.setHidden(bool(hidden))

    def _on_edit(self, *_args) -> None:
        if self._loading:
            return
        self._refresh()
        self.changed.emit()

    def _refresh(self) -> None:
        edited = self.edited_profile()
        modified = not same_profile(edited, self.in_use)
        origin = "shipped profile" if self.in_use.path == self.shipped.path else self.in_use.path
        self.in_use_label.setText(f"<b>In use:</b> {self.in_use.name} <span style='color:{theme.MUTED}'>"
                                  f"({origin})</span>" + (f" &nbsp;<b style='color:{theme.WARN}'>"
                                                          "edited, not applied</b>" if modified else ""))
        self.apply_button.setEnabled(modified)
        self.revert_button.setEnabled(modified)
        needs = self.needs() if modified else ()
        if not modified:
            self.needs_label.setText("")
        elif needs:
            self.needs_label.setText("Apply quantizes again (" + ", ".join(needs) + " changes the Q/DQ graph).")
        else:
            self.needs_label.setText("Apply re-analyses the current Q/DQ graph only (no re-quantization).")
        lines = change_lines(self.shipped, edited)
        self.diff_view.setPlainText("\n".join(lines) if lines else "Same as the shipped profile.")


def _default_dir() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppLocalDataLocation)
    return Path(base or Path.home() / ".vpu-inspector") / "profiles"

"""The per-op limits of a hardware profile as a form: one row per key of the [op.NAME] tables and
of [memory], grouped by table, each with a check box (unchecked: the key is not set, nothing is
constrained), its field and how many of this model's ops it moves to the CPU.

The keys come from the core (vpu_core.hardware.limits.LIMITS) as plain tuples through
`set_keys`; values are the profile's normalised ones ((kH, kW) pairs, ints, a groups setting).
"""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QCheckBox, QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel,
                               QSizePolicy, QSpinBox, QWidget)

from app import theme
from vpu_core.formatting import count_text

_TABLE_TITLES = {"conv2d": "conv2d · also conv1d as 1×k", "linear": "linear · also addmm / mm / matmul "
                 "with a constant weight", "max_pool2d": "max_pool2d", "avg_pool2d": "avg_pool2d",
                 "memory": "memory · one op's int8 tensors"}
_DEFAULTS = {"pair_max": (3, 3), "int_max": 4096, "multiple": 8, "bytes_max": 524288,
             "choice": "one_or_depthwise"}
INT_MAX = 2 ** 31 - 1


class _Row:
    """One key: its check box, its field(s), the label of the ops it moves."""

    def __init__(self, form: QFormLayout, limit_id: str, key: str, kind: str, doc: str,
                 choices: tuple[str, ...], on_edit) -> None:
        self.id, self.kind = limit_id, kind
        self.check = QCheckBox(key)
        self.check.setToolTip(f"{limit_id}: {doc}")
        self.check.toggled.connect(self._enable)
        self.check.toggled.connect(on_edit)
        field = QWidget()
        box = QHBoxLayout(field)
        box.setContentsMargins(0, 0, 0, 0)
        self.spins: list[QSpinBox] = []
        self.combo: QComboBox | None = None
        if kind == "choice":
            self.combo = QComboBox()
            self.combo.addItems(list(choices))
            self.combo.currentIndexChanged.connect(on_edit)
            box.addWidget(self.combo)
        else:
            for i in range(2 if kind == "pair_max" else 1):
                if i:
                    box.addWidget(QLabel("×"))
                spin = QSpinBox()
                spin.setRange(1, INT_MAX if kind in ("bytes_max", "int_max") else 4096)
                spin.setMaximumWidth(120 if kind in ("bytes_max", "int_max") else 64)
                if kind == "bytes_max":
                    spin.setSuffix(" B")
                spin.valueChanged.connect(on_edit)
                box.addWidget(spin)
                self.spins.append(spin)
        box.addStretch(1)
        self.field = field
        self.hits = QLabel()             # how many of the model's ops the limit moves to the CPU
        self.hits.setStyleSheet(f"color: {theme.WARN}; font-weight: 600")
        # room for the count from the start: the form lays its label column out once
        self.hits.setMinimumWidth(self.hits.fontMetrics().horizontalAdvance("9999 ops over") + 4)
        label = QWidget()
        line = QHBoxLayout(label)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(self.check)
        line.addWidget(self.hits)
        line.addStretch(1)
        form.addRow(label, field)
        self.set_value(None)

    def _enable(self, on: bool) -> None:
        for w in (*self.spins, *((self.combo,) if self.combo else ())):
            w.setEnabled(on)

    def set_value(self, value) -> None:
        shown = _DEFAULTS[self.kind] if value is None else value
        self.check.setChecked(value is not None)
        self._enable(value is not None)
        if self.combo is not None:
            self.combo.setCurrentText(str(shown))
        else:
            for spin, v in zip(self.spins, shown if isinstance(shown, (tuple, list)) else (shown,)):
                spin.setValue(int(v))

    def value(self):
        if not self.check.isChecked():
            return None
        if self.combo is not None:
            return self.combo.currentText()
        values = tuple(s.value() for s in self.spins)
        return values if self.kind == "pair_max" else values[0]

    def set_hits(self, n: int) -> None:
        self.hits.setText(f"{count_text(n, 'op')} over" if n else "")
        self.hits.setToolTip(f"{count_text(n, 'op')} of this model break{'s' if n == 1 else ''} "
                             f"{self.id} and run on the CPU" if n else "")


class LimitsEditor(QGroupBox):
    changed = Signal()

    def __init__(self) -> None:
        super().__init__("Per-op limits and SRAM")
        self.setToolTip("A listed op runs on the VPU only when every limit of its kernel holds; "
                        "an unchecked key constrains nothing")
        self._form = QFormLayout(self)
        self._form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)   # a narrow dock: field under key
        self._rows: dict[str, _Row] = {}
        self._loading = False
        self.selected = ""                 # the row "Try it on the VPU" opened the editor on
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)   # never squeezed

    def set_keys(self, keys: list[tuple[str, str, str, str, str, tuple[str, ...]]]) -> None:
        """(limit id, table, key, kind, doc, choices) per key, in the profile's fixed order."""
        if self._rows:
            return
        table = None
        for limit_id, tab, key, kind, doc, choices in keys:
            if tab != table:
                table = tab
                title = QLabel(f"<b>{_TABLE_TITLES.get(tab, tab)}</b>")
                title.setWordWrap(True)
                title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
                self._form.addRow(title)
            self._rows[limit_id] = _Row(self._form, limit_id, key, kind, doc, choices, self._on_edit)

    def show_limits(self, limits: dict) -> None:
        self._loading = True
        for limit_id, row in self._rows.items():
            row.set_value(limits.get(limit_id))
        self._loading = False

    def show_hits(self, hits: dict[str, int]) -> None:
        """How many of the shown model's ops each limit moves to the CPU."""
        for limit_id, row in self._rows.items():
            row.set_hits(hits.get(limit_id, 0))

    def row_widget(self, limit_id: str) -> QWidget | None:
        """The check box of `limit_id`'s row (what scrolling brings into view)."""
        row = self._rows.get(limit_id)
        return row.check if row is not None else None

    def select(self, limit_id: str) -> bool:
        """Mark `limit_id`'s row as the one in question (its key bold, its field focused)."""
        for other in self._rows.values():
            font = other.check.font()
            font.setBold(other.id == limit_id)
            other.check.setFont(font)
        row = self._rows.get(limit_id)
        if row is None:
            return False
        self.selected = limit_id
        first_input = row.spins[0] if row.spins else row.combo    # a row has spin boxes or a choice
        if first_input is not None:
            first_input.setFocus()
        return True

    def values(self) -> dict:
        """{limit id: value or None (not set)} for every key."""
        return {limit_id: row.value() for limit_id, row in self._rows.items()}

    def _on_edit(self, *_args) -> None:
        if not self._loading:
            self.changed.emit()

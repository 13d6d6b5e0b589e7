"""The run toolbar: the target first, then the model picker, the quantizer (an override: the
target chooses its own), Run / Cancel, weights, batch, calibration, profile.

The target picker lists the target registry (an unavailable target disabled, its tooltip saying
which package it needs) and announces a choice with `target_chosen(source)` (a
ViewOptions.partition_source: "simulated" for the VPU); app.features.target binds it to the state.

`config()` returns the RunConfig the controls describe; every change by the user is announced
with `options_changed`, and every change of the configuration shown (by the user or `set_config`)
with `config_changed(RunConfig)`: the run feature binds it to the application state's request. The controls sit in a QToolBar as separate items, so a
narrow window moves the last ones into the toolbar's overflow menu (») instead of clipping them
or widening the window. Batch: "model's" (RunConfig.batch_size None) keeps the batch of the
model's own example inputs; the inputs the last run used are in the tooltip.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRect, QSize, Qt, Signal
from PySide6.QtGui import QAction, QColor, QPainter
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QLabel, QListView, QMenu,
                               QPushButton, QSpinBox, QStyle, QStyledItemDelegate,
                               QStyleOptionViewItem, QToolBar, QToolButton, QWidget)

from app import theme
from app.widgets.profile_combo import ProfileCombo
from app.widgets.quantizer_buttons import ARM_TIP, arm_missing, button_of, quantizer_of, quantizer_switch, segmented
from app.widgets.words import ColourChoice, fill_colour_combo
from vpu_core.config import RunConfig

if TYPE_CHECKING:
    from vpu_core.analysis.results import InputInfo

OPEN_MODEL = "__open_model__"
DESC_ROLE = Qt.ItemDataRole.UserRole + 2


class _ModelDelegate(QStyledItemDelegate):
    """Popup rows: the model name in bold, its description in grey after it."""

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        desc = index.data(DESC_ROLE)
        if not desc:
            super().paint(painter, option, index)
            return
        self.initStyleOption(option, index)
        text = option.text
        option.text = ""
        option.widget.style().drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, option.widget)
        rect = option.rect.adjusted(10, 0, -8, 0)
        painter.save()
        bold = theme.ui_font(theme.BASE_PT, bold=True)
        painter.setFont(bold)
        painter.setPen(option.palette.color(option.palette.ColorRole.Text))
        name_w = painter.fontMetrics().horizontalAdvance(text) + 14
        painter.drawText(rect, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, text)
        painter.setFont(theme.ui_font(theme.BASE_PT - 0.5))
        painter.setPen(QColor(theme.MUTED))
        desc_rect = QRect(rect.left() + max(name_w, 150), rect.top(), rect.width() - max(name_w, 150), rect.height())
        elided = painter.fontMetrics().elidedText(desc, Qt.TextElideMode.ElideRight, desc_rect.width())
        painter.drawText(desc_rect, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft, elided)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        size = super().sizeHint(option, index)
        return QSize(max(size.width(), 640) if index.data(DESC_ROLE) else size.width(), max(size.height(), 28))


def labelled(text: str, *widgets: QWidget, tip: str = "") -> QWidget:
    """A muted label and its control(s) as one toolbar item (they overflow together)."""
    box = QWidget()
    layout = QHBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(6)
    label = QLabel(text)
    label.setStyleSheet(f"color: {theme.MUTED};")
    if tip:
        label.setToolTip(tip)
    layout.addWidget(label)
    for widget in widgets:
        layout.addWidget(widget)
    return box


class RunControls(QObject):
    """The run options' widgets; `toolbar()` lays them out. Fields not shown (seed) come from
    the last RunConfig given to `set_config`."""

    options_changed = Signal()         # the user changed an option
    config_changed = Signal(object)    # the RunConfig shown changed (the user or set_config)
    run_clicked = Signal()
    cancel_clicked = Signal()
    open_model_requested = Signal()
    open_profile_requested = Signal()
    open_calib_requested = Signal()
    target_chosen = Signal(str)        # the user chose a target (its partition source)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._updating = False
        self._base = RunConfig()
        self._spec: str | None = None
        self._extra: str | None = None      # the spec shown at the top that is not in the list
        self._recent: list[str] = []
        self._calib_data: str | None = None
        self.model = QComboBox()
        self.model.setView(QListView())
        self.model.setItemDelegate(_ModelDelegate(self.model))
        self.model.setMinimumContentsLength(12)
        self.model.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        # Editable: a zoo name or a path typed or pasted, then Return (the run feature checks it)
        self.model.setEditable(True)
        self.model.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model.setToolTip("Model: the built-in zoo, recent files, Open… a .py / .pt2 file, or type a "
                              "zoo name or a path and press Return")
        self.target = QComboBox()          # entries: set_target_choices (the target registry)
        self.target.setObjectName("targetCombo")
        self.target.setToolTip("Target: the backend you ship to (the VPU, XNNPACK, an Arm Ethos-U NPU through "
                               "Vela, …). It picks its own quantizer and colours the graph by its verdict: "
                               "green on its accelerator, orange on the CPU")
        self.quantizer, self.vpu_button, self.xnn_button, self.arm_button = quantizer_switch()
        self.vpu_button.setChecked(True)
        self.weights = QComboBox()
        self.weights.addItems(["per-channel", "per-tensor"])
        self.batch_size = QSpinBox()
        self.batch_size.setRange(0, 4096)
        self.batch_size.setSpecialValueText("model's")       # 0 = RunConfig.batch_size None
        self.batch_size.setFixedWidth(92)
        self.batch = QComboBox()
        self.batch.addItems(["static", "dynamic"])
        self.batch.setToolTip("Export the batch dimension as static or dynamic (the VPU quantizer refuses dynamic)")
        self.calib = QSpinBox()
        self.calib.setRange(1, 256)
        self.calib.setValue(4)
        self.calib.setSuffix(" batches")
        self.calib.setFixedWidth(104)
        self.calib.setToolTip("Number of calibration batches the observers see")
        self.data_button = QToolButton()
        self.data_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.data_button.setObjectName("dataButton")
        data_menu = QMenu(self.data_button)
        data_menu.addAction("Synthetic data (seeded random)", lambda: self.set_calib_data(None, announce=True))
        data_menu.addAction("Calibration data…  (.pt / .npz)", self.open_calib_requested.emit)
        self.data_button.setMenu(data_menu)
        self.profile = ProfileCombo()
        self.profile.setToolTip("Hardware profile: VPU op list and constraint switches (TOML)")
        self.run_button = QPushButton("▶  Run")
        self.run_button.setObjectName("runButton")
        self.run_button.setToolTip("Run export → quantize → check → partition again (Ctrl+R)")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setEnabled(False)
        self.cancel_button.setToolTip("Stop the running job (Ctrl+.)")
        # In the Run menu: XNNPACK's activation observers as torchao ships them (identical qparams,
        # up to minutes slower on untrained models); for checking the fast ones, not for daily use.
        self.reference_observers = QAction("Use torchao's stock observers (reference, slow)", self)
        self.reference_observers.setCheckable(True)
        self.reference_observers.setToolTip(
            "Quantize with torchao's own HistogramObserver instead of the fast one: the same scales "
            "and zero points, computed by the original (slow) search")
        self._connect()
        self.set_catalogue([])
        self.set_profiles([])
        self._sync_weights()
        self.set_calib_data(None)
        self.set_inputs(())

    def toolbar(self) -> QToolBar:
        """Most used first: what a narrow window moves into the overflow menu is the rest."""
        bar = QToolBar("Run")
        bar.setObjectName("runToolbar")
        bar.setMovable(False)
        seg, _ = segmented(self.vpu_button, self.xnn_button, self.arm_button)
        run = QWidget()
        row = QHBoxLayout(run)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(6)
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        quantizer_tip = ("The quantizer: the target chooses its own; another one here is an override, its "
                         "graph judged by the target (XNNPACK's graph judged by the VPU)")
        for item in (labelled("Target", self.target), labelled("Model", self.model),
                     labelled("Quantizer", seg, tip=quantizer_tip), run):
            bar.addWidget(item)
        bar.addSeparator()
        for item in (self.weights, labelled("Batch", self.batch_size, self.batch),
                     labelled("Calibration", self.calib, self.data_button),
                     labelled("Profile", self.profile)):
            bar.addWidget(item)
        return bar

    def _connect(self) -> None:
        self.model.activated.connect(self._on_model_activated)
        self.target.activated.connect(lambda i: self.target_chosen.emit(self.target.itemData(i)))
        line = self.model.lineEdit()
        if line is not None:
            line.returnPressed.connect(self._on_model_entered)
        self.profile.changed.connect(self._changed)
        self.profile.open_requested.connect(self.open_profile_requested)
        self.quantizer.idClicked.connect(self._on_quantizer)
        self.weights.currentIndexChanged.connect(self._changed)
        self.batch.currentIndexChanged.connect(self._changed)
        self.batch_size.valueChanged.connect(self._changed)
        self.calib.valueChanged.connect(self._changed)
        self.reference_observers.toggled.connect(self._changed)
        self.run_button.clicked.connect(self.run_clicked)
        self.cancel_button.clicked.connect(self.cancel_clicked)

    def _changed(self, *_args: object) -> None:
        if not self._updating:
            self.options_changed.emit()
            self.config_changed.emit(self.config())

    def _on_quantizer(self, _id: int) -> None:
        self._sync_weights()
        self._changed()

    def dialog_parent(self) -> QWidget:
        """The window the toolbar sits in (dialogs of the run and file features open over it)."""
        return self.run_button.window()

    def _sync_weights(self) -> None:
        is_vpu = self.quantizer.checkedId() == 0
        self.weights.setEnabled(not is_vpu)
        self.weights.setToolTip("The VPU quantizer is always per-channel (constraint 3)" if is_vpu
                                else "Weight quantization: per-channel or per-tensor")

    # -- target picker ---------------------------------------------------------------------------
    def set_target_choices(self, choices: Sequence[ColourChoice]) -> None:
        """The targets offered (app.features.shown.colour_choices), announcing nothing."""
        fill_colour_combo(self.target, choices)

    def set_target(self, source: str) -> None:
        """Show `source` as the target (the window chose it), announcing nothing."""
        self.target.blockSignals(True)
        try:
            self.target.setCurrentIndex(max(self.target.findData(source), 0))
        finally:
            self.target.blockSignals(False)

    def target_sources(self) -> list[str]:
        """The targets offered, in order (enabled or not)."""
        return [self.target.itemData(i) for i in range(self.target.count())]

    # -- model picker ----------------------------------------------------------------------------
    def set_catalogue(self, entries: list[tuple[str, str]], recent: list[str] | None = None) -> None:
        """Fill the picker: zoo models with descriptions, recent files, Open…; keep the selection."""
        current = self.model_spec()
        self._updating = True
        self.model.clear()
        self._extra = None
        for name, description in entries:
            self.model.addItem(name, name)
            self.model.setItemData(self.model.count() - 1, description, DESC_ROLE)
            self.model.setItemData(self.model.count() - 1, description, Qt.ItemDataRole.ToolTipRole)
        if recent is not None:
            self._recent = list(recent)
        if self._recent:
            self.model.insertSeparator(self.model.count())
            for path in self._recent:
                self.model.addItem(Path(path).name, path)
                self.model.setItemData(self.model.count() - 1, path, Qt.ItemDataRole.ToolTipRole)
        self.model.insertSeparator(self.model.count())
        self.model.addItem("Open model file…", OPEN_MODEL)
        self._updating = False
        if current:
            self.set_model_spec(current)

    def zoo_entries(self) -> list[tuple[str, str]]:
        return [(self.model.itemData(i), self.model.itemData(i, DESC_ROLE)) for i in range(self.model.count())
                if self.model.itemData(i, DESC_ROLE)]

    def model_spec(self) -> str | None:
        spec = self.model.currentData()
        return spec if spec and spec != OPEN_MODEL else self._spec

    def set_model_spec(self, spec: str) -> None:
        self._updating = True
        if self._extra is not None and self._extra != spec:     # one such item at a time
            self.model.removeItem(self.model.findData(self._extra))
            self._extra = None
        index = self.model.findData(spec)
        if index < 0:   # a file or zoo name not (yet) in the list: show it at the top
            label = Path(spec).name if ("/" in spec or spec.endswith((".py", ".pt2"))) else spec
            self.model.insertItem(0, label, spec)
            self.model.setItemData(0, spec, Qt.ItemDataRole.ToolTipRole)
            self._extra, index = spec, 0
        self.model.setCurrentIndex(index)
        self._spec = spec
        self._updating = False

    def _on_model_entered(self) -> None:
        """Return in the model box: an entry's label picks the entry, other text is a model spec."""
        line = self.model.lineEdit()
        text = line.text().strip() if line is not None else ""
        index = self.model.findText(text)
        spec = self.model.itemData(index) if index >= 0 else text
        if spec == OPEN_MODEL:
            self._on_model_activated(index)
        elif not spec:                  # emptied: show the current model again
            if self._spec is not None:
                self.set_model_spec(self._spec)
        elif spec != self._spec:
            self.set_model_spec(spec)
            self._changed()

    def _on_model_activated(self, index: int) -> None:
        spec = self.model.itemData(index)
        if spec == OPEN_MODEL:
            if self._spec is not None:
                self.set_model_spec(self._spec)   # keep showing the current model
            self.open_model_requested.emit()
        elif spec and spec != self._spec:
            self._spec = spec
            self._changed()

    # -- profile picker --------------------------------------------------------------------------
    def set_profiles(self, recent: list[str], current: str | None = None) -> None:
        self.profile.set_recent(recent, current)

    def set_profile(self, path: str | None) -> None:
        self.profile.set_profile(path)

    # -- calibration data ------------------------------------------------------------------------
    def set_calib_data(self, path: str | None, announce: bool = False) -> None:
        """Calibrate on the samples of `path` (.pt / .npz) or, None, on seeded random batches."""
        changed = path != self._calib_data
        self._calib_data = path
        name = Path(path).name if path else "synthetic"
        self.data_button.setText(("▤ " + (name if len(name) <= 16 else name[:7] + "…" + name[-8:])))
        self.data_button.setToolTip(f"Calibration data: {path}" if path else
                                    "Calibration data: seeded random batches shaped like the example "
                                    "inputs. Choose a .pt / .npz file to calibrate on real samples.")
        if announce and changed:
            self._changed()

    # -- inputs of the last run --------------------------------------------------------------------
    def set_inputs(self, inputs: tuple[InputInfo, ...]) -> None:
        """Show the graph inputs (Analysis.inputs) the shown result was run with."""
        lines = [f"{i.name}: {'×'.join(str(d) for d in i.shape) or 'scalar'} {i.dtype}"
                 + (" (dynamic batch)" if i.dynamic_dims else "") for i in inputs]
        tip = ("Batch size: \"model's\" keeps the batch of the model's own example inputs; a number "
               "re-batches them (and the calibration data).")
        self.batch_size.setToolTip(tip + ("\n\nInputs of the shown run:\n" + "\n".join(lines) if lines else ""))

    # -- configuration -----------------------------------------------------------------------------
    def config(self) -> RunConfig:
        return replace(
            self._base, model=self.model_spec() or self._base.model,
            quantizer=quantizer_of(self.quantizer.checkedId(), self._base.quantizer),
            per_tensor=self.weights.currentIndex() == 1, dynamic_batch=self.batch.currentIndex() == 1,
            batch_size=self.batch_size.value() or None, calib_batches=self.calib.value(),
            calib_data=self._calib_data, profile=self.profile.path(),
            reference_observers=self.reference_observers.isChecked())

    def set_config(self, config: RunConfig) -> None:
        """Show `config` (no `options_changed`: the user did not change it; `config_changed` when it
        differs from what was shown); fields without a control are kept."""
        before = self.config()
        self._base = config
        self._updating = True
        self.set_model_spec(config.model)
        self._updating = True
        self.quantizer.button(button_of(config.quantizer)).setChecked(True)
        self.weights.setCurrentIndex(1 if config.per_tensor else 0)
        self.batch.setCurrentIndex(1 if config.dynamic_batch else 0)
        self.batch_size.setValue(config.batch_size or 0)
        self.calib.setValue(int(config.calib_batches))
        self.set_calib_data(config.calib_data)
        self.reference_observers.setChecked(config.reference_observers)
        self._updating = False
        self.set_profile(config.profile)
        self._sync_weights()
        if self.config() != before:
            self.config_changed.emit(self.config())

    def set_program_file(self, quantizer: str | None) -> None:
        """The shown result is an already quantized program (`quantizer`: the one its file records,
        "unknown" without a record) or, with None, a model this toolbar quantizes. A program is
        analysed as it is: the quantizer and weight switches do not apply, so they are greyed
        and say why (the status bar names the quantizer that made it)."""
        for button in (self.vpu_button, self.xnn_button, self.arm_button):
            if button is self.arm_button and arm_missing() is not None:
                continue                # stays greyed, saying which package it needs
            button.setEnabled(quantizer is None)
            button.setToolTip((ARM_TIP if button is self.arm_button else "") if quantizer is None else (
                "Already quantized (program file"
                + (f", by the {quantizer.upper()} quantizer" if quantizer != "unknown" else "")
                + "): it is analysed as it is, the quantizer switch does not apply"))
        if quantizer is None:
            self._sync_weights()
        else:
            self.weights.setEnabled(False)

    def set_running(self, running: bool) -> None:
        self.cancel_button.setEnabled(running)
        self.run_button.setText("▶  Re-run" if running else "▶  Run")

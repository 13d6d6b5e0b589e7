"""The strip that configures side B of compare mode (side A is the toolbar's configuration).

B is "A with these settings changed": quantizer, weight granularity, batch and profile. The
model, calibration batches, data and seed are always A's, so the two runs differ only where
the user asked. Any change is announced with `changed`; `closed` leaves compare mode.
"""
from __future__ import annotations


from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QComboBox, QFrame, QHBoxLayout, QLabel, QPushButton,
                               QWidget)

from app import theme
from app.profile_combo import ProfileCombo
from app.quantizer_buttons import quantizer_switch



class CompareBar(QFrame):
    changed = Signal()
    closed = Signal()
    open_profile_requested = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("viewBar")
        self._updating = False
        self.configured = False            # B chosen (by the user or set_overrides) at least once
        title = QLabel("<b>Compare</b>&nbsp; A (toolbar) with <b>B</b>:")
        title.setToolTip("Side A is the configuration of the toolbar; side B is A with the settings "
                         "chosen here. The model and calibration are always the same on both sides.")
        self.quantizer, self.vpu_button, self.xnn_button = quantizer_switch(self)
        self.xnn_button.setChecked(True)
        self.weights = QComboBox()
        self.weights.addItems(["per-channel", "per-tensor"])
        self.batch = QComboBox()
        self.batch.addItems(["static", "dynamic"])
        self.profile = ProfileCombo()
        self.close_button = QPushButton("✕  Leave")
        self.close_button.setToolTip("Back to a single graph (the A configuration)")
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 5, 10, 5)
        row.setSpacing(10)
        row.addWidget(title)
        seg = QWidget()
        seg_row = QHBoxLayout(seg)
        seg_row.setContentsMargins(0, 0, 0, 0)
        seg_row.setSpacing(0)
        seg_row.addWidget(self.vpu_button)
        seg_row.addWidget(self.xnn_button)
        for text, widget in (("Quantizer", seg), ("Weights", self.weights), ("Batch", self.batch),
                             ("Profile", self.profile)):
            label = QLabel(text)
            label.setStyleSheet(f"color: {theme.MUTED};")
            row.addWidget(label)
            row.addWidget(widget)
        row.addStretch(1)
        row.addWidget(self.close_button)
        self.quantizer.idClicked.connect(lambda _id: self._changed())
        self.weights.currentIndexChanged.connect(self._changed)
        self.batch.currentIndexChanged.connect(self._changed)
        self.profile.changed.connect(self._changed)
        self.profile.open_requested.connect(self.open_profile_requested)
        self.close_button.clicked.connect(self.closed)
        self.set_profiles([])

    def _changed(self, *_args) -> None:
        self._sync_weights()
        if not self._updating:
            self.configured = True
            self.changed.emit()

    def _sync_weights(self) -> None:
        self.weights.setEnabled(self.quantizer.checkedId() == 1)

    def set_profiles(self, recent: list[str]) -> None:
        self.profile.set_recent(recent, self.profile.path())

    def set_profile(self, path: str | None) -> None:
        self.profile.set_profile(path)

    def overrides(self) -> dict:
        """The settings B changes (RunConfig field names)."""
        xnn = self.quantizer.checkedId() == 1
        return {"quantizer": "xnnpack" if xnn else "vpu",
                "per_tensor": xnn and self.weights.currentIndex() == 1,
                "dynamic_batch": self.batch.currentIndex() == 1,
                "profile": self.profile.path()}

    def set_overrides(self, options: dict) -> None:
        self.configured = True
        self._updating = True
        self.quantizer.button(1 if options.get("quantizer") == "xnnpack" else 0).setChecked(True)
        self.weights.setCurrentIndex(1 if options.get("per_tensor") else 0)
        self.batch.setCurrentIndex(1 if options.get("dynamic_batch") else 0)
        self._updating = False
        self.set_profile(options.get("profile"))
        self._sync_weights()

"""The toolbar that configures side B of compare mode (side A is the run toolbar's configuration).

B is "A with these settings changed": quantizer, weight granularity, batch and profile. The
model, calibration batches, data and seed are always A's, so the two runs differ only where
the user asked. A change by the user is announced with `changed`, any change of B's settings
shown (the user or `set_config`) with `config_changed`; `closed` leaves compare mode. A QToolBar,
so a narrow window moves its last items into the overflow menu.
"""
from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QLabel, QPushButton, QToolBar

from app.widgets.profile_combo import ProfileCombo
from app.widgets.quantizer_buttons import quantizer_switch, segmented
from app.widgets.run_controls import labelled
from vpu_core.config import RunConfig


class CompareBar(QToolBar):
    changed = Signal()                 # the user changed B
    config_changed = Signal()          # B's settings shown changed (the user or set_config)
    closed = Signal()
    open_profile_requested = Signal()

    def __init__(self) -> None:
        super().__init__("Compare")
        self.setObjectName("compareToolbar")
        self.setMovable(False)
        self._updating = False
        self.configured = False            # B chosen (by the user or set_config) at least once
        title = QLabel("<b>Compare</b>&nbsp; A (toolbar) with <b>B</b>:")
        title.setToolTip("Side A is the configuration of the toolbar; side B is A with the settings "
                         "chosen here. The model and calibration are always the same on both sides.")
        self.quantizer, self.vpu_button, self.xnn_button = quantizer_switch()
        self.xnn_button.setChecked(True)
        self.weights = QComboBox()
        self.weights.addItems(["per-channel", "per-tensor"])
        self.batch = QComboBox()
        self.batch.addItems(["static", "dynamic"])
        self.profile = ProfileCombo()
        self.close_button = QPushButton("✕  Leave")
        self.close_button.setToolTip("Back to a single graph (the A configuration) — Ctrl+K")
        seg, _ = segmented(self.vpu_button, self.xnn_button)
        self.addWidget(title)
        for item in (labelled("Quantizer", seg), self.close_button, labelled("Weights", self.weights),
                     labelled("Batch", self.batch), labelled("Profile", self.profile)):
            self.addWidget(item)
        self.quantizer.idClicked.connect(lambda _id: self._changed())
        self.weights.currentIndexChanged.connect(self._changed)
        self.batch.currentIndexChanged.connect(self._changed)
        self.profile.changed.connect(self._changed)
        self.profile.open_requested.connect(self.open_profile_requested)
        self.close_button.clicked.connect(self.closed)
        self.set_profiles([])

    def _changed(self, *_args: object) -> None:
        self._sync_weights()
        if not self._updating:
            self.configured = True
            self.changed.emit()
            self.config_changed.emit()

    def _settings(self) -> tuple:
        return (self.quantizer.checkedId(), self.weights.currentIndex(), self.batch.currentIndex(),
                self.profile.path())

    def _sync_weights(self) -> None:
        self.weights.setEnabled(self.quantizer.checkedId() == 1)

    def set_profiles(self, recent: list[str]) -> None:
        self.profile.set_recent(recent, self.profile.path())

    def set_profile(self, path: str | None) -> None:
        self.profile.set_profile(path)

    def config_b(self, a: RunConfig) -> RunConfig:
        """Side B: A with the settings of this bar."""
        xnn = self.quantizer.checkedId() == 1
        return replace(a, quantizer="xnnpack" if xnn else "vpu",
                       per_tensor=xnn and self.weights.currentIndex() == 1,
                       dynamic_batch=self.batch.currentIndex() == 1, profile=self.profile.path())

    def set_config(self, config: RunConfig) -> None:
        """Show B's settings of `config` (no `changed`: the user did not change them)."""
        before = self._settings()
        self.configured = True
        self._updating = True
        self.quantizer.button(1 if config.quantizer == "xnnpack" else 0).setChecked(True)
        self.weights.setCurrentIndex(1 if config.per_tensor else 0)
        self.batch.setCurrentIndex(1 if config.dynamic_batch else 0)
        self._updating = False
        self.set_profile(config.profile)
        self._sync_weights()
        if self._settings() != before:
            self.config_changed.emit()

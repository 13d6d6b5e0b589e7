"""The toolbar that configures side B of compare mode (side A is the run toolbar's configuration).

B is "A with these settings changed": quantizer, weight granularity, batch and profile, and
optionally what B is coloured by (a target of its own: the VPU on A beside an Ethos-U on B). The
model, calibration batches, data and seed are always A's, so the two runs differ only where
the user asked. A change by the user is announced with `changed`, any change of B's settings
shown (the user or `set_config`) with `config_changed`; `closed` leaves compare mode. A QToolBar,
so a narrow window moves its last items into the overflow menu.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QLabel, QPushButton, QToolBar

from app.widgets.profile_combo import ProfileCombo
from app.widgets.quantizer_buttons import VPU_ID, button_of, quantizer_of, quantizer_switch, segmented
from app.widgets.run_controls import labelled
from app.widgets.words import ColourChoice, fill_colour_combo, own_quantizer
from vpu_core.config import QuantizerName, RunConfig


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
        self._quantizer: QuantizerName = "xnnpack"      # B's quantizer as last set (the Arm button keeps its config)
        self.configured = False            # B chosen (by the user or set_config) at least once
        title = QLabel("<b>Compare</b>&nbsp; A (toolbar) with <b>B</b>:")
        title.setToolTip("Side A is the configuration of the toolbar; side B is A with the settings "
                         "chosen here. The model and calibration are always the same on both sides.")
        self.quantizer, self.vpu_button, self.xnn_button, self.arm_button = quantizer_switch()
        self.xnn_button.setChecked(True)
        self.weights = QComboBox()
        self.weights.addItems(["per-channel", "per-tensor"])
        self.batch = QComboBox()
        self.batch.addItems(["static", "dynamic"])
        self.profile = ProfileCombo()
        self.colour = QComboBox()          # entries: set_colour_choices ("as A" first, then the targets)
        self.colour.setObjectName("colourB")
        self.colour.setToolTip("B's target: as A, or a target of its own (the VPU on A beside an Ethos-U "
                               "on B); choosing one picks its quantizer for B, the quantizer switch stays "
                               "an override")
        self.close_button = QPushButton("✕  Leave")
        self.close_button.setToolTip("Back to a single graph (the A configuration) — Ctrl+K")
        seg, _ = segmented(self.vpu_button, self.xnn_button, self.arm_button)
        self.addWidget(title)
        for item in (labelled("Quantizer", seg), self.close_button, labelled("Weights", self.weights),
                     labelled("Batch", self.batch), labelled("Profile", self.profile),
                     labelled("B's target", self.colour)):
            self.addWidget(item)
        self.quantizer.idClicked.connect(lambda _id: self._changed())
        self.weights.currentIndexChanged.connect(self._changed)
        self.batch.currentIndexChanged.connect(self._changed)
        self.profile.changed.connect(self._changed)
        self.colour.currentIndexChanged.connect(self._changed)
        self.colour.activated.connect(self._on_target)
        self.profile.open_requested.connect(self.open_profile_requested)
        self.close_button.clicked.connect(self.closed)
        self.set_profiles([])

    def _changed(self, *_args: object) -> None:
        self._sync_weights()
        if not self._updating:
            self.configured = True
            self.changed.emit()
            self.config_changed.emit()

    def _on_target(self, index: int) -> None:
        """The user chose B's target: B's quantizer becomes the target's own (as the run toolbar's
        Target does for A); "as A" keeps it."""
        source = self.colour.itemData(index)
        if not source:
            return
        current = quantizer_of(self.quantizer.checkedId(), self._quantizer)
        quantizer = own_quantizer(source, current)
        if quantizer != current:
            self._quantizer = quantizer
            self.quantizer.button(button_of(quantizer)).setChecked(True)
            self._changed()

    def _settings(self) -> tuple:
        return (self.quantizer.checkedId(), self.weights.currentIndex(), self.batch.currentIndex(),
                self.profile.path(), self.colour.currentData())

    def _sync_weights(self) -> None:
        self.weights.setEnabled(self.quantizer.checkedId() != VPU_ID)

    def set_profiles(self, recent: list[str]) -> None:
        self.profile.set_recent(recent, self.profile.path())

    def set_profile(self, path: str | None) -> None:
        self.profile.set_profile(path)

    def set_colour_choices(self, choices: Sequence[ColourChoice]) -> None:
        """B's "Colour by" entries: "as A" (source "") first, then the targets."""
        fill_colour_combo(self.colour, [ColourChoice("", "as A", "B is coloured as A"), *choices])

    def colour_b(self) -> str | None:
        """B's own colouring (a partition source), None: as A."""
        return self.colour.currentData() or None

    def set_colour(self, source: str | None) -> None:
        """Show B's colouring (no `changed`)."""
        before = self._settings()
        self._updating = True
        self.colour.setCurrentIndex(max(self.colour.findData(source or ""), 0))
        self._updating = False
        if self._settings() != before:
            self.config_changed.emit()

    def config_b(self, a: RunConfig) -> RunConfig:
        """Side B: A with the settings of this bar."""
        quantizer = quantizer_of(self.quantizer.checkedId(), self._quantizer)
        return replace(a, quantizer=quantizer,
                       per_tensor=quantizer != "vpu" and self.weights.currentIndex() == 1,
                       dynamic_batch=self.batch.currentIndex() == 1, profile=self.profile.path())

    def set_config(self, config: RunConfig) -> None:
        """Show B's settings of `config` (no `changed`: the user did not change them)."""
        before = self._settings()
        self.configured = True
        self._updating = True
        self._quantizer = config.quantizer
        self.quantizer.button(button_of(config.quantizer)).setChecked(True)
        self.weights.setCurrentIndex(1 if config.per_tensor else 0)
        self.batch.setCurrentIndex(1 if config.dynamic_batch else 0)
        self._updating = False
        self.set_profile(config.profile)
        self._sync_weights()
        if self._settings() != before:
            self.config_changed.emit()

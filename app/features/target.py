"""The target: the backend the user ships to, the first choice of the window.

The run toolbar's Target picker (and Run ▸ Target) lists the target registry (vpu_core.targets:
the VPU, XNNPACK, each Arm Ethos-U / TOSA target; one whose packages are missing greyed, saying
which). Choosing one does two things in the state: the request's quantizer becomes the target's
own (TargetInfo.quantizer: ethos-u55-128 → ethos-u; an Arm config already chosen, ethos-u-a16w8,
is kept), and the graph is coloured by its verdict (the view's partition source). Everything on
screen then speaks for it: status line, badges, legend, node panel, tables (app.widgets). The
quantizer switch stays an override: another quantizer's graph judged by this target (the seeds'
case: XNNPACK's graph judged by the VPU). A program file (.pt2, already quantized) keeps its own
quantizer.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Protocol, Sequence

from PySide6.QtCore import QObject, SignalInstance

from app.features.shown import colour_choices
from app.state import AppState
from app.widgets.words import ColourChoice, own_quantizer


class TargetPicker(Protocol):
    """What this feature asks of the run toolbar (app.widgets.run_controls.RunControls)."""

    @property
    def target_chosen(self) -> SignalInstance: ...

    def set_target_choices(self, choices: Sequence[ColourChoice]) -> None: ...

    def set_target(self, source: str) -> None: ...


class TargetController(QObject):
    def __init__(self, state: AppState, picker: TargetPicker) -> None:
        super().__init__(state)
        self.state, self.picker = state, picker
        picker.set_target_choices(colour_choices())
        picker.target_chosen.connect(self.choose)
        state.view_changed.connect(lambda: picker.set_target(state.view.partition_source))
        picker.set_target(state.view.partition_source)

    def choose(self, source: str) -> None:
        """Make `source` the primary target: its quantizer (unless the model is a program file)
        and its colouring, in one request (the quantizer first: one run judges the new graph)."""
        state = self.state
        program = state.result is not None and state.result.analysis.already_quantized \
            and state.result.config.model == state.config.model
        if not program:
            quantizer = own_quantizer(source, state.config.quantizer)
            if quantizer != state.config.quantizer:
                per_tensor = state.config.per_tensor and quantizer != "vpu"
                state.config = replace(state.config, quantizer=quantizer, per_tensor=per_tensor)
        state.set_partition_source(source)

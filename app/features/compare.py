"""Compare mode: two configurations of one model, side by side.

Side A is the state's `config` (the run toolbar), side B its `compare_b` (the compare bar: A with
some settings changed; VPU vs XNNPACK by default). Entering or leaving compare mode, and any
change of B, is a change of the request: the run feature runs what is missing (the core session
answers a side it already computed from memory, so entering compare mode with A on screen only
runs B). The report docks show one side — the one last clicked — and the Compare tab lists every
matched op of the two. Leaving compare mode clears side B (AppState) and shows A again without a
run.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, Sequence

from PySide6.QtCore import QObject, SignalInstance

from app import dialogs
from app.features.shown import colour_choices
from app.state import AppState, CompareB
from app.widgets.words import ColourChoice
from vpu_core.config import RunConfig

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget


class CompareToolbar(Protocol):
    """What compare mode asks of the compare bar (app.widgets.compare_bar.CompareBar)."""

    @property
    def config_changed(self) -> SignalInstance: ...      # the settings of B shown changed

    @property
    def closed(self) -> SignalInstance: ...

    @property
    def open_profile_requested(self) -> SignalInstance: ...

    def config_b(self, a: RunConfig) -> RunConfig: ...

    def colour_b(self) -> str | None: ...

    def set_colour_choices(self, choices: Sequence[ColourChoice]) -> None: ...

    def set_colour(self, source: str | None) -> None: ...

    def set_config(self, config: RunConfig) -> None: ...

    def set_profiles(self, recent: list[str]) -> None: ...

    def setVisible(self, visible: bool) -> None: ...

    def window(self) -> QWidget: ...


class CompareSwitch(Protocol):
    """The view bar's compare button."""

    @property
    def compare_toggled(self) -> SignalInstance: ...

    def set_compare(self, on: bool) -> None: ...


class Hideable(Protocol):
    def setVisible(self, visible: bool) -> None: ...


class CompareController(QObject):
    def __init__(self, state: AppState, switch: CompareSwitch, compare_bar: CompareToolbar,
                 plots_dock: Hideable) -> None:
        super().__init__(state)
        self.state, self.switch, self.compare_bar, self.plots_dock = state, switch, compare_bar, plots_dock
        switch.compare_toggled.connect(self.set_mode)
        compare_bar.closed.connect(lambda: self.set_mode(False))
        compare_bar.open_profile_requested.connect(self.open_profile_dialog)
        compare_bar.set_colour_choices(colour_choices())
        self._showing = False            # the bar is being set from the state: nothing to take back
        compare_bar.config_changed.connect(self._take_b)
        state.compare_b_changed.connect(self._show_b)
        state.recent_profiles_changed.connect(lambda: compare_bar.set_profiles(list(state.recent_profiles)))
        state.compare_mode_changed.connect(self._on_mode)
        compare_bar.set_profiles(list(state.recent_profiles))

    def toggle(self) -> None:
        self.set_mode(not self.state.compare_mode)

    def set_mode(self, on: bool) -> None:
        """Enter (B defaults to the other quantizer) or leave compare mode."""
        if on and self.state.compare_b is None:          # first time: B = the other quantizer
            self.state.compare_b = CompareB.other_quantizer(self.state.config)
        self.state.set_compare_mode(on)

    def open_profile_dialog(self) -> None:
        """B under a hardware profile file."""
        path = dialogs.open_profile_dialog(self.compare_bar.window())
        if path:
            self.state.add_recent_profile(path)
            b = self.state.compare_b or CompareB.other_quantizer(self.state.config)
            self.state.compare_b = CompareB(b.quantizer, b.per_tensor, b.dynamic_batch, path, b.colour_by)

    def _take_b(self) -> None:
        if not self._showing:
            bar = self.compare_bar
            self.state.compare_b = CompareB.of(bar.config_b(self.state.config), bar.colour_b())

    def _show_b(self) -> None:
        b = self.state.compare_b
        if b is None:
            return
        self._showing = True
        try:
            self.compare_bar.set_config(self.state.config_b())
            self.compare_bar.set_colour(b.colour_by)
        finally:
            self._showing = False

    def _on_mode(self, on: bool) -> None:
        self.switch.set_compare(on)
        self.compare_bar.setVisible(on)
        self.plots_dock.setVisible(not on)      # the diff table gets the whole width

"""Focus mode (F11): the docks, toolbars and status bar step aside and the canvas fills the window.

Bound to the state's `focus_mode`. The widgets it hides are given to it (the window's docks and
bars); on leaving, exactly those that were showing come back (a dock the user had closed stays
closed). The menu bar stays: its View menu (and F11 again) is the way back.
"""
from __future__ import annotations

from typing import Protocol, Sequence

from PySide6.QtCore import QObject

from app.state import AppState


class Hideable(Protocol):
    def isVisible(self) -> bool: ...

    def setVisible(self, visible: bool) -> None: ...


class FocusController(QObject):
    def __init__(self, state: AppState, chrome: Sequence[Hideable]) -> None:
        super().__init__(state)
        self.state, self.chrome = state, tuple(chrome)
        self._hidden: tuple[Hideable, ...] = ()
        state.focus_mode_changed.connect(self._apply)

    def toggle(self) -> None:
        self.state.focus_mode = not self.state.focus_mode

    def _apply(self) -> None:
        if self.state.focus_mode:
            self._hidden = tuple(w for w in self.chrome if w.isVisible())
            for widget in self._hidden:
                widget.setVisible(False)
        else:
            for widget in self._hidden:
                widget.setVisible(True)
            self._hidden = ()

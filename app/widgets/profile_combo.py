"""The hardware-profile picker shared by the toolbar (side A) and the compare bar (side B).

Items: "VPU default" (the shipped profile), the other shipped profiles ("edge_npu"), recently used
profile files, and "Open profile…", which asks the window for a file instead of selecting anything.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox

from resources import DEFAULT_PROFILE, SHIPPED_PROFILES

OPEN_PROFILE = "__open_profile__"


class ProfileCombo(QComboBox):
    changed = Signal()          # the user picked another profile
    open_requested = Signal()   # the user picked "Open profile…"

    def __init__(self) -> None:
        super().__init__()
        self._path: str | None = None
        self.setMinimumContentsLength(10)
        self.activated.connect(self._on_activated)   # user picks only, never set_profile()
        self.set_recent([])

    def path(self) -> str | None:
        """The selected profile file, None for the shipped default."""
        return self._path

    def set_recent(self, recent: list[str], current: str | None = None) -> None:
        self.clear()
        self.addItem("VPU default", None)
        shipped = [str(p) for p in SHIPPED_PROFILES if p != DEFAULT_PROFILE and p.exists()]
        for path in shipped:
            self.addItem(f"{Path(path).stem} (shipped)", path)
            self.setItemData(self.count() - 1, path, Qt.ItemDataRole.ToolTipRole)
        for path in recent:
            if path in shipped:
                continue
            self.addItem(Path(path).stem, path)
            self.setItemData(self.count() - 1, path, Qt.ItemDataRole.ToolTipRole)
        self.insertSeparator(self.count())
        self.addItem("Open profile…", OPEN_PROFILE)
        self.set_profile(current)

    def set_profile(self, path: str | None) -> None:
        """Select `path` (adding it if it is not listed) without emitting `changed`."""
        index = self.findData(path) if path else 0
        if path and index < 0:
            self.insertItem(1, Path(path).stem, path)
            index = 1
        self.setCurrentIndex(index)
        self._path = path

    def _on_activated(self, index: int) -> None:
        data = self.itemData(index)
        if data == OPEN_PROFILE:
            self.set_profile(self._path)   # keep showing the current one while the dialog is up
            self.open_requested.emit()
        elif data != self._path:
            self._path = data
            self.changed.emit()

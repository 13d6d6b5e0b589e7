"""Sweep: a sweep folder (`vpu-inspector sweep … -o DIR`) as a sortable table in the Sweep dock.

File ▸ Open sweep… picks a folder; the core reads its summary.json (vpu_core.sweep.folder, no
torch) and the table shows every run. Double-clicking a run makes its configuration — model,
quantizer, profile and the sweep's run options — the request (`state.config`) and runs it fresh:
the session finds the sweep's result in the disk cache when the files did not change. A folder
that is not a sweep says so in a dialog; nothing else changes.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, SignalInstance

from app import dialogs
from app.state import AppState
from vpu_core.errors import InspectorError

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from vpu_core.config import RunConfig
    from vpu_core.sweep.folder import SweepSummary


class SweepTableLike(Protocol):
    """The Sweep dock's table (app.widgets.sweep_table.SweepTable)."""

    @property
    def open_requested(self) -> SignalInstance: ...

    def set_summary(self, summary: SweepSummary) -> None: ...

    def window(self) -> QWidget: ...


class Dock(Protocol):
    def show(self) -> None: ...

    def raise_(self) -> None: ...


class SweepController(QObject):
    def __init__(self, state: AppState, table: SweepTableLike, dock: Dock) -> None:
        super().__init__(state)
        self.state, self.table, self.dock = state, table, dock
        self.summary: SweepSummary | None = None
        table.open_requested.connect(self.open_run)

    def open_sweep_dialog(self) -> None:
        folder = dialogs.open_folder_dialog(self.table.window(), "Open a sweep folder (summary.json)")
        if folder:
            self.open_sweep(folder)

    def open_sweep(self, folder: str) -> bool:
        """Show the sweep in `folder`; False (and a dialog) when it is not one."""
        from vpu_core.sweep.folder import load_sweep

        try:
            summary = load_sweep(folder)
        except InspectorError as exc:
            dialogs.show_error(self.table.window(), exc, "Cannot open the sweep")
            return False
        self.summary = summary
        self.table.set_summary(summary)
        self.dock.show()
        self.dock.raise_()
        return True

    def open_run(self, config: RunConfig) -> None:
        """Open one run of the sweep: its configuration becomes the request, run fresh."""
        if config.profile:
            self.state.add_recent_profile(config.profile)
        self.state.config = config
        self.state.request_run(fresh=True)

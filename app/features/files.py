"""Files: opening models, hardware profiles and calibration data (dialogs, drag & drop, recents).

Opening a file changes the request (`state.config`) and runs it fresh (`state.request_run`). A
model that ran is added to the state's recent models (the picker lists them, the settings keep
them). Drag & drop reaches this controller through an event filter the window installs on itself
(no window subclass hooks, no reference to the window).
"""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QEvent, QObject, SignalInstance
from PySide6.QtGui import QDropEvent

from app import dialogs
from app.state import AppState

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from app.settings import Store

MODEL_SUFFIXES = (".py", ".pt2")


class FileRequests(Protocol):
    """The run toolbar's "Open…" entries (app.widgets.run_controls.RunControls)."""

    @property
    def open_model_requested(self) -> SignalInstance: ...

    @property
    def open_profile_requested(self) -> SignalInstance: ...

    @property
    def open_calib_requested(self) -> SignalInstance: ...

    def dialog_parent(self) -> QWidget | None: ...


class FilesController(QObject):
    def __init__(self, state: AppState, requests: FileRequests, store: Store) -> None:
        super().__init__(state)
        self.state, self.requests, self.store = state, requests, store
        requests.open_model_requested.connect(self.open_model_dialog)
        requests.open_profile_requested.connect(self.open_profile_dialog)
        requests.open_calib_requested.connect(self.open_calibration_dialog)
        state.result_changed.connect(self._remember_model)

    def _parent(self) -> QWidget | None:
        return self.requests.dialog_parent()

    # -- models ----------------------------------------------------------------------------------
    def open_model_dialog(self) -> None:
        recent = self.state.recent_models
        path = dialogs.open_model_dialog(self._parent(), str(Path(recent[0]).parent) if recent else "")
        if path:
            self.open_model_path(path, trusted=True)

    def open_model_path(self, path: str, trusted: bool = False) -> None:
        """Open a .py / .pt2 model and run it. A .py runs code: ask unless a dialog already warned."""
        if Path(path).suffix == ".py" and not trusted and not dialogs.confirm_python_model(self._parent(), path):
            return
        spec = str(Path(path).resolve()) if os.path.exists(path) else path   # os.path: never raises
        self.state.config = replace(self.state.config, model=spec)
        self.state.request_run(fresh=True)

    def _remember_model(self) -> None:
        result = self.state.result
        spec = result.config.model if result is not None else ""
        if Path(spec).suffix in MODEL_SUFFIXES and os.path.exists(spec):
            self.state.add_recent_model(spec)

    # -- profiles ----------------------------------------------------------------------------------
    def open_profile_dialog(self) -> None:
        path = dialogs.open_profile_dialog(self._parent())
        if path:
            self.open_profile_path(path)

    def open_profile_path(self, path: str) -> None:
        """Use the profile `path` and run again; one that cannot be read is a dialog, and stays out
        of the recent profiles (the run would refuse it the same way)."""
        from vpu_core.errors import InspectorError
        from vpu_core.preflight import check_profile_path

        try:
            check_profile_path(path)
        except InspectorError as error:
            dialogs.show_error(self._parent(), error, title="Cannot use the profile")
            return
        self.state.add_recent_profile(path)
        self.state.config = replace(self.state.config, profile=path)
        self.state.request_run(fresh=True)

    # -- calibration data --------------------------------------------------------------------------
    def open_calibration_dialog(self) -> None:
        start = self.store.qs.value("calib/dir") or ""
        path = dialogs.open_calibration_dialog(self._parent(), str(start))
        if path:
            self.open_calibration_path(path)

    def open_calibration_path(self, path: str | None) -> None:
        """Calibrate on the samples of `path` (.pt / .npz; None = synthetic) and run again.
        The file is only read by the core (torch.load(weights_only=True) / numpy without pickle)."""
        if path:
            self.store.qs.setValue("calib/dir", str(Path(path).parent))
        self.state.config = replace(self.state.config, calib_data=path)
        self.state.request_run(fresh=True)

    # -- drag & drop -------------------------------------------------------------------------------
    def eventFilter(self, obj: QObject, event: QEvent) -> bool:
        """Installed on the window: a dropped .py / .pt2 opens (a .py after asking)."""
        if isinstance(event, QDropEvent) and event.type() in (QEvent.Type.DragEnter, QEvent.Type.Drop):
            path = dropped_model(event)           # a drag entering is a QDropEvent too
            if path is not None:
                event.acceptProposedAction()
                if event.type() == QEvent.Type.Drop:
                    self.open_model_path(path)
                return True
        return False


def dropped_model(event: QDropEvent) -> str | None:
    urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
    paths = [u.toLocalFile() for u in urls if u.isLocalFile()]
    return next((p for p in paths if Path(p).suffix in MODEL_SUFFIXES), None)

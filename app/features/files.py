"""Files: opening models, hardware profiles and calibration data (dialogs, drag & drop, recents).

A model that ran is added to the recent files of the model picker. Drag & drop reaches this
controller through an event filter on the window (no window subclass hooks).
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QEvent, QObject

from app import dialogs
from app.state import AppState

MODEL_SUFFIXES = (".py", ".pt2")


class FilesController(QObject):
    def __init__(self, state: AppState, window, controls, compare_bar, runs, store) -> None:
        super().__init__(state)
        self.state, self.window, self.controls, self.compare_bar = state, window, controls, compare_bar
        self.runs, self.store = runs, store
        controls.open_model_requested.connect(self.open_model_dialog)
        controls.open_profile_requested.connect(self.open_profile_dialog)
        controls.open_calib_requested.connect(self.open_calibration_dialog)
        compare_bar.open_profile_requested.connect(self.open_compare_profile_dialog)
        state.result_changed.connect(self._remember_model)
        window.setAcceptDrops(True)
        window.installEventFilter(self)

    # -- models ----------------------------------------------------------------------------------
    def open_model_dialog(self) -> None:
        recent = self.store.recent_files()
        path = dialogs.open_model_dialog(self.window, str(Path(recent[0]).parent) if recent else "")
        if path:
            self.open_model_path(path, trusted=True)

    def open_model_path(self, path: str, trusted: bool = False) -> None:
        """Open a .py / .pt2 model and run it. A .py runs code: ask unless a dialog already warned."""
        if Path(path).suffix == ".py" and not trusted and not dialogs.confirm_python_model(self.window, path):
            return
        self.controls.set_model_spec(str(Path(path).resolve()) if Path(path).exists() else path)
        self.runs.start()

    def _remember_model(self) -> None:
        result = self.state.result
        spec = result.config.model if result is not None else ""
        if Path(spec).suffix in MODEL_SUFFIXES:
            self.controls.set_catalogue(self.controls.zoo_entries(), self.store.add_recent_file(spec))

    # -- profiles ----------------------------------------------------------------------------------
    def open_profile_dialog(self) -> None:
        path = dialogs.open_profile_dialog(self.window)
        if path:
            self.store.add_recent_profile(path)
            self.controls.set_profiles(self.store.recent_profiles(), path)
            self.compare_bar.set_profiles(self.store.recent_profiles())
            self.runs.start()

    def open_compare_profile_dialog(self) -> None:
        path = dialogs.open_profile_dialog(self.window)
        if path:
            self.store.add_recent_profile(path)
            self.compare_bar.set_profiles(self.store.recent_profiles())
            self.compare_bar.set_profile(path)
            self.runs.request()

    # -- calibration data --------------------------------------------------------------------------
    def open_calibration_dialog(self) -> None:
        start = self.store.qs.value("calib/dir") or ""
        path = dialogs.open_calibration_dialog(self.window, str(start))
        if path:
            self.open_calibration_path(path)

    def open_calibration_path(self, path: str | None) -> None:
        """Calibrate on the samples of `path` (.pt / .npz; None = synthetic) and run again.
        The file is only read by the core (torch.load(weights_only=True) / numpy without pickle)."""
        if path:
            self.store.qs.setValue("calib/dir", str(Path(path).parent))
        self.controls.set_calib_data(path)
        self.runs.start()

    # -- drag & drop -------------------------------------------------------------------------------
    def eventFilter(self, obj, event) -> bool:
        if obj is self.window and event.type() in (QEvent.Type.DragEnter, QEvent.Type.Drop):
            path = dropped_model(event)
            if path is not None:
                event.acceptProposedAction()
                if event.type() == QEvent.Type.Drop:
                    self.open_model_path(path)
                return True
        return False


def dropped_model(event) -> str | None:
    urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
    paths = [u.toLocalFile() for u in urls if u.isLocalFile()]
    return next((p for p in paths if Path(p).suffix in MODEL_SUFFIXES), None)

"""Opening models and profiles: the Open dialogs, drag & drop, recent files.

A mixin of MainWindow (it uses the window's store, controls and start_run), kept apart so the
window module stays about layout and results.
"""
from __future__ import annotations

from pathlib import Path

from app import dialogs

MODEL_SUFFIXES = (".py", ".pt2")


class ModelFilesMixin:
    def open_model_dialog(self) -> None:
        recent = self.store.recent_files()
        path = dialogs.open_model_dialog(self, str(Path(recent[0]).parent) if recent else "")
        if path:
            self.open_model_path(path, trusted=True)

    def open_model_path(self, path: str, trusted: bool = False) -> None:
        """Open a .py / .pt2 model and run it. A .py runs code: ask unless a dialog already warned."""
        if Path(path).suffix == ".py" and not trusted and not dialogs.confirm_python_model(self, path):
            return
        self.controls.set_model_spec(str(Path(path).resolve()) if Path(path).exists() else path)
        self.start_run()

    def open_profile_dialog(self) -> None:
        path = dialogs.open_profile_dialog(self)
        if path:
            self.store.add_recent_profile(path)
            self.controls.set_profiles(self.store.recent_profiles(), path)
            self.start_run()

    def open_calibration_dialog(self) -> None:
        start = self.store.qs.value("calib/dir") or ""
        path = dialogs.open_calibration_dialog(self, str(start))
        if path:
            self.open_calibration_path(path)

    def open_calibration_path(self, path: str | None) -> None:
        """Calibrate on the samples of `path` (.pt / .npz; None = synthetic) and run again.
        The file is only read by the core (torch.load(weights_only=True) / numpy without pickle)."""
        if path:
            self.store.qs.setValue("calib/dir", str(Path(path).parent))
        self.controls.set_calib_data(path)
        self.start_run()

    def dragEnterEvent(self, event) -> None:
        if dropped_model(event) is not None:
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        path = dropped_model(event)
        if path is not None:
            event.acceptProposedAction()
            self.open_model_path(path)


def dropped_model(event) -> str | None:
    urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
    paths = [u.toLocalFile() for u in urls if u.isLocalFile()]
    return next((p for p in paths if Path(p).suffix in MODEL_SUFFIXES), None)

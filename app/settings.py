"""Persistent GUI state (window geometry, last run options, recent files) in QSettings.

`VPU_INSPECTOR_SETTINGS=/path/file.ini` redirects everything to one INI file: tests point it at
a temporary directory so they never read or write the user's real settings.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings

if TYPE_CHECKING:
    from PySide6.QtCore import QByteArray

ENV_VAR = "VPU_INSPECTOR_SETTINGS"
MAX_RECENT = 8
RUN_KEYS = ("quantizer", "per_tensor", "dynamic_batch", "calib_batches", "batch_size", "profile",
             "reference_observers")


def open_settings() -> QSettings:
    path = os.environ.get(ENV_VAR)
    if path:
        return QSettings(path, QSettings.Format.IniFormat)
    return QSettings("vpu-inspector", "VPU Inspector")


def _as_bool(value) -> bool:
    # INI files give strings back ("true"/"false"); native backends give bools.
    return value in (True, "true", "1", 1)


class Store:
    """Typed access to the few values the window keeps between sessions."""

    def __init__(self, settings: QSettings | None = None) -> None:
        self.qs = settings or open_settings()

    # -- recent files --------------------------------------------------------------------------
    def recent_files(self) -> list[str]:
        value: Any = self.qs.value("recent_files", [])
        items = [value] if isinstance(value, str) else list(value or [])
        return [p for p in items if p and os.path.exists(p)]

    def add_recent_file(self, path: str) -> list[str]:
        path = str(Path(path).resolve())
        items = [path] + [p for p in self.recent_files() if p != path]
        self.set_recent_files(items)
        return items[:MAX_RECENT]

    def set_recent_files(self, paths: list[str]) -> None:
        self.qs.setValue("recent_files", list(paths)[:MAX_RECENT])

    def recent_profiles(self) -> list[str]:
        value: Any = self.qs.value("recent_profiles", [])
        items = [value] if isinstance(value, str) else list(value or [])
        return [p for p in items if p and os.path.exists(p)]

    def add_recent_profile(self, path: str) -> None:
        path = str(Path(path).resolve())
        self.set_recent_profiles([path] + [p for p in self.recent_profiles() if p != path])

    def set_recent_profiles(self, paths: list[str]) -> None:
        self.qs.setValue("recent_profiles", list(paths)[:MAX_RECENT])

    def time_limit_s(self, default: float | None) -> float | None:
        """Seconds after which a run is stopped (0 in the file: never); `default` when not saved."""
        value = self.qs.value("run/time_limit_s")
        try:
            seconds = float(value) if value is not None else default
        except (TypeError, ValueError):
            return default
        return seconds if seconds else None

    def save_time_limit_s(self, seconds: float | None) -> None:
        self.qs.setValue("run/time_limit_s", float(seconds or 0))

    # -- run options ----------------------------------------------------------------------------
    def run_options(self) -> dict:
        """Last quantizer / batch / calibration / profile choice (only keys that were saved)."""
        out = {}
        for key in RUN_KEYS:
            value = self.qs.value(f"run/{key}")
            if value is None:
                continue
            if key in ("per_tensor", "dynamic_batch", "reference_observers"):
                value = _as_bool(value)
            elif key == "calib_batches":
                value = int(value)
            elif key == "batch_size":                  # "" = the model's own batch (None)
                value = int(value) if str(value).strip() else None
            elif key == "profile":
                value = str(value) or None
            out[key] = value
        return out

    def save_run_options(self, options: dict) -> None:
        for key in RUN_KEYS:
            if key in options:
                value = options[key]
                self.qs.setValue(f"run/{key}", "" if value is None else value)

    # -- window ------------------------------------------------------------------------------------
    def window_state(self) -> tuple:
        return self.qs.value("window/geometry"), self.qs.value("window/state")

    def save_window_state(self, geometry: QByteArray, state: QByteArray) -> None:
        self.qs.setValue("window/geometry", geometry)
        self.qs.setValue("window/state", state)

    def fold_params(self) -> bool:
        value = self.qs.value("view/fold_params")
        return True if value is None else _as_bool(value)

    def save_fold_params(self, fold: bool) -> None:
        self.qs.setValue("view/fold_params", fold)

    def view_option(self, name: str) -> bool:
        """A presentation toggle ("large_font", "high_contrast"); off unless saved on."""
        return _as_bool(self.qs.value(f"view/{name}", False))

    def save_view_option(self, name: str, on: bool) -> None:
        self.qs.setValue(f"view/{name}", bool(on))

    def sync(self) -> None:
        self.qs.sync()

"""Every dialog the window shows, as module-level functions (tests replace or find them).

Error boxes are opened non-blocking (`QMessageBox.open`): the event loop keeps running, the
window stays usable behind them, and a test can find the visible box and close it.
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QComboBox, QFileDialog, QGridLayout, QLabel, QMessageBox, QWidget

from app import theme

PY_WARNING = ("Opening a .py file runs its Python code (it must define get_model() returning "
              "(nn.Module, example_inputs)). Only open files you trust.")
MODEL_FILTERS = "Models (*.py *.pt2);;Exported program (*.pt2);;Python model — runs its code (*.py)"


CALIB_FILTERS = "Calibration data (*.pt *.pth *.npz)"
IMAGE_FILTERS = "PNG image (*.png);;SVG image (*.svg)"
IMAGE_REGIONS = (("graph", "Whole graph"), ("view", "Current view (as on screen)"))
KEEP_NOTE = "The previous results are still shown."
NOTHING_NOTE = "Nothing was shown before: open another model or change the settings, then Run."


def show_error(parent: QWidget | None, error: object, title: str = "Run failed", note: str = KEEP_NOTE) -> QMessageBox:
    """One-line reason in the box, the technical detail behind "Show Details…"."""
    message = getattr(error, "message", None) or str(error)
    detail = getattr(error, "detail", "") or ""
    box = QMessageBox(QMessageBox.Icon.Critical, title, message, QMessageBox.StandardButton.Ok, parent)
    box.setObjectName("errorBox")
    box.setInformativeText(note)
    if detail:
        box.setDetailedText(detail)
    box.setMinimumWidth(520)
    box.open()
    if parent is not None:
        setattr(parent, "_error_box", box)    # keep it alive while it is open
    return box


def ask_time_limit(parent: QWidget | None, seconds: float | None) -> int | None:
    """The time limit of a run in seconds (0: none), or None when the user cancels."""
    from PySide6.QtWidgets import QInputDialog

    value, ok = QInputDialog.getInt(
        parent, "Time limit of a run", "Stop a run still going after (seconds, 0: never):",
        int(seconds or 0), 0, 7 * 24 * 3600, 60)
    return value if ok else None


def confirm_python_model(parent: QWidget | None, path: str) -> bool:
    """Loading a .py executes it: ask first (used for drag & drop, where no dialog warned yet)."""
    answer = QMessageBox.warning(
        parent, "Run Python code?", f"{Path(path).name}\n\n{PY_WARNING}",
        QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel,
        QMessageBox.StandardButton.Cancel)
    return answer == QMessageBox.StandardButton.Open


class ModelFileDialog(QFileDialog):
    """The model picker; `warning` is the code-execution warning shown inside it."""

    warning: QLabel


class ImageFileDialog(QFileDialog):
    """The image export dialog; `region` chooses the whole graph or the current view."""

    region: QComboBox


def model_file_dialog(parent: QWidget | None, start_dir: str = "") -> ModelFileDialog:
    """File dialog for .py / .pt2 models, with the code-execution warning inside it."""
    dialog = ModelFileDialog(parent, "Open model", start_dir, MODEL_FILTERS)
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)   # so the warning can be shown
    dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
    warning = QLabel("⚠  " + PY_WARNING)
    warning.setWordWrap(True)
    warning.setStyleSheet(f"color: {theme.WARN}; background: #fff7e6; border: 1px solid #f5d9a8; "
                          "border-radius: 5px; padding: 8px;")
    layout = dialog.layout()
    if isinstance(layout, QGridLayout):
        layout.addWidget(warning, layout.rowCount(), 0, 1, -1)
    dialog.warning = warning
    return dialog


def open_model_dialog(parent: QWidget | None, start_dir: str = "") -> str | None:
    dialog = model_file_dialog(parent, start_dir)
    if dialog.exec() != QFileDialog.DialogCode.Accepted or not dialog.selectedFiles():
        return None
    return dialog.selectedFiles()[0]


def open_profile_dialog(parent: QWidget | None, start_dir: str = "") -> str | None:
    path, _ = QFileDialog.getOpenFileName(parent, "Open hardware profile", start_dir,
                                          "Hardware profile (*.toml)")
    return path or None


def open_folder_dialog(parent: QWidget | None, title: str, start_dir: str = "") -> str | None:
    path = QFileDialog.getExistingDirectory(parent, title, start_dir)
    return path or None


def open_calibration_dialog(parent: QWidget | None, start_dir: str = "") -> str | None:
    """Calibration samples: tensors along dim 0, one per model input (read without pickle)."""
    path, _ = QFileDialog.getOpenFileName(parent, "Calibration data", start_dir, CALIB_FILTERS)
    return path or None


def save_report_dialog(parent: QWidget | None, suggested: str) -> str | None:
    path, _ = QFileDialog.getSaveFileName(parent, "Export report", suggested, "HTML report (*.html)")
    if path and not path.lower().endswith((".html", ".htm")):
        path += ".html"
    return path or None


def export_image_file_dialog(parent: QWidget | None, suggested: str) -> ImageFileDialog:
    """The save dialog of File ▸ Export image…, with an "Export:" choice of region (`.region`)."""
    dialog = ImageFileDialog(parent, "Export image", suggested, IMAGE_FILTERS)
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)     # room for the region choice
    dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    dialog.setDefaultSuffix("png")
    region = QComboBox()
    for key, text in IMAGE_REGIONS:
        region.addItem(text, key)
    layout = dialog.layout()
    if isinstance(layout, QGridLayout):
        row = layout.rowCount()
        layout.addWidget(QLabel("Export:"), row, 0)
        layout.addWidget(region, row, 1)
    dialog.filterSelected.connect(lambda f: dialog.setDefaultSuffix("svg" if "svg" in f else "png"))
    dialog.region = region
    return dialog


def export_image_dialog(parent: QWidget | None, suggested: str) -> tuple[str, str] | None:
    """(path, region) — region "graph" (the whole graph) or "view" (what the window shows)."""
    dialog = export_image_file_dialog(parent, suggested)
    if dialog.exec() != QFileDialog.DialogCode.Accepted or not dialog.selectedFiles():
        return None
    return dialog.selectedFiles()[0], dialog.region.currentData()

"""The light theme: one palette, one stylesheet, the bundled fonts sized for a projector."""
from __future__ import annotations

import tempfile
from pathlib import Path

from PySide6.QtGui import QColor, QFont, QPalette
from PySide6.QtWidgets import QApplication

from app import fonts
from app.graph_view.style import ACCELERATOR_FILL, CPU_FILL, IO_FILL, PARAM_FILL, QDQ_FILL, REMOVED_FILL

MONO_CSS = f"'{fonts.MONO_FAMILIES[0]}', '{fonts.MONO_FAMILIES[1]}'"   # rich text: font-family:{MONO_CSS}
BASE_PT = fonts.BASE_PT

BG = "#f4f5f7"
PANEL = "#ffffff"
BORDER = "#d9dde3"
TEXT = "#1f2933"
MUTED = "#5f6b7a"
ACCENT = "#2563eb"
ACCENT_DARK = "#1d4ed8"
DANGER = "#d92d20"
OK = "#15803d"
WARN = "#b45309"

# Partition categories: the canvas' own fills, so badges and status chips match the graph.
CATEGORY_COLORS = {"vpu": ACCELERATOR_FILL, "cpu": CPU_FILL, "removed": REMOVED_FILL, "qdq": QDQ_FILL, "param": PARAM_FILL,
                   "io": IO_FILL}
CATEGORY_NAMES = {
    "vpu": "VPU", "cpu": "CPU fallback", "qdq": "Quantize / dequantize", "param": "Parameter",
    "io": "Input / output",
}
PLOT_COLORS = {"activation": "#2563eb", "weight": "#f08c00", "shift": "#2f9e44",
               "float": "#9aa5b8", "pow2": "#2563eb", "bad": "#d92d20"}


def text_on(fill: str) -> str:
    """Dark or white text, whichever reads better on the `fill` colour."""
    c = QColor(fill)
    lum = 0.2126 * c.redF() + 0.7152 * c.greenF() + 0.0722 * c.blueF()
    return "#ffffff" if lum < 0.5 else TEXT

STYLESHEET = f"""
QMainWindow, QDialog {{ background: {BG}; }}
QWidget {{ color: {TEXT}; }}
QToolBar {{ background: {PANEL}; border: none; border-bottom: 1px solid {BORDER};
            padding: 6px 10px; spacing: 8px; }}
QToolBar QLabel {{ color: {MUTED}; padding-left: 6px; }}
QToolBar::separator {{ background: {BORDER}; width: 1px; margin: 4px 8px; }}
QComboBox, QSpinBox, QLineEdit {{ background: {PANEL}; border: 1px solid {BORDER}; border-radius: 5px;
            padding: 4px 8px; min-height: 22px; }}
QComboBox:focus, QSpinBox:focus, QLineEdit:focus {{ border-color: {ACCENT}; }}
QComboBox {{ padding-right: 24px; }}
QComboBox::drop-down {{ subcontrol-origin: padding; subcontrol-position: center right; border: none;
            width: 22px; }}
QComboBox::down-arrow, QSpinBox::down-arrow {{ image: url(@ARROWS@/down.svg); width: 10px; height: 6px; }}
QComboBox::down-arrow:disabled, QSpinBox::down-arrow:disabled {{ image: url(@ARROWS@/down_off.svg); }}
QSpinBox::up-arrow {{ image: url(@ARROWS@/up.svg); width: 10px; height: 6px; }}
QSpinBox::up-arrow:disabled {{ image: url(@ARROWS@/up_off.svg); }}
QSpinBox {{ padding-right: 22px; }}
QSpinBox::up-button, QSpinBox::down-button {{ subcontrol-origin: border; width: 20px; border: none;
            background: transparent; }}
QSpinBox::up-button {{ subcontrol-position: top right; margin-top: 3px; }}
QSpinBox::down-button {{ subcontrol-position: bottom right; margin-bottom: 3px; }}
QComboBox QAbstractItemView {{ background: {PANEL}; border: 1px solid {BORDER}; selection-background-color: #dbe6ff;
            selection-color: {TEXT}; outline: none; }}
QComboBox:disabled {{ color: #a0a8b4; background: #f3f4f6; }}
QPushButton {{ background: {PANEL}; border: 1px solid {BORDER}; border-radius: 5px;
            padding: 5px 12px; min-height: 22px; }}
QPushButton:hover {{ background: #eef2ff; border-color: #b8c4f5; }}
QPushButton:checked {{ background: {ACCENT}; color: white; border-color: {ACCENT}; }}
QPushButton:disabled {{ color: #a0a8b4; background: #f3f4f6; }}
QToolButton#dataButton {{ background: {PANEL}; border: 1px solid {BORDER}; border-radius: 5px;
            padding: 5px 24px 5px 9px; min-height: 22px; }}
QToolButton#dataButton:hover {{ background: #eef2ff; border-color: #b8c4f5; }}
QToolButton#dataButton::menu-indicator {{ image: url(@ARROWS@/down.svg); subcontrol-origin: padding;
            subcontrol-position: center right; right: 8px; width: 10px; height: 6px; }}
QPushButton#runButton {{ background: {ACCENT}; color: white; border-color: {ACCENT}; font-weight: 600;
            padding: 5px 18px; }}
QPushButton#runButton:hover {{ background: {ACCENT_DARK}; }}
QPushButton#runButton:disabled {{ background: #9db5f0; border-color: #9db5f0; }}
QPushButton#segLeft {{ border-top-right-radius: 0; border-bottom-right-radius: 0; }}
QPushButton#segRight {{ border-top-left-radius: 0; border-bottom-left-radius: 0; margin-left: -1px; }}
QPushButton#segMid {{ border-radius: 0; margin-left: -1px; }}
QDockWidget {{ font-weight: 600; titlebar-close-icon: none; }}
QDockWidget::title {{ background: {BG}; padding: 6px 10px; border-bottom: 1px solid {BORDER}; }}
QTabWidget::pane {{ border: 1px solid {BORDER}; background: {PANEL}; top: -1px; }}
QTabBar::tab {{ background: {BG}; border: 1px solid {BORDER}; border-bottom: none; padding: 6px 14px;
            margin-right: 2px; border-top-left-radius: 5px; border-top-right-radius: 5px; color: {MUTED}; }}
QTabBar::tab:selected {{ background: {PANEL}; color: {TEXT}; font-weight: 600; }}
QTreeView, QTableView, QTextBrowser, QListView {{ background: {PANEL}; border: 1px solid {BORDER};
            alternate-background-color: #f8f9fb; selection-background-color: #dbe6ff;
            selection-color: {TEXT}; }}
QHeaderView::section {{ background: {BG}; border: none; border-bottom: 1px solid {BORDER};
            border-right: 1px solid {BORDER}; padding: 5px 8px; font-weight: 600; color: {MUTED}; }}
QStatusBar {{ background: {PANEL}; border-top: 1px solid {BORDER}; }}
QStatusBar QLabel {{ padding: 0 6px; }}
QProgressBar {{ border: 1px solid {BORDER}; border-radius: 4px; background: {BG}; text-align: center;
            max-height: 14px; min-width: 160px; }}
QProgressBar::chunk {{ background: {ACCENT}; border-radius: 3px; }}
QFrame#viewBar {{ background: {PANEL}; border-bottom: 1px solid {BORDER}; }}
QLabel#legendItem {{ color: {TEXT}; }}
QLabel#muted {{ color: {MUTED}; }}
QCheckBox {{ spacing: 6px; }}
"""


_ARROW_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="6" viewBox="0 0 10 6">'
              '<path d="{path}" fill="none" stroke="{color}" stroke-width="1.6" '
              'stroke-linecap="round" stroke-linejoin="round"/></svg>')


def _arrow_dir() -> str:
    """Write the combo / spin box arrow images once (stylesheets can only load them from files)."""
    folder = Path(tempfile.gettempdir()) / "vpu-inspector-theme"
    folder.mkdir(exist_ok=True)
    for name, path in (("down", "M1 1 L5 5 L9 1"), ("up", "M1 5 L5 1 L9 5")):
        for suffix, color in (("", MUTED), ("_off", "#b8bfca")):
            target = folder / f"{name}{suffix}.svg"
            if not target.exists():
                target.write_text(_ARROW_SVG.format(path=path, color=color), encoding="utf-8")
    return folder.as_posix()


HC_MUTED, HC_BORDER = "#27303b", "#7b8594"    # high contrast: secondary text and lines darker


LARGE_PT = BASE_PT + 3
# Presenting: what the audience reads grows (docks, compare headers, status bar); the toolbar
# keeps its size so the window still fits the screen. A style sheet rule, because with a style
# sheet applied Qt lets the sheet, not QWidget.setFont, decide widget fonts.
LARGE_RULES = f"""
QDockWidget QWidget, QStatusBar, QStatusBar QLabel, QLabel#compareHeader {{ font-size: {LARGE_PT}pt; }}
"""


def stylesheet(high_contrast: bool = False, large: bool = False) -> str:
    sheet = STYLESHEET.replace("@ARROWS@", _arrow_dir())
    if high_contrast:
        sheet = sheet.replace(MUTED, HC_MUTED).replace(BORDER, HC_BORDER)
    return sheet + (LARGE_RULES if large else "")


def ui_font(point_size: float = BASE_PT, bold: bool = False) -> QFont:
    return fonts.bundled_font(fonts.UI_FAMILIES, point_size, bold=bold)


def mono_font(point_size: float = BASE_PT - 0.5) -> QFont:
    return fonts.bundled_font(fonts.MONO_FAMILIES, point_size)


def apply_theme(app: QApplication) -> None:
    app.setStyle("Fusion")   # the same look on every platform; the stylesheet refines it
    fonts.install(app, BASE_PT)      # before any widget measures text
    pal = QPalette()
    for role, color in ((QPalette.ColorRole.Window, BG), (QPalette.ColorRole.Base, PANEL),
                        (QPalette.ColorRole.AlternateBase, "#f8f9fb"), (QPalette.ColorRole.Text, TEXT),
                        (QPalette.ColorRole.WindowText, TEXT), (QPalette.ColorRole.Button, PANEL),
                        (QPalette.ColorRole.ButtonText, TEXT), (QPalette.ColorRole.Highlight, ACCENT),
                        (QPalette.ColorRole.HighlightedText, "#ffffff"),
                        (QPalette.ColorRole.ToolTipBase, "#ffffff"), (QPalette.ColorRole.ToolTipText, TEXT),
                        (QPalette.ColorRole.PlaceholderText, "#8a94a3")):
        pal.setColor(role, QColor(color))
    app.setPalette(pal)
    app.setStyleSheet(stylesheet())

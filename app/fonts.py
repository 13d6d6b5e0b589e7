"""The bundled fonts in Qt: registered once per process, before anything measures or draws text.

Qt takes whatever fontconfig finds unless told otherwise, so box sizes, elision and every picture
used to change with the fonts a machine happened to have. Here every font the application builds
names the bundled families (resources/fonts) and fixes the two rendering choices fontconfig would
otherwise make per machine: hinting (it changes glyph advances, hence text widths) and subpixel
anti-aliasing (it changes pixels). A character none of the bundled fonts has (CJK in a model's
module names, say) still falls back to the system's fonts.
"""
from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication

from resources import fonts as bundled

BASE_PT = 10                         # the UI's text size; app.theme sizes the rest from it
# Symbols second: Qt looks there for a character the first face lacks before asking fontconfig
UI_FAMILIES = [bundled.SANS, bundled.SYMBOLS]
MONO_FAMILIES = [bundled.MONO, bundled.SYMBOLS]
# Vertical-only hinting: crisp baselines at 9–11 px without the full hinter's rounded advances,
# and what most Linux desktops use by default (fontconfig's hintslight).
HINTING = QFont.HintingPreference.PreferVerticalHinting

_families: tuple[str, ...] = ()


class MissingFontError(RuntimeError):
    """A bundled font file is missing or Qt could not read it (a broken install)."""


def register() -> tuple[str, ...]:
    """Add the bundled fonts to Qt's font database (once per process; needs a QGuiApplication).
    Returns the families registered."""
    global _families
    if _families:
        return _families
    if QGuiApplication.instance() is None:
        raise RuntimeError("register the bundled fonts after the QApplication exists")
    found: list[str] = []
    for path in bundled.FILES:
        font_id = QFontDatabase.addApplicationFont(str(path))
        if font_id < 0:
            raise MissingFontError(f"Qt could not load the bundled font {path}")
        found += QFontDatabase.applicationFontFamilies(font_id)
    missing = {bundled.SANS, bundled.MONO, bundled.SYMBOLS} - set(found)
    if missing:
        raise MissingFontError(f"bundled font families missing from {bundled.FONTS_DIR}: {sorted(missing)}")
    _families = tuple(dict.fromkeys(found))
    return _families


def bundled_font(families: list[str], point_size: float | None = None, pixel_size: int | None = None,
                 bold: bool = False) -> QFont:
    """A font of the bundled `families` at a point or pixel size, with fixed hinting and grey
    anti-aliasing (so its widths and pixels do not depend on the machine's fontconfig)."""
    font = QFont()
    font.setFamilies(families)
    if pixel_size is not None:
        font.setPixelSize(pixel_size)
    elif point_size is not None:
        font.setPointSizeF(point_size)
    font.setBold(bold)
    font.setHintingPreference(HINTING)
    font.setStyleStrategy(QFont.StyleStrategy.NoSubpixelAntialias)
    return font


def install(app: QGuiApplication, point_size: float = BASE_PT) -> None:
    """Register the bundled fonts and make the UI face the application's default font (what every
    widget and every plain QFont() inherits)."""
    register()
    app.setFont(bundled_font(UI_FAMILIES, point_size))

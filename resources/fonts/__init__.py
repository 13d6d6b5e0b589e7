"""The fonts the application ships (README.md beside this file: what they are, where they come from).

Every text the window, the canvas, the exported images and the HTML report draw is set in these
families, so a model looks the same on every machine whatever fonts it has installed. Registered
with Qt by app.fonts; embedded in the HTML report by vpu_core.reports.html.fonts.
"""
from pathlib import Path

FONTS_DIR = Path(__file__).resolve().parent
SANS = "VPU Inspector Sans"          # Inter 4.1: the UI text
MONO = "VPU Inspector Mono"          # JetBrains Mono 2.242: shapes, arguments, source lines
SYMBOLS = "VPU Inspector Symbols"    # DejaVu Sans 2.37's symbol blocks: ▸ ▾ ⇄ ✕ … that Inter lacks
FILES = tuple(sorted(FONTS_DIR.glob("*.woff2")))


def face_file(family: str, style: str) -> Path:
    """The file of one face: face_file(SANS, "Bold")."""
    return FONTS_DIR / f"{family.replace(' ', '')}-{style}.woff2"

"""The bundled fonts in the HTML pages: the family stacks the CSS names (the bundled families
first), and the @font-face rules that carry the font files inside the report itself.

The report embeds them (data: URLs, ~0.6 MB) so that a stakeholder's browser draws it as the
screenshots show, with or without the fonts installed; the sweep's pages (one per run) and its
dashboard only name the stacks, so a fleet of pages does not repeat the files: where the bundled
families are not installed they read in Inter or the system's sans-serif.
"""
from __future__ import annotations

import base64
import functools

from resources import fonts as bundled

SANS_STACK = (f'"{bundled.SANS}", "{bundled.SYMBOLS}", Inter, -apple-system, BlinkMacSystemFont, "Segoe UI", '
              'Roboto, "Helvetica Neue", Arial, "Noto Sans", "Liberation Sans", sans-serif')
MONO_STACK = (f'"{bundled.MONO}", "{bundled.SYMBOLS}", "JetBrains Mono", ui-monospace, SFMono-Regular, '
              'Menlo, Consolas, "Liberation Mono", monospace')
# What the report's CSS uses: text at 400 / 600 / 700 (550 and 650 round to them), code at 400;
# a bold code span or symbol is synthesised by the browser from these.
EMBEDDED = ((bundled.SANS, "Regular", 400), (bundled.SANS, "SemiBold", 600), (bundled.SANS, "Bold", 700),
            (bundled.MONO, "Regular", 400), (bundled.SYMBOLS, "Regular", 400))


@functools.lru_cache(maxsize=1)
def font_face_css() -> str:
    """@font-face rules with the bundled WOFF2 files inline (read once per process)."""
    rules = []
    for family, style, weight in EMBEDDED:
        data = base64.b64encode(bundled.face_file(family, style).read_bytes()).decode("ascii")
        rules.append(f'@font-face {{ font-family: "{family}"; font-style: normal; font-weight: {weight}; '
                     f'src: url(data:font/woff2;base64,{data}) format("woff2"); }}\n')
    return "".join(rules)

"""The application draws in the fonts it ships (resources/fonts), whatever the machine has installed:
the window, the canvas, the exported images and the HTML report. Before, Qt took whatever
fontconfig found, so text widths, elision, layout and screenshots changed from machine to machine.
"""
from __future__ import annotations

import base64
import io
import os
import re
import subprocess
import sys
import tokenize
from pathlib import Path

from resources import fonts as bundled

ROOT = Path(__file__).resolve().parents[1]
NO_SYSTEM_FONTS = ROOT / "tests" / "fontconfig" / "fonts.conf"     # what .ci/run uses


STATEMENT_START = (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING, None)


def _drawn_characters() -> set[str]:
    """Printable ASCII and every non-ASCII character in a string literal of app/ or vpu_core/
    (docstrings aside: a string that starts a statement)."""
    chars = {chr(c) for c in range(0x20, 0x7F)}
    for root in ("app", "vpu_core"):
        for path in (ROOT / root).rglob("*.py"):
            before = None
            for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
                if tok.type == tokenize.STRING and before not in STATEMENT_START:
                    chars |= {ch for ch in tok.string if ord(ch) > 0x7E and not ch.isspace()}
                if tok.type not in (tokenize.COMMENT, tokenize.NL):
                    before = tok.type
    return chars


def test_the_bundled_fonts_are_registered_and_are_the_applications_default(qapp):
    from PySide6.QtGui import QFontDatabase, QFontInfo, QGuiApplication

    from app import fonts, theme
    from app.graph_view.style import Theme

    assert {bundled.SANS, bundled.MONO, bundled.SYMBOLS} <= set(fonts.register())
    assert {bundled.SANS, bundled.MONO, bundled.SYMBOLS} <= set(QFontDatabase.families())
    assert QFontInfo(QGuiApplication.font()).family() == bundled.SANS
    canvas = Theme.make()
    for font in (theme.ui_font(), theme.ui_font(bold=True), canvas.label_font, canvas.detail_font,
                 Theme.make(presentation=True).label_font):
        assert QFontInfo(font).family() == bundled.SANS
    assert QFontInfo(theme.mono_font()).family() == bundled.MONO
    assert set(QFontDatabase.styles(bundled.SANS)) == {"Regular", "SemiBold", "Bold"}


def test_every_character_the_application_draws_is_in_a_bundled_font(qapp):
    """So no glyph falls back to a font the machine happens to have (× → · µ ≤ ≥ ± Greek, ▸ ⇄ ✕ …)."""
    from PySide6.QtGui import QRawFont

    fonts = [QRawFont(str(bundled.face_file(bundled.SANS, "Regular")), 11),
             QRawFont(str(bundled.face_file(bundled.SYMBOLS, "Regular")), 11)]
    assert all(f.isValid() for f in fonts)
    missing = sorted(ch for ch in _drawn_characters() if not any(f.supportsCharacter(ord(ch)) for f in fonts))
    assert missing == []
    greek = [chr(c) for c in range(0x391, 0x3CA) if chr(c).isalpha()]
    assert all(fonts[0].supportsCharacter(ord(ch)) for ch in greek)


def test_text_is_laid_out_in_the_bundled_faces_only(qapp):
    from PySide6.QtGui import QTextLayout

    from app import theme

    text = "conv2d 1×16×32×32 · 2^-9 int8 · 29.1 dB ≤ 3 µs → CPU ▸ What-if ▾ ⇄ ✕ ✓ ⚠ ΔΣ"
    for font, first in ((theme.ui_font(), bundled.SANS), (theme.mono_font(), bundled.MONO)):
        layout = QTextLayout(text, font)
        layout.beginLayout()
        layout.createLine()
        layout.endLayout()
        used = {run.rawFont().familyName() for run in layout.glyphRuns()}
        assert used == {first, bundled.SYMBOLS}


def test_the_layout_width_estimate_holds_every_label_in_the_bundled_font(qapp, analysis):
    """vpu_core.layout sizes node boxes without Qt (characters × CHAR_W): at the canvas's base sizes
    that is room for what the bundled Sans really draws, so no zoo label or detail is elided."""
    from PySide6.QtGui import QFontMetricsF

    from app.graph_view.style import Theme
    from vpu_core.graph.build import build_graph_model
    from vpu_core.layout import default_node_size
    from vpu_core.layout.types import NODE_PAD

    theme = Theme.make()
    label, detail = QFontMetricsF(theme.label_font), QFontMetricsF(theme.detail_font)
    for model in ("resnet8", "transformer"):
        for node in build_graph_model(analysis(model)).nodes:
            room = default_node_size(node)[0] - NODE_PAD
            assert label.horizontalAdvance(node.label) <= room, (model, node.label)
            if node.category not in ("qdq", "param") and not node.is_param:
                assert detail.horizontalAdvance(node.detail) <= room, (model, node.detail)


def test_the_html_report_carries_the_bundled_fonts(analysis):
    from vpu_core.reports.html import build_report_html
    from vpu_core.reports.html.fonts import EMBEDDED

    page = build_report_html(analysis("conv_relu"))
    faces = re.findall(r'@font-face \{ font-family: "([^"]+)"; font-style: normal; font-weight: (\d+); '
                       r'src: url\(data:font/woff2;base64,([A-Za-z0-9+/=]+)\)', page)
    assert [(f, int(w)) for f, w, _ in faces] == [(f, w) for f, _, w in EMBEDDED]
    for (family, style, _), (_, _, data) in zip(EMBEDDED, faces):
        assert base64.b64decode(data) == bundled.face_file(family, style).read_bytes()
    assert re.search(rf'body \{{[^}}]*font: 14px/1.5 "{bundled.SANS}"', page)
    assert f'--mono: "{bundled.MONO}"' in page
    light = build_report_html(analysis("conv_relu"), embed_fonts=False)    # a sweep's page per run
    assert "@font-face" not in light and f'"{bundled.SANS}"' in light
    assert len(page) - len(light) < 700_000


RENDER = """
import sys
from vpu_core.layout import layout_graph
from tools.layouts.synthetic import synthetic_qdq_graph
from app.graph_view.export import render_to_image
model = synthetic_qdq_graph(60, seed=5)
render_to_image(model, layout_graph(model), sys.argv[1])
"""


def test_an_exported_image_is_the_same_with_or_without_the_machines_fonts(tmp_path):
    """The same picture whether fontconfig sees no font at all or everything the machine has."""
    env = {k: v for k, v in os.environ.items() if k != "FONTCONFIG_FILE"}
    env.update(QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    pictures = []
    for config in (str(NO_SYSTEM_FONTS), None):
        out = tmp_path / f"{len(pictures)}.png"
        run_env = dict(env, FONTCONFIG_FILE=config) if config else env
        subprocess.run([sys.executable, "-c", RENDER, str(out)], env=run_env, check=True, timeout=600,
                       capture_output=True)
        pictures.append(out.read_bytes())
    assert pictures[0] == pictures[1]


def test_one_test_runs_without_xdist():
    """`pytest -p no:xdist tests/x.py::test_y` (the README's one-test command) is not refused."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "--collect-only", "-q",
                           "tests/test_fonts.py::test_one_test_runs_without_xdist"],
                          cwd=ROOT, capture_output=True, text=True, timeout=900)   # collection imports torch: slow under load
    assert done.returncode == 0, done.stdout + done.stderr

"""Colours, fonts and pens of the graph canvas, in one place.

The same colours mean the same things under every target: green is "runs on the target's
accelerator" (one green for every partition: a partition's identity is its numbered tag, never a
second near-identical shade), amber "left on the CPU"; an op the lowering removed is a pale grey
with a dashed outline; Q/DQ and parameters are quiet greys so the ops stand out; inputs/outputs
are dark slate. A badge is red for the VPU's rule violations, deep orange for the ops another
target leaves on the CPU. A Theme is immutable: switching the large-font or
high-contrast option builds a new one and the items repaint with it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from PySide6.QtCore import Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPen

from app.fonts import UI_FAMILIES, bundled_font
from vpu_core.graph.legend import LegendFacts
from vpu_core.layout.types import CHAR_W, OP_H

# The category and gradient colours are the core's (vpu_core.graph.colours): the Model Explorer
# files are written with the same ones.
from vpu_core.graph.colours import (  # re-exported: the canvas' modules import them from here
    ACCELERATOR_FILL, BOUNDARY, CPU_BADGE, CPU_FILL, IO_FILL, NO_VALUE, PARAM_FILL, PARTITION_TAG, QDQ_FILL,
    REMOVED_FILL, VIOLATION, VPU_PALETTE, gradient,
)

__all__ = ["ACCELERATOR_FILL", "BOUNDARY", "CPU_BADGE", "CPU_FILL", "IO_FILL", "NO_VALUE", "PARAM_FILL",
           "PARTITION_TAG", "QDQ_FILL", "REMOVED_FILL", "VIOLATION", "VPU_PALETTE", "gradient", "Theme",
           "gradient_color", "legend_entries"]

SELECT = "#c51162"        # selected node outline and its edges (magenta: no category uses it)
MATCH = "#fbc02d"         # search matches
GROUP_FILL = "#f4f6f9"    # a collapsed module group
GROUP_EDGE = "#5f6b7a"
FRAME_FILLS = ("#fbfcfd", "#f3f6f9")   # expanded groups, alternating by depth
FRAME_EDGE = "#b3bcc7"
SHARED = "#7b1fa2"        # tensors forced to share a scale with the selection

LABEL_SAMPLE = "embedding unsqueeze"      # wide lowercase glyphs (m, w, q): the worst labels
DETAIL_SAMPLE = "1×3×64×64 fp32"          # a shape line


def _text_on(fill: QColor) -> QColor:
    """Black or white text, whichever reads better on `fill` (relative luminance)."""
    lum = 0.2126 * fill.redF() + 0.7152 * fill.greenF() + 0.0722 * fill.blueF()
    return QColor("#ffffff") if lum < 0.45 else QColor("#1b1f23")


@dataclass(frozen=True)
class Theme:
    large_font: bool = False
    high_contrast: bool = False
    version: int = 0                       # bumped on every change; items drop text caches
    label_font: QFont = field(default_factory=QFont, compare=False)
    detail_font: QFont = field(default_factory=QFont, compare=False)
    presentation: bool = False             # demos: larger labels, thick edges, the legend scaled

    @staticmethod
    def make(large_font: bool = False, high_contrast: bool = False, version: int = 0,
             presentation: bool = False) -> "Theme":
        # the bundled face, never the app's default: headless renders have no theme applied
        lf = bundled_font(UI_FAMILIES, pixel_size=16 if presentation else 14 if large_font else 11,
                          bold=high_contrast or presentation)
        df = bundled_font(UI_FAMILIES, pixel_size=12 if presentation else 11 if large_font else 9)
        return Theme(large_font, high_contrast, version, lf, df, presentation)

    @property
    def edge_scale(self) -> float:
        """Edge and outline widths: 2× for a projector."""
        return 2.0 if self.presentation else 1.0

    def label_scale(self) -> float:
        """How much larger than the layout's normal estimate this theme's texts are
        (vpu_core.config.ViewOptions.label_scale): the widest of the label's and the detail
        line's glyph widths and the two lines' height, measured on this font; 1.0 for the
        normal look, rounded up to 0.05 so the layouts stay few."""
        label = QFontMetricsF(self.label_font)
        detail = QFontMetricsF(self.detail_font)
        ratios = (label.horizontalAdvance(LABEL_SAMPLE) / len(LABEL_SAMPLE) / CHAR_W,
                  detail.horizontalAdvance(DETAIL_SAMPLE) / len(DETAIL_SAMPLE) / (0.9 * CHAR_W),
                  (label.height() + detail.height() + 10.0) / OP_H)
        return max(1.0, math.ceil(max(ratios) * 20.0 - 1e-9) / 20.0)

    # ---- node colours -------------------------------------------------------------------
    def fill(self, category: str, subgraph: int | None) -> QColor:
        c = QColor({"vpu": ACCELERATOR_FILL, "cpu": CPU_FILL, "removed": REMOVED_FILL, "qdq": QDQ_FILL,
                    "param": PARAM_FILL, "io": IO_FILL, "group": GROUP_FILL}.get(category, QDQ_FILL))
        return c          # high contrast keeps the fills (black text on them reads best)

    def text_color(self, fill: QColor) -> QColor:
        return _text_on(fill)

    def outline(self, category: str) -> QPen:
        col = QColor("#000000") if self.high_contrast else QColor(
            "#9aa0a6" if category in ("qdq", "param", "removed") else "#41484f")
        pen = QPen(col, (1.6 if self.high_contrast else 1.0) * (1.5 if self.presentation else 1.0))
        if category == "removed":
            pen.setStyle(Qt.PenStyle.DashLine)
        pen.setCosmetic(False)
        return pen

    # ---- edges ---------------------------------------------------------------------------
    def edge_pen(self, lod: float) -> QPen:
        pen = QPen(QColor("#30363d" if self.high_contrast or self.presentation else "#7d848c"),
                   (1.6 if self.high_contrast else 1.1) * self.edge_scale)
        pen.setCosmetic(lod < 1.0)     # zoomed out: device pixels, cheapest to stroke
        return pen

    def edge_brush(self) -> QBrush:
        return QBrush(QColor("#30363d" if self.high_contrast or self.presentation else "#7d848c"))

    def boundary_pen(self, lod: float) -> QPen:
        pen = QPen(QColor(BOUNDARY), (3.0 if lod >= 0.4 else 2.0) * self.edge_scale, Qt.PenStyle.DashLine)
        pen.setCosmetic(lod < 0.4)
        return pen

    def select_pen(self, width: float = 3.0) -> QPen:
        return QPen(QColor(SELECT), width * (1.5 if self.presentation else 1.0))

    def match_pen(self) -> QPen:
        return QPen(QColor(MATCH), 4.0)


def gradient_color(fraction: float, neutral: bool = False) -> QColor:
    """Colour at `fraction` (0 = the worst end) of a metric gradient, interpolated."""
    stops = gradient(neutral)
    f = min(1.0, max(0.0, fraction)) * (len(stops) - 1)
    i = min(int(f), len(stops) - 2)
    a, b, t = QColor(stops[i]), QColor(stops[i + 1]), f - i
    return QColor(round(a.red() + (b.red() - a.red()) * t), round(a.green() + (b.green() - a.green()) * t),
                  round(a.blue() + (b.blue() - a.blue()) * t))


def legend_entries(theme: Theme, facts: LegendFacts) -> list[tuple[str, str, object]]:
    """(kind, text, colour) rows of the legend, one per colour the picture uses (vpu_core.graph.
    legend.LegendFacts) in its current colouring, worded for the target that colours it; kind is
    "box", "tag" (a partition's numbered tag), "edge", "mark", "badge", "group", "frame",
    "outline" or "note" (a line without a colour: partitions hidden in closed groups)."""
    rows: list[tuple[str, str, object]] = []
    cats, acc = facts.categories, facts.accelerator
    the = f"the {acc}" if acc in ("VPU", "NPU") else acc        # "the NPU", "XNNPACK"
    if not facts.by_metric:          # a metric colours the ops: its gradient is their legend
        if facts.subgraphs:
            rows.append(("box", f"on {the}" if len(facts.subgraphs) <= 1 else f"on {the} (partitions)",
                         theme.fill("vpu", None)))
        if len(facts.subgraphs) > 1:
            rows.append(("tag", f"partition number ({len(facts.subgraphs)} drawn)", QColor(PARTITION_TAG)))
        if "cpu" in cats:
            rows.append(("box", "on the CPU", theme.fill("cpu", None)))
        if "removed" in cats:
            rows.append(("box", "removed while lowering (runs nowhere)", theme.fill("removed", None)))
    for cat, text in (("qdq", "quantize / dequantize"), ("param", "parameter"), ("io", "input / output")):
        if cat in cats:
            rows.append(("box", text, theme.fill(cat, None)))
    if facts.boundary:
        rows.append(("edge", f"CPU ↔ {acc} boundary", QColor(BOUNDARY)))
    if facts.violations:
        rows.append(("badge", "VPU rule violations", QColor(VIOLATION)) if facts.badges == "violations"
                    else ("badge", f"ops {the} leaves on the CPU", QColor(CPU_BADGE)))
    if facts.edge_violations and facts.badges == "violations":
        rows.append(("mark", "folded Q/DQ breaks a VPU rule", QColor(VIOLATION)))
    if "group" in cats:
        rows.append(("group", f"module group: {acc} | CPU share", QColor(GROUP_FILL)))
    if facts.frames:
        rows.append(("frame", "open module group", QColor(FRAME_FILLS[0])))
    if facts.shared:
        rows.append(("outline", "shares one scale with the selection", QColor(SHARED)))
    if facts.matches:
        rows.append(("outline", "search match", QColor(MATCH)))
    if facts.hidden_subgraphs and not facts.by_metric:
        n = facts.hidden_subgraphs
        rows.append(("note", f"{n} more partition{'s' if n != 1 else ''} inside closed groups", None))
    return rows

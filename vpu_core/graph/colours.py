"""The graph's colours as CSS hex strings: the canvas draws with them (app.graph_view.style) and the
Model Explorer files are written with them (vpu_core.interop), so both pictures agree.

Cool colours mean "runs on the accelerator" (one shade per subgraph), warm amber "fell back to the
CPU"; Q/DQ and parameters are quiet greys, inputs / outputs dark slate. Pure Python, no Qt.
"""
from __future__ import annotations

# VPU subgraph shades, ordered so neighbouring ids differ in hue family as well as lightness.
VPU_PALETTE = ("#6cc58a", "#4db6ac", "#74a9e4", "#a3d468", "#4fc3dd", "#9aa6ec",
               "#3fae8c", "#8ccbf2", "#b6dc9a", "#6f98d6")
CPU_FILL = "#f4a640"
QDQ_FILL = "#cfd3d8"
PARAM_FILL = "#eef0f3"
IO_FILL = "#37474f"
VIOLATION = "#e53935"
BOUNDARY = "#e65100"
NO_VALUE = "#e3e6ea"      # metric overlay: an op the metric says nothing about
# Metric gradients, worst end first: red → amber → green for good/bad metrics, blues otherwise.
GRADIENT_GOOD_BAD = ("#d73027", "#fc8d59", "#fee08b", "#d9ef8b", "#91cf60", "#1a9850")
GRADIENT_NEUTRAL = ("#eff3ff", "#c6dbef", "#9ecae1", "#6baed6", "#3182bd", "#08519c")


def subgraph_fill(subgraph: int | None) -> str:
    """The shade of accelerator subgraph `subgraph` (colours cycle every len(VPU_PALETTE))."""
    return VPU_PALETTE[(subgraph or 0) % len(VPU_PALETTE)]


def gradient(neutral: bool) -> tuple[str, ...]:
    return GRADIENT_NEUTRAL if neutral else GRADIENT_GOOD_BAD


def gradient_hex(fraction: float, neutral: bool = False) -> str:
    """"#rrggbb" at `fraction` (0 = the worst end) of a metric gradient, interpolated as the canvas does."""
    stops = gradient(neutral)
    f = min(1.0, max(0.0, fraction)) * (len(stops) - 1)
    i = min(int(f), len(stops) - 2)
    a, b, t = _rgb(stops[i]), _rgb(stops[i + 1]), f - i
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b))


def text_on(fill: str) -> str:
    """Dark or white text, whichever reads better on `fill` (the canvas' threshold)."""
    r, g, b = (c / 255 for c in _rgb(fill))
    return "#ffffff" if 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.45 else "#1b1f23"


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    h = hex_colour.lstrip("#")
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)

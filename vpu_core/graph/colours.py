"""The graph's colours as CSS hex strings: the canvas draws with them (app.graph_view.style) and the
Model Explorer files are written with them (vpu_core.interop), so both pictures agree.

The same colours mean the same things under every target: green "runs on the target's accelerator"
(one green for every partition: a partition is told by its number, never by a second shade), warm
amber "runs on the CPU", a pale grey with a dashed outline "removed while lowering"; Q/DQ and
parameters are quiet greys, inputs / outputs dark slate. Pure Python, no Qt.
"""
from __future__ import annotations

ACCELERATOR_FILL = "#6cc58a"   # on the target's accelerator, whichever target and partition
VPU_PALETTE = (ACCELERATOR_FILL,)   # one shade for every partition (ten near-identical teals were read as one)
PARTITION_TAG = "#1b5e20"      # a partition's numbered tag (dark green, white digits)
CPU_FILL = "#f4a640"
REMOVED_FILL = "#f5f6f8"       # folded away while lowering: runs nowhere
CPU_BADGE = "#d84315"          # a badge counting the ops a target other than the VPU leaves on the CPU
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
    """The fill of an op in accelerator partition `subgraph`: the one green of every partition."""
    return ACCELERATOR_FILL


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

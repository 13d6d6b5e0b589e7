"""A small inline-SVG chart kit for the HTML report (no matplotlib: it is not a dependency).

Three chart shapes cover the report: a histogram (one or more series sharing bin edges), a
scatter with reference lines, and horizontal bars with a label per row. Every function returns
an `<svg>` string that inherits the page's font; numbers are formatted with `nice_ticks` so axes
read like a plotting library's. All text that reaches the SVG goes through html.escape.
"""
from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from html import escape
from typing import Any, Sequence

from vpu_core.reports.html.fonts import MONO_STACK

AXIS = "#9aa3af"
GRID = "#e5e7eb"
INK = "#374151"
MUTED = "#6b7280"
PAD_L, PAD_R, PAD_T, PAD_B = 48, 14, 14, 40
_HALO = ' paint-order="stroke" stroke="#fff" stroke-width="3" stroke-linejoin="round"'  # text over lines


@dataclass(frozen=True)
class Series:
    name: str
    counts: tuple[int, ...]     # one count per bin
    color: str


@dataclass(frozen=True)
class RefLine:
    """A straight reference line y = x + offset (scatter) or a vertical marker at x (bars)."""
    label: str
    offset: float
    color: str
    dash: str = "5 4"


def nice_ticks(lo: float, hi: float, target: int = 6) -> list[float]:
    """Round tick positions from ≤ lo to ≥ hi, about `target` of them (1/2/5 × 10^k steps)."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return [0.0]
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / max(target, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    first = math.floor(lo / step + 1e-9) * step
    last = math.ceil(hi / step - 1e-9) * step      # the axis always reaches past the data
    ticks, t = [], first
    while t <= last + step * 1e-9:
        ticks.append(round(t, 10))
        t += step
    return ticks


def fmt_num(x: float) -> str:
    if x == int(x) and abs(x) < 1e6:
        return str(int(x))
    return f"{x:.3g}"


def _svg_open(width: int, height: int, label: str) -> str:
    return (f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
            f'role="img" aria-label="{escape(label)}">'
            f'<title>{escape(label)}</title>')


def _text(x: float, y: float, text: str, anchor: str = "middle", size: int = 11,
          color: str = MUTED, extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}" '
            f'fill="{color}"{extra}>{escape(text)}</text>')


def _y_axis(ticks: list[float], to_y, x0: float, x1: float) -> list[str]:
    out = []
    for t in ticks:
        y = to_y(t)
        out.append(f'<line x1="{x0:.1f}" x2="{x1:.1f}" y1="{y:.1f}" y2="{y:.1f}" stroke="{GRID}"/>')
        out.append(_text(x0 - 6, y + 3.5, fmt_num(t), anchor="end"))
    return out


def _x_axis(ticks: list[float], to_x, y0: float) -> list[str]:
    out = [f'<line x1="{to_x(ticks[0]):.1f}" x2="{to_x(ticks[-1]):.1f}" y1="{y0:.1f}" y2="{y0:.1f}" '
           f'stroke="{AXIS}"/>'] if ticks else []
    for t in ticks:
        x = to_x(t)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{y0:.1f}" y2="{y0 + 4:.1f}" stroke="{AXIS}"/>')
        out.append(_text(x, y0 + 16, fmt_num(t)))
    return out


def _axis_labels(width: int, height: int, x_label: str, y_label: str) -> list[str]:
    mid_y = PAD_T + (height - PAD_T - PAD_B) / 2
    return [_text(PAD_L + (width - PAD_L - PAD_R) / 2, height - 6, x_label, color=INK),
            _text(12, mid_y, y_label, color=INK, extra=f' transform="rotate(-90 12 {mid_y:.1f})"')]


def empty_chart(message: str, width: int = 520, height: int = 120) -> str:
    """A framed box saying why there is nothing to draw (wrapped to the box's width)."""
    lines = textwrap.wrap(message, max(20, width // 7)) or [""]
    top = height / 2 + 4 - 9 * (len(lines) - 1)
    texts = "".join(_text(width / 2, top + 18 * i, line, size=13) for i, line in enumerate(lines))
    return (_svg_open(width, height, message)
            + f'<rect x="0.5" y="0.5" width="{width - 1}" height="{height - 1}" rx="8" fill="#f9fafb" '
              f'stroke="{GRID}"/>' + texts + "</svg>")


def histogram(edges: tuple[float, ...], series: list[Series], *, x_label: str, y_label: str = "count",
              width: int = 520, height: int = 240, integer_ticks: bool = False, empty: str = "") -> str:
    """Bars per bin; several series are drawn side by side inside each bin. `empty`: why there
    is no data, said in the empty chart (default: "No data for {x_label}")."""
    if len(edges) < 2 or not series or not any(sum(s.counts) for s in series):
        return empty_chart(empty or f"No data for {x_label}", width)
    lo, hi = edges[0], edges[-1]
    top = max(max(s.counts) for s in series)
    y_ticks = [t for t in nice_ticks(0, top, 4) if t == int(t)] or [0.0, float(top)]
    y_max = max(y_ticks[-1], top)
    plot_w, plot_h = width - PAD_L - PAD_R, height - PAD_T - PAD_B
    to_x = lambda v: PAD_L + (v - lo) / (hi - lo) * plot_w          # noqa: E731
    to_y = lambda v: PAD_T + plot_h - v / y_max * plot_h            # noqa: E731
    parts = [_svg_open(width, height, f"Histogram of {x_label}")]
    parts += _y_axis(y_ticks, to_y, PAD_L, width - PAD_R)
    parts += _bars(edges, series, to_x, to_y, x_label)
    x_ticks = nice_ticks(lo, hi, 8)
    if integer_ticks:
        x_ticks = [t for t in x_ticks if t == int(t)] or x_ticks
    parts += _x_axis([t for t in x_ticks if lo <= t <= hi], to_x, PAD_T + plot_h)
    parts += _axis_labels(width, height, x_label, y_label)
    if len(series) > 1:
        parts += _legend([(s.name, s.color) for s in series], width - PAD_R, PAD_T + 4)
    parts.append("</svg>")
    return "".join(parts)


def _bars(edges, series: list[Series], to_x, to_y, x_label: str) -> list[str]:
    out, n = [], len(series)
    base = to_y(0)
    for i in range(len(edges) - 1):
        x0, x1 = to_x(edges[i]), to_x(edges[i + 1])
        slot = (x1 - x0) / n
        gap = min(1.0, slot * 0.15)
        for k, s in enumerate(series):
            c = s.counts[i]
            if not c:
                continue
            y = to_y(c)
            tip = f"{s.name}: {c} in [{fmt_num(edges[i])}, {fmt_num(edges[i + 1])})"
            out.append(f'<rect x="{x0 + k * slot + gap:.1f}" y="{y:.1f}" '
                       f'width="{max(slot - 2 * gap, 0.8):.1f}" height="{base - y:.1f}" rx="1.5" '
                       f'fill="{s.color}"><title>{escape(tip)}</title></rect>')
    return out


def _legend(items: list[tuple[str, str]], right: float, top: float) -> list[str]:
    """Swatch + name per (name, colour), right-aligned from (right, top) downwards."""
    out, y = [], top
    for name, color in items:
        out.append(f'<rect x="{right - 10:.1f}" y="{y:.1f}" width="10" height="10" rx="2" '
                   f'fill="{color}"/>')
        out.append(_text(right - 15, y + 9, name, anchor="end", color=INK))
        y += 16
    return out


def scatter(points: list[tuple[float, float]], *, x_label: str, y_label: str, color: str,
            ref_lines: tuple[RefLine, ...] = (), width: int = 520, height: int = 300,
            point_titles: list[str] | None = None) -> str:
    """Points with y = x + offset reference lines (e.g. float scale vs power-of-two scale)."""
    if not points:
        return empty_chart(f"No data for {y_label}", width)
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    lo = math.floor(min(min(xs), min(ys)) - 0.5)
    hi = math.ceil(max(max(xs), max(ys)) + 0.5)
    plot_w, plot_h = width - PAD_L - PAD_R, height - PAD_T - PAD_B
    to_x = lambda v: PAD_L + (v - lo) / (hi - lo) * plot_w          # noqa: E731
    to_y = lambda v: PAD_T + plot_h - (v - lo) / (hi - lo) * plot_h  # noqa: E731
    ticks = [t for t in nice_ticks(lo, hi, 7) if lo <= t <= hi]
    parts = [_svg_open(width, height, f"{y_label} against {x_label}")]
    parts += _y_axis(ticks, to_y, PAD_L, width - PAD_R)
    parts += _x_axis(ticks, to_x, PAD_T + plot_h)
    for ref in ref_lines:       # y = x + offset, clipped to the square plot area
        x_a, x_b = max(lo, lo - ref.offset), min(hi, hi - ref.offset)
        if x_b > x_a:
            parts.append(f'<line x1="{to_x(x_a):.1f}" y1="{to_y(x_a + ref.offset):.1f}" '
                         f'x2="{to_x(x_b):.1f}" y2="{to_y(x_b + ref.offset):.1f}" stroke="{ref.color}" '
                         f'stroke-width="1.3" stroke-dasharray="{ref.dash}"/>')
    for i, (x, y) in enumerate(points):
        tip = point_titles[i] if point_titles else f"({fmt_num(x)}, {fmt_num(y)})"
        parts.append(f'<circle cx="{to_x(x):.1f}" cy="{to_y(y):.1f}" r="3.2" fill="{color}" '
                     f'fill-opacity="0.55" stroke="{color}" stroke-width="0.8">'
                     f'<title>{escape(tip)}</title></circle>')
    parts += _axis_labels(width, height, x_label, y_label)
    legend_top = PAD_T + plot_h - 16 * len(ref_lines) - 4          # bottom right: below the data
    parts += _legend([(r.label, r.color) for r in ref_lines], width - PAD_R - 4, legend_top)
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    color: str
    tip: str = ""
    spread: float = 0.0         # ± whisker drawn by signed_hbars (0: none)


def hbars(bars: list[Bar], *, unit: str, marker: RefLine | None = None, **kw: Any) -> str:
    """One horizontal bar per row (label left, value at the bar's end), zero at the left edge."""
    return hbar_groups([(b.label, (b,)) for b in bars], unit=unit, marker=marker, **kw)


def hbar_groups(groups: Sequence[tuple[str, tuple[Bar, ...]]], *, unit: str, width: int = 1100,
                bar_h: int = 12, marker: RefLine | None = None, label_w: int = 210) -> str:
    """Rows of one or more horizontal bars under one label (e.g. two configurations per layer)."""
    values = [b.value for _, bars in groups for b in bars]
    if not values:
        return empty_chart("No per-layer values", width)
    per_row = max(len(bars) for _, bars in groups)
    row_h = bar_h * per_row + 6
    top = max(max(values), marker.offset if marker else 0.0, 1e-9)
    ticks = nice_ticks(0, top, 6)
    head, foot, plot_w = 10, 30, width - label_w - 60
    to_x = lambda v: label_w + max(v, 0.0) / ticks[-1] * plot_w     # noqa: E731
    y_end = head + row_h * len(groups)
    parts = [_svg_open(width, y_end + foot, f"Per-layer values in {unit}")]
    for t in ticks:
        x = to_x(t)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{head - 4}" y2="{y_end:.1f}" stroke="{GRID}"/>')
        parts.append(_text(x, y_end + 14, fmt_num(t)))
    parts.append(_text(label_w + plot_w / 2, y_end + foot - 3, unit, color=INK))
    if marker is not None:
        x = to_x(marker.offset)
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{head - 6}" y2="{y_end:.1f}" '
                     f'stroke="{marker.color}" stroke-width="1.5" stroke-dasharray="{marker.dash}">'
                     f'<title>{escape(marker.label)}</title></line>')
    for i, (label, bars) in enumerate(groups):   # after the marker: value labels stay readable
        y = head + i * row_h
        short = label if len(label) <= 32 else label[:31] + "…"
        parts.append(_text(label_w - 8, y + row_h / 2 + 4, short, anchor="end", size=11, color=INK,
                           extra=f" font-family='{MONO_STACK}'"))
        for k, b in enumerate(bars):
            by, w = y + 3 + k * bar_h, to_x(b.value) - label_w
            parts.append(f'<rect x="{label_w}" y="{by:.1f}" width="{max(w, 1.0):.1f}" '
                         f'height="{bar_h - 2}" rx="2" fill="{b.color}">'
                         f'<title>{escape(b.tip or f"{b.label}: {b.value:.1f} {unit}")}</title></rect>')
            parts.append(_text(label_w + w + 5, by + bar_h - 3, f"{b.value:.1f}", anchor="start",
                               size=10, color=MUTED, extra=_HALO))
    parts.append("</svg>")
    return "".join(parts)


def bin_edges(values: list[float], width: float, align: float = 0.0) -> tuple[float, ...]:
    """Fixed-width bin edges covering `values`, bin centres on align + k·width (integers stay
    centred when align=0 and width divides 1), with one empty bin of margin on each side."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return ()
    first = math.floor((min(finite) - align) / width + 0.5) - 1
    last = math.floor((max(finite) - align) / width + 0.5) + 1
    return tuple(align + (k - 0.5) * width for k in range(first, last + 2))


def count_bins(values: list[float], edges: tuple[float, ...]) -> tuple[int, ...]:
    """Counts per [edge_i, edge_i+1); values outside the edges are ignored."""
    counts = [0] * max(len(edges) - 1, 0)
    for v in values:
        if not math.isfinite(v) or not edges or v < edges[0] or v >= edges[-1]:
            continue
        lo, hi = 0, len(edges) - 1
        while hi - lo > 1:                      # bisect: edges are sorted
            mid = (lo + hi) // 2
            if v >= edges[mid]:
                lo = mid
            else:
                hi = mid
        counts[lo] += 1
    return tuple(counts)


def signed_hbars(bars: list[Bar], *, unit: str, width: int = 900, bar_h: int = 22,
                 label_w: int = 250) -> str:
    """Ranked horizontal bars around a zero line (gains right, losses left), label on the left."""
    if not bars:
        return empty_chart("Nothing to rank", width)
    reach = max(max(abs(b.value) + b.spread for b in bars), 1e-9)
    ticks = nice_ticks(-reach if any(b.value - b.spread < 0 for b in bars) else 0.0, reach, 6)
    lo, hi = ticks[0], ticks[-1]
    head, foot, plot_w = 8, 30, width - label_w - 70
    to_x = lambda v: label_w + (v - lo) / (hi - lo) * plot_w        # noqa: E731
    y_end = head + bar_h * len(bars)
    parts = [_svg_open(width, y_end + foot, f"Ranked values in {unit}")]
    for t in ticks:
        x = to_x(t)
        stroke = AXIS if t == 0 else GRID
        parts.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{head - 4}" y2="{y_end:.1f}" stroke="{stroke}"/>')
        parts.append(_text(x, y_end + 14, fmt_num(t)))
    parts.append(_text(label_w + plot_w / 2, y_end + foot - 3, unit, color=INK))
    zero = to_x(0.0)
    for i, b in enumerate(bars):
        y = head + i * bar_h
        parts.append(_text(label_w - 8, y + bar_h / 2 + 4, b.label, anchor="end", size=12, color=INK))
        x0, x1 = sorted((zero, to_x(b.value)))
        parts.append(f'<rect x="{x0:.1f}" y="{y + 4:.1f}" width="{max(x1 - x0, 1.5):.1f}" '
                     f'height="{bar_h - 8}" rx="2" fill="{b.color}">'
                     f'<title>{escape(b.tip or f"{b.label}: {b.value:+.2f} {unit}")}</title></rect>')
        if b.spread:
            wl, wr, cy = to_x(b.value - b.spread), to_x(b.value + b.spread), y + bar_h / 2
            parts.append(f'<path d="M{wl:.1f},{cy - 4:.1f}v8M{wl:.1f},{cy:.1f}H{wr:.1f}M{wr:.1f},{cy - 4:.1f}v8" '
                         f'stroke="{INK}" stroke-width="1.2" fill="none"/>')
            x0, x1 = min(x0, wl), max(x1, wr)
        tx, anchor = (x1 + 5, "start") if b.value >= 0 else (x0 - 5, "end")
        parts.append(_text(tx, y + bar_h / 2 + 4, f"{b.value:+.1f}", anchor=anchor, size=11, color=INK))
    parts.append("</svg>")
    return "".join(parts)

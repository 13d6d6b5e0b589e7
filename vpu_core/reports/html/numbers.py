"""Report sections with charts: scale and shift histograms, float-vs-pow2 scales, SQNR.

Histograms are computed here from the raw values of the analysis (every tensor's scales, every
requantization site's shifts) with fixed bins, so two configurations drawn side by side share
the same binning.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from vpu_core.formatting import db_text, samples_text, scale_text
from vpu_core.reports.html import style
from vpu_core.reports.html.html_kit import card, esc
from vpu_core.reports.html.svg_charts import (Bar, RefLine, Series, bin_edges, count_bins, hbars,
                                             histogram, scatter)
from vpu_core.reports.summary_text import empty_weights_reason

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis, PartitionReport

LOG2_BIN = 0.25      # four bins per octave: power-of-two scales fall in the integer-centred bins
RATIO_BIN = 0.05


def log2_scales(a: Analysis, kind: str) -> list[float]:
    """log2 of every scale of every tensor of `kind` (per-channel weights: one per channel)."""
    return [math.log2(s) for t in a.tensors if t.kind == kind for s in t.scales if 0 < s < math.inf]


def shift_values(a: Analysis) -> tuple[list[float], list[float]]:
    """(exact right-shift counts, nearest counts of sites with no exact shift), per channel."""
    exact = [float(n) for s in a.requant if s.exact and s.shifts for n in s.shifts]
    inexact = [float(n) for s in a.requant if not s.exact for n in s.nearest_shifts]
    return exact, inexact


def figure(title: str, note: str, svg: str) -> str:
    note_html = f' <span class="muted">— {esc(note)}</span>' if note else ""
    return f'<figure class="chart"><figcaption>{esc(title)}{note_html}</figcaption>{svg}</figure>'


def histograms_section(a: Analysis, tag: str = "", vpu: bool = True) -> str:
    """The scales' histograms and, when the VPU judges the graph (`vpu`), its requantization
    shifts and what rounding every scale up to 2^k costs (the VPU's own questions)."""
    act, wgt = log2_scales(a, "activation"), log2_scales(a, "weight")
    edges = bin_edges(act + wgt, LOG2_BIN)
    figures = [
        figure("Activation scales", f"{len(act)} tensors, log2(scale)",
               histogram(edges, [Series("activation", count_bins(act, edges), style.ACTIVATION)],
                         x_label="log2(scale)", integer_ticks=True)),
        figure("Weight scales", f"{len(wgt)} channels, log2(scale)",
               histogram(edges, [Series("weight", count_bins(wgt, edges), style.WEIGHT)],
                         x_label="log2(scale)", integer_ticks=True, empty=empty_weights_reason(a.summary))),
        *([figure("Requantization right shifts", "n per output channel, M = 2^-n", shift_chart(a)),
           pow2_cost_figure(a)] if vpu else []),
    ]
    body = f'<div class="grid2">{"".join(figures)}</div>'
    lede = ("Power-of-two scales sit exactly on integer log2 values; anything between integers needs a "
            "multiplier on the hardware." + (" Shift counts come from M = s_in·s_w / s_out per channel." if vpu else ""))
    return card("histograms", "Scales and shifts" if vpu else "Scales", body, tag=tag, lede=lede)


def shift_chart(a: Analysis) -> str:
    exact, inexact = shift_values(a)
    edges = bin_edges(exact + inexact, 1.0)
    series = [Series("exact shift", count_bins(exact, edges), style.VPU)]
    if inexact:
        series.append(Series("no exact shift (nearest n)", count_bins(inexact, edges), style.DANGER))
    reason = empty_weights_reason(a.summary) or "No requantization site: no quantized conv, linear, add or pool."
    return histogram(edges, series, x_label="right-shift count n", integer_ticks=True, empty=reason)


def pow2_cost_figure(a: Analysis) -> str:
    """Float scale vs the power-of-two scale it was rounded up to (VPU quantizer only)."""
    pairs = [(f, p, t.node) for t in a.tensors if t.float_scales
             for f, p in zip(t.float_scales, t.scales) if 0 < f < math.inf and 0 < p < math.inf]
    if not pairs:
        return figure("Float vs power-of-two scale", "",
                      '<p class="muted">This quantizer keeps float scales (no power-of-two rounding): '
                      "its requantization needs a fixed-point multiplier, which the VPU lacks — see the "
                      "<code>pow2_scale</code> rule.</p>")
    points = [(math.log2(f), math.log2(p)) for f, p, _ in pairs]
    tips = [f"{node}: float {f:.4g} → {scale_text(p)} (×{p / f:.2f})" for f, p, node in pairs]
    worst = max(p / f for f, p, _ in pairs)
    mean = sum(p / f for f, p, _ in pairs) / len(pairs)
    svg = scatter(points, x_label="log2(float scale)", y_label="log2(pow2 scale)", color=style.ACTIVATION,
                  ref_lines=(RefLine("same scale", 0.0, style.VPU_DARK),
                             RefLine("2× coarser", 1.0, style.CPU_DARK)),
                  point_titles=tips)
    return figure("Float vs power-of-two scale",
                  f"{len(pairs)} scales rounded up; mean ×{mean:.2f}, worst ×{worst:.2f} coarser", svg)


def sqnr_section(a: Analysis, tag: str = "", part: PartitionReport | None = None, side: str = "VPU") -> str:
    """The end-to-end SQNR and every layer's, each bar coloured by where `part` (the primary
    target's verdict; the VPU's partition when None) runs the op."""
    big = f'<div class="sqnr-big">{esc(db_text(a.sqnr_db))}</div>'
    lede = ("Signal-to-quantization-noise ratio of the quantized model against the float model on a "
            "held-aside data calibration never saw; higher is better (every 6 dB ≈ one bit).")
    where = (f"End to end, at the model output, on {samples_text(a.accuracy_samples)}."
             if a.sqnr_db is not None or not a.sqnr_reason else f"Not meaningful: {a.sqnr_reason}.")
    body = big + f'<p class="muted">{esc(where)}</p>'
    bars = layer_bars(a, part, side)
    if bars:
        marker = None
        if a.sqnr_db is not None and math.isfinite(a.sqnr_db) and a.sqnr_db > 0:
            marker = RefLine(f"end to end {a.sqnr_db:.1f} dB", a.sqnr_db, style.DANGER)
        legend = (f'<div class="legend"><span><span class="sw" style="background:{style.VPU}"></span>'
                  f'op on the {esc(side)}</span><span><span class="sw" style="background:{style.CPU}"></span>'
                  f'op on the CPU</span><span><span class="edge"></span>end-to-end SQNR</span></div>')
        body += (f"<h3>Per layer</h3>{legend}<div class=\"scroll\">"
                 f"{hbars(bars, unit='SQNR (dB)', marker=marker)}</div>")
    else:
        body += '<p class="muted">No per-layer SQNR was measured.</p>'
    return card("sqnr", "Accuracy (SQNR)", body, lede=lede, tag=tag)


def layer_bars(a: Analysis, part: PartitionReport | None = None, side: str = "VPU") -> list[Bar]:
    assignment = (part or a.partition).assignment
    bars = []
    for node, db in a.layer_sqnr.items():
        if db is None or not math.isfinite(db):
            continue
        sub = assignment.get(node)
        on_vpu = isinstance(sub, int) and not isinstance(sub, bool)
        info = a.nodes.get(node)
        where = f" ({info.source})" if info is not None and info.source else ""
        bars.append(Bar(node, float(db), style.VPU if on_vpu else style.CPU,
                        tip=f"{node}{where}: {db:.1f} dB on the {side if on_vpu else 'CPU'}"))
    return bars

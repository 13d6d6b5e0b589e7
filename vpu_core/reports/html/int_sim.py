"""The report's integer-simulation section (#int_sim): what the VPU would compute, layer by layer."""
from __future__ import annotations

from typing import TYPE_CHECKING

from vpu_core.formatting import db_text, percent_text
from vpu_core.reports.html import style
from vpu_core.reports.html.html_kit import card, code, esc, kpi, pill, table
from vpu_core.reports.html.numbers import figure
from vpu_core.reports.html.svg_charts import Series, histogram

if TYPE_CHECKING:
    from vpu_core.inspection import Attached
    from vpu_core.intsim.results import IntSimLayer, IntSimReport

ROUNDING_TEXT = {"round_half_up": "round half up: (acc + 2^(n−1)) >> n",
                 "round_half_even": "round half to even (as torch.round in the Q/DQ graph)",
                 "truncate": "truncate: acc >> n (floor)"}


def int_sim_section(a: Attached, tag: str = "") -> str:
    r = a.int_sim
    if r is None:
        return ""
    lede = ("The Q/DQ graph is a float emulation; the VPU computes in integers: int8 × int8 products "
            f"in a {r.accumulator_bits}-bit accumulator, the int32 bias, a right shift by n "
            f"({esc(ROUNDING_TEXT.get(r.rounding, r.rounding))}), saturation to int8, relu as a clamp. "
            "Each VPU layer below is fed the Q/DQ graph's own int8 inputs and its int8 output is "
            "compared with the Q/DQ graph's, in LSBs.")
    if r.refused:
        return card("int_sim", "Integer simulation", f'<p><span class="pill fail">refused</span> '
                    f"{esc(r.refused)}</p>", lede=lede, tag=tag)
    elements = sum(la.elements for la in r.layers)
    differing = sum(la.mismatch_frac * la.elements for la in r.layers)
    tiles = "".join([
        kpi("SQNR integer vs float", esc(db_text(r.sqnr_db)), f"Q/DQ graph: {esc(db_text(r.qdq_sqnr_db))}"),
        kpi("Max difference", f"{r.max_abs_lsb} LSB", "any layer vs the Q/DQ graph",
            "good" if r.max_abs_lsb <= 1 else "bad"),
        kpi("Elements that differ", percent_text(differing / elements) if elements else "—",
            f"of {elements:,} layer outputs"),
        kpi("Accumulator saturations", str(r.saturated), f"{r.accumulator_bits}-bit accumulator",
            "bad" if r.saturated else "good"),
        kpi("Integer vs Q/DQ output", "identical" if r.outputs_identical else esc(db_text(r.sqnr_vs_qdq_db)),
            "bit for bit" if r.outputs_identical else "SQNR end to end"),
    ])
    same = sum(n for la in r.layers for d, n in la.diff_hist if d == 0)
    chart = figure("Elements that differ from the Q/DQ graph",
                   f"all VPU layers, integer − Q/DQ in LSB; {same:,} elements identical", _diff_chart(r))
    rows = [_row(la) for la in r.layers]
    headers = ["layer", "op", "max |Δ| LSB", "elements differing", "drift max LSB", "acc. saturations",
               "int8 clipped", "note"]
    body = (f'<div class="kpis">{tiles}</div>{chart}'
            + table(headers, rows, numeric={2, 3, 4, 5, 6})
            + _notes(r))
    return card("int_sim", "Integer simulation", body, lede=lede, tag=tag)


def _row(la: IntSimLayer) -> list[str]:
    note = []
    if "non_pow2_window" in la.flags:
        note.append(pill(f"window {la.window} ≠ 2^k", "fail"))
    elif la.window:
        note.append(pill(f"window {la.window} = 2^k", "ok"))
    if "float" in la.flags:
        note.append(pill("ran in float", "cpu"))
    lsb = f'<b style="color:{style.DANGER}">{la.max_abs_lsb}</b>' if la.max_abs_lsb > 1 else str(la.max_abs_lsb)
    return [code(la.node), esc(la.op), lsb, percent_text(la.mismatch_frac), str(la.drift_max_lsb),
            str(la.saturated), str(la.clipped), " ".join(note)]


def _diff_chart(r: IntSimReport) -> str:
    counts: dict[int, int] = {}
    for la in r.layers:
        for diff, n in la.diff_hist:
            if diff:                              # identical elements (almost all) are counted apart
                counts[diff] = counts.get(diff, 0) + n
    if not counts:
        return '<p class="muted">Every element of every VPU layer equals the Q/DQ graph.</p>'
    lo, hi = min(min(counts), 0) - 1, max(max(counts), 0) + 1
    edges = tuple(k - 0.5 for k in range(lo, hi + 2))
    series = [Series("elements", tuple(counts.get(k, 0) for k in range(lo, hi + 1)), style.VPU)]
    return histogram(edges, series, x_label="integer − Q/DQ (LSB)", integer_ticks=True)


def _notes(r: IntSimReport) -> str:
    notes = ["“drift” is the free-running integer pipeline at the same point: differences of "
             "earlier layers included."]
    if r.rounding != "round_half_even":
        notes.append(f"Rounding {r.rounding}: the Q/DQ graph rounds half to even, so exact .5 LSB "
                     "ties differ by one LSB.")
    if any("non_pow2_window" in la.flags for la in r.layers):
        rule = (f"multiplied by round(2^{r.reciprocal_bits} / K) and shifted" if r.avg_pool_divisor ==
                "reciprocal" else "shifted by round(log2 K)")
        notes.append(f"Average pools over K ≠ 2^k values cannot divide by a shift: {rule}.")
    if r.float_ops:
        notes.append("No integer kernel (ran in float as the graph says): "
                     + ", ".join(code(n) for n in r.float_ops) + ".")
    return "".join(f'<p class="muted small">{n}</p>' for n in notes)

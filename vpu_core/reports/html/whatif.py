"""Report sections of the what-if analyses: constraint ablation, op-list candidates, economics.

#whatif (always): which kernel to add next (op candidates) and whether each VPU subgraph pays for
its boundary traffic. #ablation (when the report was made with an ablation): what each
constraint costs, as a ranked chart and a table. Sentences come from vpu_core.reports.whatif_text.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from vpu_core.formatting import human_bytes
from vpu_core.reports.html import style
from vpu_core.reports.html.html_kit import card, code, esc, pill, table
from vpu_core.reports.html.numbers import figure
from vpu_core.reports.html.svg_charts import Bar, signed_hbars
from vpu_core.reports.whatif_text import (NOISE_DB, ablation_headline, candidate_name, constraint_name, db,
                                          delta_text, economics_sentence, human_macs, noise_note,
                                          signed_bytes)

if TYPE_CHECKING:
    from vpu_core.inspection import Attached
    from vpu_core.whatif.results import AblationReport


def whatif_section(a: Attached, tag: str = "") -> str:
    """The op-list candidates and the partition economics attached to the analysis."""
    body = "<h3>Which kernel should the next chip add first?</h3>" + _candidates(a)
    if a.timing is not None:    # the run's table answers it in time, per subgraph: one table, not two
        body += ("<h3>Does each VPU subgraph pay for its transfers?</h3><p>Answered in time, with this run's "
                 'measured CPU side: <a href="#runtime">Run on this CPU ▸ Does each VPU subgraph pay, in '
                 "time?</a></p>")
    else:
        body += "<h3>Does each VPU subgraph pay for its transfers?</h3>" + _economics(a)
    return card("whatif", "Partition what-if", body, tag=tag, lede=(
        "Each op type that falls back to the CPU, added alone to the VPU op list, and each per-op "
        "limit an op breaks, relaxed alone (the graph is partitioned again, nothing is "
        "re-quantized; a tensor the added op sends back leaves the VPU as int8), ranked by the "
        "boundary bytes it saves. Below, every VPU subgraph's boundary "
        "bytes against the multiply-accumulates it keeps on the VPU."))


def _candidates(a: Attached) -> str:
    if not a.op_candidates:
        return '<p class="muted">No op falls back to the CPU for lack of a kernel or over a limit.</p>'
    rows = [[code(candidate_name(c)), esc(c.nodes_moved), esc(c.subgraphs_merged), esc(c.new_subgraphs),
             esc(signed_bytes(c.bytes_saved)), esc(c.cpu_nodes_left)] for c in a.op_candidates]
    return table(["Op added to the VPU list / limit relaxed", "Nodes moved", "Subgraphs merged", "New islands",
                  "Bytes saved", "CPU nodes left"], rows, numeric={1, 2, 3, 4, 5})


def _economics(a: Attached) -> str:
    e = a.economics
    if e is None or not e.subgraphs:
        return '<p class="muted">No VPU subgraph.</p>'
    rows, classes = [], []
    for s in e.subgraphs:
        ratio = "—" if s.bytes_per_mac is None else f"{s.bytes_per_mac:.3g}"
        verdict = pill("pays", "ok") if s.pays else pill("transfer outweighs work", "fail")
        rows.append([pill(f"sg {s.subgraph}", "vpu"), esc(s.ops), esc(human_macs(s.macs)),
                     esc(human_bytes(s.bytes_in)), esc(human_bytes(s.bytes_out)), esc(ratio), verdict])
        classes.append("" if s.pays else "violation")
    notes = "".join(f"<li>{esc(economics_sentence(s, e.break_even_bytes_per_mac))}</li>" for s in e.flagged)
    flagged = f'<ul class="small">{notes}</ul>' if notes else \
        '<p class="muted">Every VPU subgraph keeps enough work on the VPU to pay for its transfers.</p>'
    assumption = (f'<div class="reason"><b>Assumption (hardware profile):</b> a subgraph pays when it moves at '
                  f"most {e.break_even_bytes_per_mac:g} bytes per MAC it keeps on the VPU "
                  f"(<code>[economics] break_even_bytes_per_mac</code>).</div>")
    return assumption + flagged + table(
        ["Subgraph", "Ops", "Work", "In", "Out", "Bytes / MAC", "Verdict"], rows,
        numeric={1, 2, 3, 4, 5}, row_classes=classes)


def ablation_section(r: AblationReport) -> str:
    ranked = r.ranked()
    bars = [Bar(constraint_name(e), e.delta_db, _colour(e), tip=ablation_headline(e),
                spread=e.delta_se_db or 0.0) for e in ranked]
    chart = figure("What each constraint costs", "SQNR gained by relaxing it alone, dB",
                   signed_hbars(bars, unit="dB gained when relaxed (= what the constraint costs)"))
    headlines = "".join(f"<li>{esc(ablation_headline(e))}</li>" for e in ranked)
    rows = []
    for e in ranked:
        layers = ", ".join(f"{g.node} {g.delta_db:+.1f}" for g in e.layers[:3]) or "—"
        rows.append([esc(e.number), code(e.constraint), esc(db(e.sqnr_db)), esc(delta_text(e)), esc(e.violations),
                     esc(f"{e.subgraphs} / {e.cpu_nodes}"), f'<span class="small">{esc(layers)}</span>',
                     f'<span class="small muted">{esc(e.reason)}</span>'])
    body = (f'<div class="verdict">{esc("; ".join(ablation_headline(e) for e in ranked[:2]))}.</div>'
            + chart + f'<ul class="small">{headlines}</ul>'
            + table(["#", "Constraint relaxed", "SQNR", "Change", "Violations", "Subgraphs / CPU",
                     "Layers that gain most (dB)", "Why not run"], rows, numeric={2, 3, 4}))
    lede = (f"Each constraint 2–8 relaxed alone in the hardware profile and the model quantized again "
            f"from the same export and calibration data (baseline SQNR {db(r.baseline_sqnr_db)}, "
            f"{r.baseline_violations} violations; {r.seconds:.1f} s). Violations count the baseline "
            "profile's rules broken by the relaxed graph. " + (
                "Whiskers: ± one jackknife standard error over the held-out samples; a change inside two "
                "of them is rounding luck, not the constraint." if r.has_noise_estimate else
                noise_note(r).capitalize() + "."))
    return card("ablation", "What each constraint costs", body, lede=esc(lede))


def _colour(e) -> str:
    if not e.measured or abs(e.delta_db) < NOISE_DB or e.within_noise:
        return style.FLOAT
    return style.DANGER if e.delta_db > 0 else style.VPU

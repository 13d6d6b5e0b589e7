"""The report's runtime section (#runtime): the program run on this CPU, and what the VPU would save.

A demo ends here with numbers a manager reads: how fast the lowered program runs on this CPU
(median and spread), whether it still computes the same (SQNR against the float model and the
Q/DQ graph), which ops take the time, and for each VPU subgraph whether offloading it pays, with
the assumptions beside every estimate. Sentences come from vpu_core.reports.timing.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from vpu_core.formatting import db_text, human_bytes, node_label, time_text
from vpu_core.reports.html import style
from vpu_core.reports.html.html_kit import card, code, esc, kpi, pill, table
from vpu_core.reports.html.numbers import figure
from vpu_core.reports.html.svg_charts import Bar, hbars
from vpu_core.reports.timing import assumptions_text, verdict

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.inspection import Attached
    from vpu_core.targets.results import RuntimeReport
    from vpu_core.timing import SplitTiming

TOP = 12
LEDE = ("The converted graph lowered to an ExecuTorch program for XNNPACK and run here with "
        "ExecuTorch's runtime: latency as a caller sees it, outputs against the float model and the "
        "Q/DQ graph on the held-aside batch, and per-op times from ETDump mapped back to graph nodes.")


def runtime_section(a: Analysis, attached: Attached, tag: str = "") -> str:
    r = attached.runtime
    assert r is not None, "the report adds this section only with a run"
    if r.refused or r.latency is None:
        return card("runtime", "Run on this CPU", f'<p><span class="pill fail">refused</span> {esc(r.refused or "")}</p>',
                    lede=LEDE, tag=tag)
    t = attached.timing
    body = (_headline(r, t) + f'<div class="kpis">{_tiles(r)}</div>' + _top_ops(a, r)
            + (_economics(t) if t is not None else "") + _footnote(r))
    return card("runtime", "Run on this CPU", body, lede=LEDE, tag=tag)


def _headline(r: RuntimeReport, t: SplitTiming | None) -> str:
    assert r.latency is not None
    same = ("computes exactly what the Q/DQ graph computes" if r.outputs_identical else
            f"stays within {db_text(r.sqnr_vs_qdq_db)} of the Q/DQ graph")
    text = f"Runs in {time_text(r.latency.median_ms * 1e3)} on this CPU and {same}"
    if t is not None and t.subgraphs:
        saving = t.all_cpu_ops_us - t.split_us
        text += (f"; with the VPU as assumed, the split would take {time_text(t.split_us)} "
                 + (f"(saves {time_text(saving)})" if saving >= 0 else f"(costs {time_text(-saving)} more)"))
    return f'<div class="verdict">{esc(text)}.</div>'


def _tiles(r: RuntimeReport) -> str:
    lat = r.latency
    assert lat is not None
    return "".join([
        kpi("Latency (median)", esc(time_text(lat.median_ms * 1e3)),
            esc(f"p10 {time_text(lat.p10_ms * 1e3)} · p90 {time_text(lat.p90_ms * 1e3)} · {lat.runs} runs")),
        kpi("SQNR vs float", esc(db_text(r.sqnr_vs_float_db)) if r.sqnr_vs_float_db is not None else "n/a",
            esc(r.sqnr_vs_float_reason or "the float model, same batch")),
        kpi("Vs the Q/DQ graph", "identical" if r.outputs_identical else esc(db_text(r.sqnr_vs_qdq_db)),
            "bit for bit" if r.outputs_identical else esc(r.sqnr_vs_qdq_reason or "SQNR end to end"),
            "good" if r.outputs_identical or (r.sqnr_vs_qdq_db or 0) >= 30 else "bad"),
        kpi("XNNPACK delegates", str(len(r.delegates)),
            esc(f"{sum(d.ops for d in r.delegates)} operators; "
                f"{len(r.portable_ops)} portable kernel type(s) outside")),
    ])


def _top_ops(a: Analysis, r: RuntimeReport) -> str:
    ops = r.slowest(TOP)
    if not ops:
        return '<p class="muted">No per-op events were recorded.</p>'
    where = a.partition.assignment
    labels = [_label(a, o.node) for o in ops]
    labels = [f"{label} ({o.node})" if labels.count(label) > 1 else label for label, o in zip(labels, ops)]
    bars = [Bar(label, o.total_us, style.CPU if where.get(o.node) == "cpu" else style.VPU,
                tip=", ".join(o.kernels)) for label, o in zip(labels, ops)]
    chart = figure("Where the time goes", f"the {len(ops)} slowest nodes, µs per inference (green: on the VPU "
                   "in the partition, orange: CPU fallback)", hbars(bars, unit="µs per inference"))
    rows = [[esc(label), esc(time_text(o.us)), esc(time_text(o.overhead_us)),
             "portable kernel" if o.delegate is None else f"delegate {o.delegate}",
             f'<span class="small">{esc(", ".join(o.kernels))}</span>'] for label, o in zip(labels, ops)]
    return chart + table(["node", "measured", "delegate overhead share", "ran in", "runtime events"], rows,
                         numeric={1, 2})


def _economics(t: SplitTiming) -> str:
    if not t.subgraphs:
        return '<p class="muted">No VPU subgraph: everything runs on the CPU.</p>'
    rows, classes = [], []
    for s in t.subgraphs:
        rows.append([pill(f"sg {s.subgraph}", "vpu"), esc(s.ops), esc(time_text(s.vpu_us)),
                     esc(f"{time_text(s.transfer_us)} ({s.transfers} × {human_bytes(s.transfer_bytes)})"),
                     esc(time_text(s.total_us)), esc(time_text(s.cpu_us)),
                     pill(verdict(s), "ok" if s.pays else "fail")])
        classes.append("" if s.pays else "violation")
    total = ["<b>end to end</b>", "", "", "", f"<b>{esc(time_text(t.split_us))}</b>",
             f"<b>{esc(time_text(t.all_cpu_ops_us))}</b>",
             esc(f"split incl. {t.cpu_fallback_ops} CPU fallback ops measured {time_text(t.cpu_fallback_us)}")]
    assumption = (f'<div class="reason"><b>Assumptions:</b> {esc(assumptions_text(t.assumptions, t.profile))}. '
                  f"<b>Measured:</b> the CPU side, on this machine ({esc(t.runtime)}); all on the CPU: "
                  f"{esc(time_text(t.all_cpu_ops_us))} per op, {esc(time_text(t.all_cpu_latency_us))} "
                  "wall-clock median.</div>")
    return ("<h3>Does each VPU subgraph pay, in time?</h3>" + assumption
            + table(["Subgraph", "Ops", "VPU (est.)", "Transfers (est.)", "Offloaded", "CPU (measured)",
                     "Verdict"], rows, numeric={1, 2, 3, 4, 5}, row_classes=classes, total=total))


def _footnote(r: RuntimeReport) -> str:
    parts = [f"{esc(r.runtime)}, {r.threads} threads; lowered: {esc(r.graph_kind)} "
             f"({esc(human_bytes(r.program_bytes))}); per-op times: ETDump over {r.profiled_runs} runs, "
             "the middle half averaged; XNNPACK logs whole µs, so an operator under 1 µs reads 0 and its "
             "delegate's remaining time is shared by its nodes."]
    if r.portable_ops:
        parts.append("Outside XNNPACK: " + ", ".join(code(k) for k in r.portable_ops) + ".")
    return "".join(f'<p class="muted small">{p}</p>' for p in parts)


def _label(a: Analysis, node: str) -> str:
    info = a.nodes.get(node)
    return node_label(info) if info is not None else node

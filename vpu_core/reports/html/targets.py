"""The report's targets: the primary target's summary (the opening a reader sees first, when the
user ships to something other than the VPU) and one verdict per target judged — partitions, the
ops on the CPU with the compiler's own reasons, the time (measured on this CPU or the compiler's
estimate, labelled which), the ops that cost most, SRAM and flash."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

from vpu_core.formatting import db_text, human_bytes, samples_text
from vpu_core.reports.html.html_kit import card, code, esc, kpi, pill, table
from vpu_core.reports.summary_text import CAUSE_WORDS, share_text
from vpu_core.reports.whatif_text import human_macs
from vpu_core.reports.headline import TargetHeadline, headline_of

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.targets.results import RuntimeReport, TargetResult

TOP_OPS = 8


def primary_summary_section(a: Analysis, primary: TargetResult, run: RuntimeReport | None = None) -> str:
    """#summary for a primary target other than the VPU: its verdict in tiles and one sentence."""
    h = headline_of(primary, a)
    tiles = "".join([*_verdict_tiles(h, primary, run),
                     kpi("SQNR end to end", esc(db_text(a.sqnr_db)),
                         f"float vs quantized output · {esc(samples_text(a.accuracy_samples))}")])
    verdict = f'<p class="{"okline" if h.ok else "warnline"}">{esc(h.sentence())}</p>'
    from vpu_core.reports.html.sections import poor_sqnr_html

    return card("summary", "Summary", f'<div class="kpis">{tiles}</div>{verdict}{poor_sqnr_html(a)}', lede=(
        f"What happens to this model when it is quantized ({esc(a.quantizer)} quantizer) and compiled "
        f"for {esc(h.title)}, at a glance."))


def targets_section(a: Analysis, results: Mapping[str, TargetResult],
                    runs: Mapping[str, RuntimeReport] | None = None) -> str:
    """#targets: every target's verdict, the primary first."""
    body = "".join(_target_body(a, r, (runs or {}).get(name)) for name, r in results.items())
    return card("targets", "Targets", body, lede=(
        "Each target's own judgement of the quantized graph: what its partitioner and compiler take, "
        "what stays on the CPU and why, in the compiler's words, and what it costs."))


def _verdict_tiles(h: TargetHeadline, r: TargetResult, run: RuntimeReport | None) -> list[str]:
    macs = share_text(h.mac_share) if h.macs_total else "—"
    tiles = [kpi(f"MACs on {h.on_side}", esc(macs),
                 f"of {esc(human_macs(h.macs_total))}" if h.macs_total else "no multiply-accumulate",
                 "vpu" if h.ok else ("cpu" if h.mac_share < 0.5 else "")),
             kpi("Partitions", str(h.partitions), f"delegated to {esc(h.on_side)}", "vpu"),
             kpi("CPU ops", str(h.cpu_ops), esc(_causes(h)) or "none fall back", "cpu" if h.cpu_ops else "good")]
    if h.removed_ops:
        tiles.append(kpi("Removed", str(h.removed_ops), "folded away while lowering (run nowhere)"))
    if h.rule_violations:
        tiles.append(kpi("Rule violations", str(h.rule_violations), "the VPU's eight constraints", "bad"))
    time = _time(r, run)
    if time is not None:
        tiles.append(kpi("Time", esc(time[0]), esc(time[1])))
    memory = _memory(r.estimate)
    if memory:
        tiles.append(kpi("SRAM / flash", esc(memory), "the compiler's figures"))
    return tiles


def _target_body(a: Analysis, r: TargetResult, run: RuntimeReport | None) -> str:
    h = headline_of(r, a)
    v = r.verdict
    parts = [f"<h3>{esc(r.title)}</h3>", f'<div class="kpis">{"".join(_verdict_tiles(h, r, run))}</div>',
             f'<p class="{"okline" if h.ok else "warnline"}">{esc(h.sentence())}</p>']
    if v.fallback_nodes:
        rows = [[code(c.node), esc(a.nodes[c.node].module if c.node in a.nodes else ""), code(c.op),
                 pill(CAUSE_WORDS.get(c.cause, c.cause), "cpu"), esc(c.reason)] for c in v.fallback_nodes]
        parts.append(f"<h4>On the CPU ({len(rows)})</h4>" + table(["Node", "Module", "Op", "Cause", "Why"], rows))
    if v.removed_nodes:
        parts.append(f"<h4>Removed while lowering ({len(v.removed_nodes)})</h4><p class='muted'>"
                     + ", ".join(code(c.node) for c in v.removed_nodes) + "</p>")
    top = _top_ops(r)
    if top:
        parts.append(f"<h4>Ops that cost most ({esc(r.estimate.label if r.estimate else '')})</h4>" + top)
    return "".join(parts)


def _top_ops(r: TargetResult) -> str:
    e = r.estimate
    if e is None:
        return ""
    per = sorted(e.per_node().items(), key=lambda kv: -kv[1])[:TOP_OPS]
    total = e.total or 1.0
    unit = "µs" if e.unit == "us" else e.unit
    rows = [[code(n), esc(f"{value:,.0f} {unit}" if unit == "cycles" else f"{value:.4g} {unit}"),
             esc(f"{100 * value / total:.1f} %")] for n, value in per if value > 0]
    return table(["Node", "Cost", "Share"], rows, numeric={1, 2}) if rows else ""


def _time(r: TargetResult, run: RuntimeReport | None) -> tuple[str, str] | None:
    """(value, what it is): measured on this CPU when the target ran here, else its estimate."""
    if run is not None and run.latency is not None and not run.refused:
        return f"{run.latency.median_ms:.3g} ms", f"measured here ({run.runtime}), median of {run.latency.runs}"
    e: Any = r.estimate
    if e is None:
        return None
    if hasattr(e, "inference_ms"):
        return f"{e.inference_ms:.3g} ms", f"estimate: {e.label}"
    if e.unit == "us":
        return f"{e.total:.4g} µs", f"estimate: {e.label}"
    return f"{e.total:,.0f} {e.unit}", f"estimate: {e.label}"


def _memory(e: Any) -> str:
    if e is None or not hasattr(e, "sram_bytes"):
        return ""
    return f"{human_bytes(e.sram_bytes)} / {human_bytes(getattr(e, 'flash_bytes', 0))}"


def _causes(h: TargetHeadline) -> str:
    return ", ".join(f"{n} {CAUSE_WORDS.get(c, c)}" for c, n in h.cpu_causes)

"""`check --format text`: reads like a linter.

One line per violation grouped by rule, then the rule summary, the partition summary table,
the shift summary and the timings.
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Mapping

from vpu_core.analysis.results import Analysis, PartitionReport
from vpu_core.formatting import human_bytes, quantizer_label, samples_text
from vpu_core.inspection import NOTHING_ATTACHED, Attached
from vpu_core.reports.summary_text import headline, no_weighted_op_sentence

if TYPE_CHECKING:
    from vpu_core.analysis.results import NodeInfo
    from vpu_core.targets.results import RuntimeReport, TargetResult


def analysis_to_text(a: Analysis, attached: Attached = NOTHING_ATTACHED) -> str:
    batch = "dynamic batch" if a.dynamic_batch else "static batch"
    who = quantizer_label(a) if a.already_quantized else a.quantizer
    lines = [f"{a.model} · quantizer {who} · {batch} · profile {a.partition.profile}"]
    if a.summary is not None:
        lines.append(headline(a.summary))
    lines.append("")
    if a.notes:
        lines += [f"Notes ({len(a.notes)}):", *(f"  ! {n.message}" for n in a.notes), ""]
    lines += _violation_lines(a)
    lines += ["", *_rule_table(a), "", *partition_lines(a.partition)]
    lines += _whatif_lines(attached)
    if attached.delegation is not None:
        lines += ["", *partition_lines(attached.delegation, title="Real XNNPACK delegation (ExecuTorch)")]
    lines += ["", *_shift_lines(a), ""]
    sqnr = f"not meaningful ({a.sqnr_reason or 'no float reference'})" if a.sqnr_db is None \
        else f"{a.sqnr_db:.1f} dB"
    lines.append(f"SQNR (float vs quantized, {samples_text(a.accuracy_samples)} held aside): {sqnr}")
    if attached.int_sim is not None:
        from vpu_core.reports.int_sim import int_sim_lines

        lines += int_sim_lines(attached.int_sim)
    if attached.runtime is not None:
        from vpu_core.reports.runtime import runtime_lines

        lines += runtime_lines(attached.runtime)
    if attached.timing is not None:
        from vpu_core.reports.timing import timing_lines

        lines += timing_lines(attached.timing)
    t = a.timings_s
    lines.append("Timings: " + ", ".join(f"{k} {t.get(k, 0.0):.2f}s"
                                          for k in ("export", "import", "prepare", "calibrate", "convert",
                                                    "analyze", "sqnr")))
    total = len(a.violations)
    warning = no_weighted_op_sentence(a.summary)
    lines.append(f"{total} violation{'s' if total != 1 else ''} in "
                 f"{sum(1 for r in a.rules if r.violations)} rule(s)." + (f" {warning}" if warning else ""))
    return "\n".join(lines)


def target_text(results: Mapping[str, TargetResult], runs: Mapping[str, RuntimeReport] | None = None,
                nodes: Mapping[str, NodeInfo] | None = None) -> str:
    """The verdict and estimate of every target but the VPU and XNNPACK (those two are above:
    the partition and the real XNNPACK delegation), and each one's run with `check --run`."""
    from vpu_core.reports.json_report import target_split
    from vpu_core.reports.runtime import runtime_lines

    lines = []
    for r in results.values():
        if r.target in ("vpu", "xnnpack"):
            continue
        lines += ["", *partition_lines(r.verdict, title=f"Target {r.title}", unit="partition")]
        own = getattr(r.estimate, "text_lines", None)
        if callable(own):
            lines += own()
        elif r.estimate is not None:
            lines.append(f"  Estimate: {r.estimate.total:.4g} {r.estimate.unit} ({r.estimate.label})")
        run = (runs or {}).get(r.target)
        if run is not None:
            split = target_split(r, run, nodes or {})
            lines += split.text_lines() if split is not None else _target_run_lines(run, runtime_lines)
    return "\n".join(lines)


def _target_run_lines(run: RuntimeReport, runtime_lines) -> list[str]:
    """A target's run: refused, numerics without a latency (the TOSA reference model), or a run."""
    from vpu_core.formatting import db_text, percent_text

    if run.refused or run.latency is not None:
        return ["  " + line for line in runtime_lines(run)]

    def db(value: float | None, reason: str) -> str:
        return db_text(value) if value is not None else f"n/a ({reason})"

    line = (f"  Run here ({run.runtime}): SQNR vs float {db(run.sqnr_vs_float_db, run.sqnr_vs_float_reason)} · "
            f"vs the Q/DQ graph {db(run.sqnr_vs_qdq_db, run.sqnr_vs_qdq_reason)}")
    if run.max_lsb_diff is not None:
        line += (f"; partitions' integer outputs: max {run.max_lsb_diff} LSB, "
                 f"{percent_text(run.differing_share or 0.0)} of the elements differ")
    return [line]


def _whatif_lines(attached: Attached) -> list[str]:
    from vpu_core.reports.whatif_text import economics_lines, op_candidate_lines

    economics = economics_lines(attached.economics)
    return ["", *op_candidate_lines(attached.op_candidates), *(["", *economics] if economics else [])]


def _violation_lines(a: Analysis) -> list[str]:
    lines = []
    for r in a.rules:
        hits = [v for v in a.violations if v.rule == r.rule.id]
        if not hits:
            continue
        lines.append(f"{r.rule.id}: {r.rule.title} ({len(hits)})")
        lines += [f"  {v.node}: {v.message}" for v in hits]
    return lines or ["No hardware-rule violations."]


def _rule_table(a: Analysis) -> list[str]:
    lines = ["Rules:"]
    if a.partition_rule is not None:     # constraint 1: enforced by the partition, counted in CPU ops
        rule, n = a.partition_rule, len(a.partition.cpu_nodes)
        lines.append(f"  [{'cpu ' if n else 'ok  '}] {rule.constraint} {rule.id:<30} {n:>4}  "
                     f"{rule.title} ({n} op{'s' if n != 1 else ''} on the CPU)")
    for r in a.rules:
        mark = "off " if not r.enabled else ("FAIL" if r.violations else "ok  ")
        lines.append(f"  [{mark}] {r.rule.constraint} {r.rule.id:<30} {r.violations:>4}  {r.rule.title}")
    return lines


def partition_lines(p: PartitionReport, title: str = "Partition", unit: str = "VPU subgraph") -> list[str]:
    lines = [f"{title}: {len(p.subgraphs)} {unit}(s), {len(p.cpu_nodes)} CPU node(s), "
             f"{len(p.boundaries)} boundary edge(s) moving {human_bytes(p.transfer_bytes)}"]
    for s in p.subgraphs:
        lines.append(f"  subgraph {s.id:<3} {len(s.nodes):>4} nodes  {_preview(s.nodes)}")
    if p.cpu_nodes:
        lines.append("  CPU fallback:")
        width = max(len(c.node) for c in p.cpu_nodes)
        cause = max(len(c.cause) for c in p.cpu_nodes) + 2
        lines += [f"    {c.node:<{width}}  {'[' + c.cause + ']':<{cause}}  {c.reason}" for c in p.cpu_nodes]
    if p.boundaries:
        lines.append("  Boundaries:")
        for b in p.boundaries:
            lines.append(f"    {b.direction}  {b.src} -> {b.dst}  {human_bytes(b.bytes)}"
                         f"{'  ' + b.dtype + str(list(b.shape)) if b.dtype else ''}")
    return lines


def _preview(nodes: tuple[str, ...], limit: int = 4) -> str:
    head = ", ".join(nodes[:limit])
    return head + (f", … (+{len(nodes) - limit})" if len(nodes) > limit else "")


def _shift_lines(a: Analysis) -> list[str]:
    if not a.requant:
        return ["Requantization: no requantization sites."]
    shifts = [n for s in a.requant if s.shifts for n in s.shifts]
    inexact = [s.node for s in a.requant if not s.exact]
    out = [s.node for s in a.requant if s.out_of_range]
    lines = [f"Requantization: {len(a.requant)} site(s), {len(inexact)} without an exact shift, "
             f"{len(out)} out of range"]
    if shifts:
        counts = Counter(shifts)
        lines.append(f"  shift n range {min(shifts)}..{max(shifts)}; histogram: "
                     + ", ".join(f"{n}:{c}" for n, c in sorted(counts.items())))
    if inexact:
        lines.append("  not a power of two: " + _preview(tuple(inexact), 6))
    if out:
        lines.append("  out of range: " + _preview(tuple(out), 6))
    return lines

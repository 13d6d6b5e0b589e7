"""`check --format text`: reads like a linter.

The pieces `check` composes (vpu_core.reports.check_text puts the primary target first): the
VPU's sections (one line per violation grouped by rule, the rule table, its partition, the
what-if, the shifts), any target's verdict section, the accuracy and the timings.
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Mapping

from vpu_core.analysis.results import Analysis, PartitionReport
from vpu_core.formatting import human_bytes, quantizer_label, samples_text
from vpu_core.inspection import NOTHING_ATTACHED, Attached
from vpu_core.reports.summary_text import headline, no_weighted_op_sentence, poor_sqnr_sentence

if TYPE_CHECKING:
    from vpu_core.analysis.results import NodeInfo
    from vpu_core.targets.results import RuntimeReport, TargetResult


def analysis_to_text(a: Analysis, attached: Attached = NOTHING_ATTACHED) -> str:
    """The analysis as the VPU judges it (the VPU primary, no other target): header, headline,
    notes, the VPU's sections, accuracy and timings, the violation count."""
    lines = [header_line(a, "VPU", with_profile=True)]
    if a.summary is not None:
        lines.append(headline(a.summary))
    lines += ["", *notes_lines(a), *vpu_lines(a, attached), "", *accuracy_lines(a, attached)]
    lines.append(violation_count_line(a))
    return "\n".join(lines)


def header_line(a: Analysis, target: str, with_profile: bool) -> str:
    """"resnet8 · target Ethos-U55-128 · quantizer ethos-u · static batch" (and the VPU's profile
    when the VPU judges it)."""
    batch = "dynamic batch" if a.dynamic_batch else "static batch"
    who = quantizer_label(a) if a.already_quantized else a.quantizer
    profile = f" · profile {a.partition.profile}" if with_profile else ""
    return f"{a.model} · target {target} · quantizer {who} · {batch}{profile}"


def notes_lines(a: Analysis) -> list[str]:
    return [f"Notes ({len(a.notes)}):", *(f"  ! {n.message}" for n in a.notes), ""] if a.notes else []


def vpu_lines(a: Analysis, attached: Attached = NOTHING_ATTACHED) -> list[str]:
    """What the VPU says: its rule violations and rule table, its partition, the op-list what-if,
    the partition economics and the requantization shifts."""
    lines = _violation_lines(a)
    lines += ["", *_rule_table(a), "", *partition_lines(a.partition, title="VPU partition", side="VPU")]
    lines += repeated_lines(a)
    lines += _whatif_lines(attached)
    lines += ["", *_shift_lines(a)]
    return lines


def accuracy_lines(a: Analysis, attached: Attached = NOTHING_ATTACHED, timings: str | None = None) -> list[str]:
    """SQNR, the integer simulation, the XNNPACK run (`--run`) and its timing model, the timings
    (`timings`: the run's line, reports.timings_text; None: the analysis' own figures)."""
    sqnr = f"not meaningful ({a.sqnr_reason or 'no float reference'})" if a.sqnr_db is None \
        else f"{a.sqnr_db:.1f} dB"
    lines = [f"SQNR (float vs quantized, {samples_text(a.accuracy_samples)} held aside): {sqnr}"]
    if poor_sqnr_sentence(a.sqnr_db):
        lines.append(f"  ! {poor_sqnr_sentence(a.sqnr_db)}")
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
    lines.append(timings or "Timings: " + ", ".join(f"{k} {t.get(k, 0.0):.2f}s"
                                                    for k in ("export", "import", "prepare", "calibrate", "convert",
                                                              "analyze", "sqnr")))
    return lines


def violation_count_line(a: Analysis) -> str:
    """"66 violations in 4 rule(s)." (the VPU's rules), with the sentence a run without any
    weighted op on the VPU owes its reader."""
    total = len(a.violations)
    warning = no_weighted_op_sentence(a.summary)
    return (f"{total} VPU rule violation{'s' if total != 1 else ''} in "
            f"{sum(1 for r in a.rules if r.violations)} rule(s)." + (f" {warning}" if warning else ""))


def target_lines(r: TargetResult, run: RuntimeReport | None = None,
                 nodes: Mapping[str, NodeInfo] | None = None) -> list[str]:
    """One target's section: its partitions, CPU ops with its reasons, boundaries, its estimate
    and, with `check --run`, its run."""
    from vpu_core import targets
    from vpu_core.reports.json_report import target_split
    from vpu_core.reports.runtime import runtime_lines

    known = r.target in targets.names()
    lines = partition_lines(r.verdict, title=f"Target {r.title}", side=targets.info(r.target).side if known else r.title,
                            on_side=targets.info(r.target).on_side if known else r.title)
    own = getattr(r.estimate, "text_lines", None)
    if callable(own):
        lines += own()
    elif r.estimate is not None:
        lines.append(f"  Estimate: {r.estimate.total:.4g} {r.estimate.unit} ({r.estimate.label})")
    if run is not None:
        split = target_split(r, run, nodes or {})
        lines += split.text_lines() if split is not None else _target_run_lines(run, runtime_lines)
    return lines


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


def repeated_lines(a: Analysis, shown: int = 6) -> list[str]:
    """One line per set of repeated blocks (template ×N, figures per block), then each
    deviating member with what deviates (its first `shown` differences)."""
    from vpu_core.analysis.repeated import repeated_blocks
    from vpu_core.reports.whatif_text import human_macs

    lines = []
    for r in repeated_blocks(a):
        first = r.members[0]
        same = {(m.macs, m.cpu_ops, m.partitions) for m in r.members}
        per = (f"per block {human_macs(first.macs)}, {first.cpu_ops} CPU op(s), {first.partitions} subgraph(s)"
               if len(same) == 1 else
               f"in all {human_macs(sum(m.macs for m in r.members))}, {sum(m.cpu_ops for m in r.members)} "
               f"CPU op(s), {sum(m.partitions for m in r.members)} subgraph(s)")
        lines.append(f"  {r.template} ×{r.folded} of {len(r.members)} ({r.ops} ops each): {per}")
        for d in r.deviating:
            more = f" (+{len(d.differs) - shown} more)" if len(d.differs) > shown else ""
            lines.append(f"    {d.module} deviates: " + "; ".join(d.differs[:shown]) + more)
    return ["", "Repeated blocks:", *lines] if lines else []


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


def partition_lines(p: PartitionReport, title: str = "Partition", side: str = "VPU",
                    on_side: str = "the VPU") -> list[str]:
    """A verdict as text: its partitions, the ops on the CPU with the judge's reasons, the ops
    folded away while lowering, the boundaries ("CPU → NPU") with the bytes they move."""
    fallback, removed = p.fallback_nodes, p.removed_nodes
    lines = [f"{title}: {_n(len(p.subgraphs), 'partition')} on {on_side}, {_n(len(fallback), 'op')} on the CPU"
             + (f", {len(removed)} removed while lowering" if removed else "")
             + f", {_n(len(p.boundaries), 'boundary edge')} moving {human_bytes(p.transfer_bytes)}"]
    for s in p.subgraphs:
        lines.append(f"  partition {s.id:<3} {len(s.nodes):>4} nodes  {_preview(s.nodes)}")
    for heading, listed in (("CPU fallback", fallback), ("Removed while lowering (run nowhere)", removed)):
        if listed:
            lines.append(f"  {heading}:")
            width = max(len(c.node) for c in listed)
            cause = max(len(c.cause) for c in listed) + 2
            lines += [f"    {c.node:<{width}}  {'[' + c.cause + ']':<{cause}}  {c.reason}" for c in listed]
    if p.boundaries:
        lines.append("  Boundaries:")
        for b in p.boundaries:
            lines.append(f"    {direction_text(b.direction, side)}  {b.src} -> {b.dst}  {human_bytes(b.bytes)}"
                         f"{'  ' + b.dtype + str(list(b.shape)) if b.dtype else ''}")
    return lines


def direction_text(direction: str, side: str) -> str:
    """A boundary's direction in the target's words: "cpu->vpu" under Ethos-U is "CPU → NPU"."""
    return "CPU → " + side if direction == "cpu->vpu" else side + " → CPU"


def _n(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


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

"""`check`'s report, led by the primary target (the one the user ships to): its verdict in the
first lines, its section first, then every other target judged beside it; the VPU's rules,
partition, what-if and shifts only when the VPU is one of the targets; accuracy and timings last,
and the verdict again as the last line (what the exit status says).

    text = check_text(inspection, runs)        # the primary is the first of inspection.targets
    status = exit_status(inspection)           # 0: all on the accelerator, 1: something is not
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from vpu_core.reports.summary_text import causes_text, headline, weights_text
from vpu_core.reports.text_report import (
    accuracy_lines, header_line, notes_lines, target_lines, violation_count_line, vpu_lines,
)
from vpu_core.reports.headline import TargetHeadline, headline_of, primary_result

if TYPE_CHECKING:
    from vpu_core.inspection import Inspection
    from vpu_core.targets.results import RuntimeReport


def primary_headline(inspection: Inspection) -> TargetHeadline:
    return headline_of(primary_result(inspection), inspection.analysis)


def exit_status(inspection: Inspection) -> int:
    """0: the primary target runs the whole model and rejects nothing; 1: an op falls back to the
    CPU or breaks a rule of that target (the VPU's rules only when the VPU is the primary)."""
    return 0 if primary_headline(inspection).ok else 1


def check_text(inspection: Inspection, runs: Mapping[str, RuntimeReport] | None = None) -> str:
    a, attached = inspection.analysis, inspection.attached
    results = dict(inspection.targets) or {"vpu": primary_result(inspection)}
    head = primary_headline(inspection)
    lines = [header_line(a, head.title, with_profile="vpu" in results),
             _numbers_line(head, a.summary), f"Verdict: {head.sentence()}", "", *notes_lines(a)]
    for name, result in results.items():
        if name == "vpu":
            lines += vpu_lines(a, attached)
        else:
            lines += target_lines(result, (runs or {}).get(name), a.nodes)
        lines.append("")
    from vpu_core.reports.timings_text import timings_line

    lines += accuracy_lines(a, attached, timings_line(a.timings_s, inspection.stages_run, inspection.targets,
                                                      inspection.cache_load_s))
    if "vpu" in results:
        lines.append(violation_count_line(a))
    lines.append(f"Verdict: {head.sentence()}")
    return "\n".join(lines)


def _numbers_line(head: TargetHeadline, summary) -> str:
    """The VPU's headline as it always read ("VPU runs 100 % of 12.5 MMAC · …"); any other
    target's the same numbers in its words."""
    if head.target == "vpu" and summary is not None:
        return headline(summary)
    from vpu_core.reports.summary_text import share_text
    from vpu_core.reports.whatif_text import human_macs

    macs = f"{share_text(head.mac_share)} of {human_macs(head.macs_total)}" if head.macs_total else "no MAC"
    weights = f" · {weights_text(summary)}" if summary is not None else ""
    causes = causes_text(dict(head.cpu_causes))
    return (f"{head.title} runs {macs} on {head.on_side} in {head.partitions} partition"
            f"{'' if head.partitions == 1 else 's'}{weights} · CPU ops by cause: {causes}"
            + (f" · {head.removed_ops} removed while lowering" if head.removed_ops else ""))

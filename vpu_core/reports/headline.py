"""What one target says of the whole model, in numbers and one sentence: the headline a report,
the status bar and the exit status of `check` take from the primary target (the one the user
ships to: the first `--target`, else the VPU).

    h = headline_of(result, analysis)      # TargetHeadline, plain values (no torch)
    h.ok                                   # nothing on the CPU, nothing the target rejects
    h.sentence()                           "Ethos-U55-128: the whole model runs on the NPU …"

Counted the same way for every target: an op on the CPU is a CpuNode of its verdict that is not
"removed" (folded away while lowering: it runs nowhere, PartitionReport.fallback_nodes); the MAC
share is the model's multiply-accumulates in ops the target placed in a partition
(Summary.node_macs); rule violations are the VPU's eight-constraint rules and count only when
the target is the VPU (the others' rejections are their CPU ops, with the compiler's reasons).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis, CpuCause
    from vpu_core.inspection import Inspection
    from vpu_core.targets.results import TargetResult


@dataclass(frozen=True)
class TargetHeadline:
    """The primary target's verdict on the whole model (JSON `summary`, the report's opening)."""

    target: str                 # TargetInfo.name
    title: str                  # "Ethos-U55-128"
    accelerator: str            # "NPU" (TargetInfo.side)
    partitions: int             # accelerator partitions (delegates) holding at least one op
    cpu_ops: int                # ops that run on the CPU (removed ones excluded)
    removed_ops: int            # ops folded away while lowering
    rule_violations: int        # the VPU's rule violations (0 for any other target)
    macs_total: int
    macs_on: int                # in ops placed in a partition
    cpu_causes: tuple[tuple[CpuCause, int], ...] = ()   # (cause, ops) of the CPU ops, most first
    estimate: str = ""          # "Vela 5.1.0 estimate: 0.446 ms" ("" without a cost model)
    on_side: str = ""           # "the NPU", "XNNPACK" (TargetInfo.on_side; "" means the accelerator)

    @property
    def ok(self) -> bool:
        """All on the accelerator and nothing the target rejects: `check` exits 0."""
        return self.cpu_ops == 0 and self.rule_violations == 0

    @property
    def mac_share(self) -> float:
        return self.macs_on / self.macs_total if self.macs_total else 0.0

    def sentence(self) -> str:
        """The verdict in one sentence, the first thing a user reads."""
        from vpu_core.reports.summary_text import CAUSE_WORDS, share_text
        from vpu_core.reports.whatif_text import human_macs

        parts = _count(self.partitions, "partition")
        where = f"on {self.on_side or self.accelerator}"
        macs = (f"{share_text(self.mac_share)} of {human_macs(self.macs_total)}" if self.macs_total
                else "no MAC in the model")
        removed = f"; {self.removed_ops} folded away while lowering" if self.removed_ops else ""
        if self.ok:
            text = f"{self.title}: the whole model runs {where} ({parts}, {macs}){removed}."
        else:
            problems = []
            if self.cpu_ops:
                causes = ", ".join(f"{n} {CAUSE_WORDS.get(c, c)}" for c, n in self.cpu_causes)
                problems.append(f"{_count(self.cpu_ops, 'op')} on the CPU ({causes})")
            if self.rule_violations:
                problems.append(_count(self.rule_violations, "rule violation"))
            text = (f"{self.title}: {' and '.join(problems)}; {parts} run {macs} {where}{removed}.")
        return text + (f" {self.estimate}." if self.estimate else "")


def primary_result(inspection: Inspection) -> TargetResult:
    """The primary target's judgement: the first of the targets asked for (the session keeps
    their order), the VPU's when none was."""
    if inspection.targets:
        return next(iter(inspection.targets.values()))
    from vpu_core.targets.results import TargetResult

    return TargetResult("vpu", "VPU", inspection.analysis.partition)


def headline_of(result: TargetResult, analysis: Analysis) -> TargetHeadline:
    """The headline of `result` (a target's judgement of `analysis`'s converted graph)."""
    from vpu_core import targets

    verdict = result.verdict
    node_macs = analysis.summary.node_macs if analysis.summary is not None else {}
    on = sum(m for n, m in node_macs.items() if isinstance(verdict.assignment.get(n), int))
    fallback = verdict.fallback_nodes
    causes: dict[CpuCause, int] = {}
    for c in fallback:
        causes[c.cause] = causes.get(c.cause, 0) + 1
    try:
        side, on_side = targets.info(result.target).side, targets.info(result.target).on_side
    except targets.UnknownTarget:       # a result cached by a target no longer registered
        side, on_side = result.title, result.title
    return TargetHeadline(
        target=result.target, title=result.title, accelerator=side, on_side=on_side,
        partitions=sum(1 for s in verdict.subgraphs if s.nodes), cpu_ops=len(fallback),
        removed_ops=len(verdict.removed_nodes),
        rule_violations=len(analysis.violations) if result.target == "vpu" else 0,
        macs_total=sum(node_macs.values()), macs_on=on,
        cpu_causes=tuple(sorted(causes.items(), key=lambda kv: -kv[1])),
        estimate=estimate_text(result))


def estimate_text(result: TargetResult) -> str:
    """"Vela 5.1.0 estimate: 0.446 ms (223 k cycles)", "" without an estimate."""
    e = result.estimate
    if e is None:
        return ""
    brief = getattr(e, "brief", None)
    if callable(brief):
        return str(brief())
    unit = "µs" if e.unit == "us" else e.unit
    return f"{e.label}: {e.total:.4g} {unit}"


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"

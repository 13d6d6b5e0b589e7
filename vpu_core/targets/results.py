"""What a target's judgement returns: plain frozen values the reports, the window and the cache read."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vpu_core.analysis.results import PartitionReport
    from vpu_core.targets.protocol import Estimate


@dataclass(frozen=True)
class TargetResult:
    """One target's judgement of one configuration's converted graph."""

    target: str                        # TargetInfo.name ("vpu", "xnnpack", …)
    title: str                         # TargetInfo.title, so a report needs no registry to name it
    verdict: PartitionReport           # every node on the accelerator (subgraph id) or the CPU (cause, reason)
    estimate: Estimate | None = None   # the target's own dataclass behind protocol.Estimate, or None
    seconds: float = 0.0               # judging it: verdict and estimate

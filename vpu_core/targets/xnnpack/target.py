"""The XNNPACK target's implementation: the real delegation, the runtime here, the .pte."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from vpu_core.targets.protocol import TargetBase, TargetJob
from vpu_core.targets.xnnpack import INFO

if TYPE_CHECKING:
    from vpu_core.analysis.results import PartitionReport
    from vpu_core.handoff import Exported
    from vpu_core.runtime.results import RuntimeReport


class XnnpackTarget(TargetBase):
    info = INFO

    def verdict(self, job: TargetJob) -> PartitionReport:
        """What XnnpackPartitioner delegates of the converted graph (vpu_core.analysis.delegation),
        read from the one lowering the runtime emits too; reported as stage "delegate"."""
        from vpu_core.analysis.delegation import xnnpack_delegation
        from vpu_core.runtime.lowering import lower_edge
        from vpu_core.runtime.service import EDGE

        qm = job.quantized()
        job.ctx.report("delegate", 0.0)
        edge = job.remembered(EDGE, lambda: job.ctx.call(lower_edge, qm))
        report = job.ctx.call(lambda: xnnpack_delegation(qm, lowered=edge))
        job.ctx.report("delegate", 1.0)
        return report

    def run(self, job: TargetJob, runs: int, warmup: int) -> RuntimeReport:
        """The lowered program run with ExecuTorch's runtime here (vpu_core.runtime.service)."""
        from vpu_core.runtime.service import runtime_report

        return runtime_report(job, runs, warmup)

    def export(self, job: TargetJob, output: Path) -> Exported:
        """The ExecuTorch program (.pte) that `--run` runs."""
        from vpu_core.handoff import export_pte

        return export_pte(job, output)

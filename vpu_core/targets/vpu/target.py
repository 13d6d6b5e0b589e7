"""The VPU target's implementation: the analysis' partition, the [timing] estimate, the hand-off."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from vpu_core.targets.protocol import TargetBase, TargetJob
from vpu_core.targets.vpu import INFO

if TYPE_CHECKING:
    from vpu_core.analysis.qgraph import QGraph
    from vpu_core.analysis.results import PartitionReport
    from vpu_core.targets.results import Exported
    from vpu_core.timing.results import VpuEstimate


class VpuTarget(TargetBase):
    info = INFO
    cannot_run = ("The VPU is simulated from the hardware profile: no program runs on it here "
                  "(--int-sim runs its partitions in integer arithmetic).")

    def verdict(self, job: TargetJob) -> PartitionReport:
        """The partition analyze() computed: rules of the profile, no lowering."""
        return job.analysis().partition

    def estimate(self, job: TargetJob, verdict: PartitionReport) -> VpuEstimate:
        from vpu_core.analysis.qgraph import QGraph

        qm = job.quantized()
        return estimate_of(QGraph(qm.converted, qm.profile), verdict)

    def export(self, job: TargetJob, output: Path) -> Exported:
        """The hand-off folder (vpu_core.targets.vpu.handoff): manifest.json and weights.npz."""
        from vpu_core.targets.vpu.handoff import export_handoff

        return export_handoff(job, output)


def estimate_of(g: QGraph, verdict: PartitionReport) -> VpuEstimate:
    """The [timing] estimate of the VPU subgraphs of `verdict`, a partition of `g` (its profile's
    assumptions): what `VpuTarget.estimate` returns, for any converted graph."""
    from vpu_core.analysis.macs import op_macs
    from vpu_core.analysis.qgraph import is_op
    from vpu_core.timing.estimate import vpu_estimate

    nodes = [g.by_name[n] for s in verdict.subgraphs for n in s.nodes]
    macs = {n.name: op_macs(g, n) for n in nodes if is_op(n)}
    return vpu_estimate(verdict, macs, g.profile.timing, g.profile.name)

"""ArmTarget: one Arm target (an Ethos-U configuration or the TOSA INT profile) behind the protocol.

    targets.load("ethos-u55-128")      # the ArmTarget of that configuration (module __getattr__)

The lowering (lowering.lower_for_arm: 5–200 s) is made once per converted graph and remembered
in the session (TargetJob.remembered): verdict, estimate, run and export of the same program
share it, and the session caches verdict and estimate on disk, so a warm start lowers nothing.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

from vpu_core.extras import check_arm_packages
from vpu_core.targets.arm import INFOS
from vpu_core.targets.arm.configs import ARM_TARGETS, ArmConfig
from vpu_core.targets.protocol import TargetBase, TargetJob

if TYPE_CHECKING:
    from vpu_core.analysis.results import PartitionReport
    from vpu_core.targets.arm.lowering import ArmLowering
    from vpu_core.targets.arm.results import VelaEstimate
    from vpu_core.targets.results import Exported, RuntimeReport

LOWERING = "arm-lowering"
CANNOT_RUN = ("An Ethos-U program cannot run on this machine: its delegates need an Ethos-U NPU or Arm's "
              "Corstone-300 / 320 FVP, neither of which is here. The NPU's time is Vela's estimate; the ops "
              "left to the CPU were measured here with ExecuTorch's portable kernels.")


class ArmTarget(TargetBase):
    def __init__(self, config: ArmConfig) -> None:
        self.config = config
        self.info = INFOS[config.name]
        self.cannot_run = CANNOT_RUN if config.uses_vela else ""

    def lowering(self, job: TargetJob) -> ArmLowering:
        """The converted graph lowered for this target: remembered for the program, made on first use."""
        from vpu_core.targets.arm.lowering import lower_for_arm

        check_arm_packages(f"the {self.config.title} target", vela=self.config.uses_vela)
        qm = job.quantized()

        def lower() -> ArmLowering:
            base = self._sibling(job)
            if base is not None:
                from vpu_core.targets.arm.shared import revela

                made = job.ctx.call(revela, base, self.config, job.ctx)
            else:
                made = job.ctx.call(lower_for_arm, qm, self.config, None, None, job.ctx)
            for stage, seconds in made.seconds.items():
                job.timed(stage, seconds)
            return made
        return job.remembered(LOWERING, lower)

    def _sibling(self, job: TargetJob) -> ArmLowering | None:
        """A lowering of this program another Ethos-U configuration of the same TOSA subset made
        in this session (shared.py: only Vela runs again)."""
        if not self.config.uses_vela:
            return None
        from vpu_core.targets.arm.shared import tosa_spec

        spec = tosa_spec(self.config)
        for other in ARM_TARGETS.values():
            if other.name != self.config.name and other.uses_vela and tosa_spec(other) == spec:
                found = job.remembered_by(other.name, LOWERING)
                if found is not None:
                    return found
        return None

    def verdict(self, job: TargetJob) -> PartitionReport:
        """Which nodes the Arm partitioner delegated, read from the final lowered program, and the
        backend's own reason for every op left on the CPU (verdict.py)."""
        from vpu_core.targets.arm.verdict import arm_verdict

        lowering = self.lowering(job)
        return arm_verdict(job.quantized(), lowering)

    def estimate(self, job: TargetJob, verdict: PartitionReport) -> VelaEstimate | None:
        """Vela's cycles, MACs and memory per node and per partition (vela_report.py); the TOSA
        target has no cost model (None)."""
        if not self.config.uses_vela:
            return None
        from vpu_core.analysis.qgraph import is_op
        from vpu_core.targets.arm.vela_report import GraphNames, PartitionFiles, vela_estimate

        lowering = self.lowering(job)
        gm = job.quantized().converted
        names = GraphNames([n.name for n in gm.graph.nodes], frozenset(n.name for n in gm.graph.nodes if is_op(n)),
                           id(lowering.prepared.gm.graph))
        members = {s.id: tuple(n for n in s.nodes if n in names.ops) for s in verdict.subgraphs}
        parts = [PartitionFiles(p.index, p.files, members.get(p.index, ())) for p in lowering.partitions]
        return vela_estimate(self.config, parts, names, lowering.vela_version)

    def run(self, job: TargetJob, runs: int, warmup: int) -> RuntimeReport:
        """tosa-int: the program with its TOSA partitions in the TOSA reference model (numerics).
        An Ethos-U target: refused (CANNOT_RUN), with its CPU side measured here (cpu_cost.py)."""
        import dataclasses

        qm = job.quantized()
        if self.config.uses_vela:      # the CPU side needs the prepared graph only, not the lowering
            from vpu_core.targets.arm.cpu_cost import measure_cpu_side
            from vpu_core.targets.arm.graph_prep import prepare_for_arm

            job.ctx.report("run", 0.0)
            prepared = prepare_for_arm(qm.converted).gm
            report = job.ctx.call(measure_cpu_side, qm, prepared, runs, warmup, self.config.name)
            report = dataclasses.replace(report, refused=report.refused or CANNOT_RUN, latency=None)
        else:
            lowering = self.lowering(job)
            job.ctx.report("run", 0.0)
            report = self._numerics(job, lowering)
        job.ctx.report("run", 1.0)
        return report

    def _numerics(self, job: TargetJob, lowering: ArmLowering) -> RuntimeReport:
        from vpu_core.targets.arm.tosa_numerics import tosa_numerics
        from vpu_core.targets.results import RuntimeReport

        start = time.perf_counter()
        numerics = job.ctx.call(tosa_numerics, job.quantized(), lowering.prepared.gm, lowering.partitions)
        return RuntimeReport(
            self.config.name, runtime=numerics.reference,
            graph_kind="qdq, TOSA partitions in the reference model",
            sqnr_vs_float_db=numerics.sqnr_vs_float_db, sqnr_vs_float_reason=numerics.sqnr_vs_float_reason,
            sqnr_vs_qdq_db=numerics.sqnr_vs_qdq_db, sqnr_vs_qdq_reason=numerics.sqnr_vs_qdq_reason,
            outputs_identical=numerics.outputs_identical, seconds=time.perf_counter() - start,
            max_lsb_diff=numerics.max_lsb, differing_share=numerics.differing_share)

    def export(self, job: TargetJob, output: Path) -> Exported:
        """The ExecuTorch program with its delegates (output, a .pte) and beside it a folder with
        every partition's TOSA file, debug information and Vela's reports (export.py)."""
        from vpu_core.files import check_output_path
        from vpu_core.targets.arm.export import export_program
        from vpu_core.targets.results import Exported

        check_output_path(output, (".pte",), f"the {self.config.title} program")
        lowering = self.lowering(job)
        if lowering.vela_of:        # its edge program holds another configuration's command streams
            from vpu_core.targets.arm.lowering import lower_for_arm

            lowering = job.ctx.call(lower_for_arm, job.quantized(), self.config, None, None, job.ctx)
        verdict = self.verdict(job)
        size, folder = export_program(lowering, Path(output), verdict, self.estimate(job, verdict))
        runs_where = ("an Ethos-U system (it cannot run here)" if self.config.uses_vela
                      else "a runtime with the TOSA backend (it cannot run here)")
        return Exported(str(output), "pte", size, f"{len(lowering.partitions)} {self.config.title} delegate(s) "
                        f"for {runs_where}; TOSA files and reports in {folder}")


_TARGETS: dict[str, ArmTarget] = {}


def __getattr__(name: str) -> ArmTarget:
    """The registry's implementation "vpu_core.targets.arm.target:<target name>" (one per config)."""
    if name not in ARM_TARGETS:
        raise AttributeError(name)
    return _TARGETS.setdefault(name, ArmTarget(ARM_TARGETS[name]))

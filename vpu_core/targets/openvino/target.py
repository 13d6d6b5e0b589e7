"""OpenvinoTarget: ExecuTorch's OpenVINO backend behind the Target protocol.

The lowering (lowering.lower_for_openvino: a few seconds, OpenVINO compiles each partition) is
made once per converted graph and remembered in the session (TargetJob.remembered): verdict,
run and export share it; the session caches the verdict on disk, so a warm `check` lowers nothing.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from vpu_core.errors import InspectorError
from vpu_core.targets.openvino import INFO
from vpu_core.targets.protocol import TargetBase, TargetJob

if TYPE_CHECKING:
    from vpu_core.analysis.results import PartitionReport
    from vpu_core.targets.openvino.lowering import OpenvinoLowering
    from vpu_core.targets.results import Exported, RuntimeReport

LOWERING = "openvino-lowering"


class OpenvinoTarget(TargetBase):
    info = INFO

    def lowering(self, job: TargetJob) -> OpenvinoLowering:
        """The converted graph lowered for OpenVINO: remembered for the program, made on first use."""
        from vpu_core.targets.openvino.lowering import lower_for_openvino

        refused = self.info.unavailable()
        if refused is not None:
            raise InspectorError(refused)
        qm = job.quantized()
        return job.remembered(LOWERING, lambda: job.ctx.call(lower_for_openvino, qm))

    def verdict(self, job: TargetJob) -> PartitionReport:
        """What OpenvinoPartitioner delegates, read from the lowered program (verdict.py); reported
        as stage "delegate"."""
        from vpu_core.targets.openvino.verdict import openvino_verdict

        job.ctx.report("delegate", 0.0)
        report = openvino_verdict(job.quantized(), self.lowering(job))
        job.ctx.report("delegate", 1.0)
        return report

    def run(self, job: TargetJob, runs: int, warmup: int) -> RuntimeReport:
        """The .pte run with ExecuTorch's runtime here: latency and SQNR (measure.py)."""
        from vpu_core.targets.openvino.measure import run_lowered
        from vpu_core.targets.results import RuntimeReport

        try:
            lowering = self.lowering(job)
        except InspectorError as exc:
            return RuntimeReport(self.info.name, refused=exc.message)
        job.ctx.report("run", 0.0)
        report = job.ctx.call(run_lowered, job.quantized(), lowering, runs, warmup, self.info.name)
        job.ctx.report("run", 1.0)
        return report

    def export(self, job: TargetJob, output: Path) -> Exported:
        """The ExecuTorch program (.pte) `--run` runs, written as it is: it loads with
        `executorch.runtime.Runtime.get().load_program(path)` wherever ExecuTorch with its OpenVINO
        backend and the openvino package are installed."""
        from vpu_core.files import SaveError, atomic_write, check_output_path
        from vpu_core.targets.results import Exported

        check_output_path(output, (".pte",), "the ExecuTorch program")
        lowering = self.lowering(job)
        try:
            atomic_write(output, lambda tmp: Path(tmp).write_bytes(lowering.buffer))
        except OSError as exc:
            raise SaveError(f"Cannot write the program to {output}: {exc.strerror or exc}.") from None
        inputs = ", ".join(f"{i['name']} {i['dtype']}[{', '.join(map(str, i['shape']))}]" for i in lowering.inputs)
        return Exported(str(output), "pte", len(lowering.buffer),
                        f"{lowering.counts['delegated_subgraphs']} OpenVINO delegate(s); inputs: {inputs}")

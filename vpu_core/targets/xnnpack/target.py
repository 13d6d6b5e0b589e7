"""The XNNPACK target's implementation: the real delegation, the runtime here, the .pte."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from vpu_core.targets.protocol import TargetBase, TargetJob
from vpu_core.targets.xnnpack import INFO

if TYPE_CHECKING:
    from vpu_core.analysis.results import PartitionReport
    from vpu_core.targets.results import Exported
    from vpu_core.targets.results import RuntimeReport


class XnnpackTarget(TargetBase):
    info = INFO

    def verdict(self, job: TargetJob) -> PartitionReport:
        """What XnnpackPartitioner delegates of the converted graph (vpu_core.targets.xnnpack.delegation),
        read from the one lowering the runtime emits too; reported as stage "delegate"."""
        from vpu_core.targets.xnnpack.delegation import xnnpack_delegation
        from vpu_core.targets.xnnpack.lowering import lower_edge
        from vpu_core.targets.xnnpack.service import EDGE

        qm = job.quantized()
        job.ctx.report("delegate", 0.0)
        edge = job.remembered(EDGE, lambda: job.ctx.call(lower_edge, qm))
        report = job.ctx.call(lambda: xnnpack_delegation(qm, lowered=edge))
        job.ctx.report("delegate", 1.0)
        return report

    def run(self, job: TargetJob, runs: int, warmup: int) -> RuntimeReport:
        """The lowered program run with ExecuTorch's runtime here (vpu_core.targets.xnnpack.service)."""
        from vpu_core.targets.xnnpack.service import runtime_report

        return runtime_report(job, runs, warmup)

    def export(self, job: TargetJob, output: Path) -> Exported:
        """The ExecuTorch program (.pte) that `--run` runs, written as it is:
        `executorch.runtime.Runtime.get().load_program(path)` runs it wherever ExecuTorch with
        XNNPACK is installed."""
        from vpu_core.files import SaveError, atomic_write, check_output_path
        from vpu_core.targets.results import Exported
        from vpu_core.targets.xnnpack.service import program_bytes

        check_output_path(output, (".pte",), "the ExecuTorch program")
        lowered = program_bytes(job)
        try:
            atomic_write(output, lambda tmp: Path(tmp).write_bytes(lowered.buffer))
        except OSError as exc:
            raise SaveError(f"Cannot write the program to {output}: {exc.strerror or exc}.") from None
        inputs = ", ".join(f"{i['name']} {i['dtype']}[{', '.join(map(str, i['shape']))}]"
                           for i in lowered.meta.get("inputs", []))
        return Exported(str(output), "pte", len(lowered.buffer),
                        f"{len(lowered.op_map.delegates)} XNNPACK delegate(s); inputs: {inputs}")

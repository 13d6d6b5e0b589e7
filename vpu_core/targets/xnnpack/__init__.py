"""The XNNPACK target: ExecuTorch's XnnpackPartitioner, its lowering and its runtime on this CPU.

Its verdict is what XnnpackPartitioner really delegates of the converted graph (every op it
leaves out says why, in XNNPACK's own terms); it has no estimate (its time is measured: `--run`).
"""
from vpu_core.targets.registry import TargetInfo, register

INFO = register(TargetInfo(
    name="xnnpack", title="XNNPACK",
    description="ExecuTorch's XnnpackPartitioner: what it really delegates, lowered and run on this CPU.",
    implementation="vpu_core.targets.xnnpack.target:XnnpackTarget", quantizer="xnnpack",
    verdict_title="Lowering with ExecuTorch XNNPACK"))

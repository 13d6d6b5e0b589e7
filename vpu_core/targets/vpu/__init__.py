"""The VPU target: the profile-driven simulation of this project's VPU.

Its verdict is the partition the analysis computes from the hardware profile (op list, per-op
limits, SRAM; vpu_core.analysis.partition), its estimate the profile's [timing] model
(vpu_core.timing), and nothing runs here: `--int-sim` executes its partitions in integers instead.
"""
from vpu_core.targets.registry import TargetInfo, register

INFO = register(TargetInfo(
    name="vpu", title="VPU",
    description="The simulated VPU of the hardware profile: its op list, per-op limits, SRAM and [timing].",
    implementation="vpu_core.targets.vpu.target:VpuTarget", quantizer="vpu", accelerator="VPU",
    result_modules=("vpu_core.hardware.timing", "vpu_core.timing.results")))

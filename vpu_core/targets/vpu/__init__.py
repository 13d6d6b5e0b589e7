"""The VPU target: the profile-driven simulation of this project's VPU.

Its verdict is the partition the analysis computes from the hardware profile (op list, per-op
limits, SRAM; vpu_core.analysis.partition), its estimate the profile's [timing] model
(vpu_core.timing), and nothing runs here: `--int-sim` executes its partitions in integers instead. Its quantizer, MyVPUQuantizer
(quantizer.py), encodes the profile's eight constraints.
"""
from vpu_core.quantizers import registry as quantizers
from vpu_core.quantizers.offers import ObserverKind, Offers
from vpu_core.targets.registry import TargetInfo, register

POW2_MINMAX = ObserverKind(
    "minmax", "min/max, 2^k rounded up",
    "the largest |value| seen, its scale rounded up to a power of two (never clips)")
POW2_HISTOGRAM = ObserverKind(
    "histogram", "histogram, best 2^k",
    "the power of two whose int8 grid has the least squared error over the histogram of the values "
    "seen (clips rare outliers when that costs less than the coarser step)")
QUANTIZER = quantizers.register(quantizers.QuantizerInfo(
    name="vpu", title="MyVPUQuantizer (this project)", factory="vpu_core.targets.vpu.quantizer:make",
    offers=Offers("vpu", ("keep_float", "observer"), (POW2_MINMAX, POW2_HISTOGRAM)),
    preload=("vpu_core.targets.vpu.quantizer",)))

INFO = register(TargetInfo(
    name="vpu", title="VPU",
    description="The simulated VPU of the hardware profile: its op list, per-op limits, SRAM and [timing].",
    implementation="vpu_core.targets.vpu.target:VpuTarget", quantizer="vpu", accelerator="VPU",
    result_modules=("vpu_core.hardware.timing", "vpu_core.timing.results")))

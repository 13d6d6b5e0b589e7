"""The two quantizers: our MyVPUQuantizer and ExecuTorch's XNNPACKQuantizer."""
from __future__ import annotations

from typing import TYPE_CHECKING

from vpu_core.profile import HardwareProfile

if TYPE_CHECKING:
    from torchao.quantization.pt2e.quantizer import Quantizer

QUANTIZERS = ("vpu", "xnnpack")


def make_quantizer(kind: str, profile: HardwareProfile, per_tensor: bool = False,
                   reference_observers: bool = False, keep_float: frozenset[str] = frozenset()) -> Quantizer:
    """`reference_observers`: torchao's stock observers instead of the fast, identical ones;
    `keep_float`: ops the VPU quantizer must leave in float (vpu_core.pipeline.keep_float)."""
    if kind == "vpu":
        from vpu_core.quantizers.vpu import MyVPUQuantizer

        return MyVPUQuantizer(profile, keep_float)
    if kind == "xnnpack":
        from vpu_core.quantizers.xnnpack import make_xnnpack_quantizer

        return make_xnnpack_quantizer(per_channel=not per_tensor,
                                      reference_observers=reference_observers)
    raise ValueError(f"unknown quantizer {kind!r} (choose from {', '.join(QUANTIZERS)})")

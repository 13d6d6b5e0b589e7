"""The two quantizers: our MyVPUQuantizer and ExecuTorch's XNNPACKQuantizer."""
from __future__ import annotations

from typing import TYPE_CHECKING

from vpu_core.profile import HardwareProfile
from vpu_core.quantizers.overrides import NodeChanges

if TYPE_CHECKING:
    from torchao.quantization.pt2e.quantizer import Quantizer

QUANTIZERS = ("vpu", "xnnpack")


def make_quantizer(kind: str, profile: HardwareProfile, per_tensor: bool = False,
                   reference_observers: bool = False, keep_float: frozenset[str] = frozenset(),
                   changes: NodeChanges = NodeChanges()) -> Quantizer:
    """`reference_observers`: torchao's stock observers instead of the fast, identical ones;
    `keep_float`: ops the VPU quantizer must leave in float (vpu_core.pipeline.keep_float);
    `changes`: the run's per-op changes (vpu_core.quantizers.overrides)."""
    if kind == "vpu":
        from vpu_core.quantizers.vpu import MyVPUQuantizer

        return MyVPUQuantizer(profile, keep_float, changes)
    if kind == "xnnpack":
        from vpu_core.quantizers.xnnpack import make_xnnpack_quantizer

        return make_xnnpack_quantizer(per_channel=not per_tensor,
                                      reference_observers=reference_observers, changes=changes)
    raise ValueError(f"unknown quantizer {kind!r} (choose from {', '.join(QUANTIZERS)})")

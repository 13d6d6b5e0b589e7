"""The quantizers: our MyVPUQuantizer, ExecuTorch's XNNPACKQuantizer and its Arm backend's EthosUQuantizer."""
from __future__ import annotations

from typing import TYPE_CHECKING

from vpu_core.config import QUANTIZERS
from vpu_core.profile import HardwareProfile
from vpu_core.quantizers.overrides import NodeChanges

if TYPE_CHECKING:
    from torchao.quantization.pt2e.quantizer import Quantizer

__all__ = ["QUANTIZERS", "make_quantizer"]


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
    if kind in ("ethos-u", "ethos-u-a16w8"):
        from vpu_core.quantizers.ethos_u import make_ethos_u_quantizer

        return make_ethos_u_quantizer(a16w8=kind == "ethos-u-a16w8", per_channel=not per_tensor,
                                      reference_observers=reference_observers, changes=changes)
    raise ValueError(f"unknown quantizer {kind!r} (choose from {', '.join(QUANTIZERS)})")

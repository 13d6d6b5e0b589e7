"""The quantizers: each registered by its backend's target package (vpu_core.quantizers.registry).

MyVPUQuantizer lives in vpu_core.targets.vpu, ExecuTorch's XNNPACKQuantizer in targets.xnnpack,
its Arm backend's EthosUQuantizer in targets.arm, NNCF's OpenVINOQuantizer in targets.openvino.
What they share stays here: the registry, the per-op changes (overrides), the observers and the
QuantizationConfig helpers (configs). `QUANTIZERS` is the registry's names, read when asked.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from vpu_core.quantizers import registry

if TYPE_CHECKING:
    from torchao.quantization.pt2e.quantizer import Quantizer

    from vpu_core.profile import HardwareProfile
    from vpu_core.quantizers.overrides import NodeChanges

__all__ = ["QUANTIZERS", "make_quantizer", "registry"]


def make_quantizer(kind: str, profile: HardwareProfile, per_tensor: bool = False,
                   reference_observers: bool = False, keep_float: frozenset[str] = frozenset(),
                   changes: NodeChanges | None = None) -> Quantizer:
    """The PT2E quantizer `kind` names, made by its registered factory. `reference_observers`:
    torchao's stock observers instead of the fast, identical ones; `keep_float`: ops the VPU
    quantizer must leave in float (vpu_core.pipeline.keep_float); `changes`: the run's per-op
    changes (vpu_core.quantizers.overrides). A quantizer that quantizes in one call (no PT2E
    Quantizer: QuantizerInfo.quantize) is refused with ValueError: the pipeline calls it instead."""
    found = registry.info(kind)
    if not found.factory:
        raise ValueError(f"the {kind} quantizer has no PT2E Quantizer: it quantizes in one call ({found.quantize})")
    found.check_available()
    request = registry.QuantizerRequest(kind, profile, per_tensor, reference_observers, keep_float, changes)
    return registry.loaded(found.factory)(request)


def __getattr__(name: str) -> Any:
    """QUANTIZERS: every registered quantizer's name, when asked (the targets register them)."""
    if name == "QUANTIZERS":
        return registry.names()
    raise AttributeError(name)

"""What the pipeline asks of a quantizer through the registry (vpu_core.quantizers.registry):
import its backend's modules (stage "import"), and, for a backend that quantizes in one call
(QuantizerInfo.quantize: NNCF's quantize_pt2e for OpenVINO), that call instead of prepare →
calibrate → convert.
"""
from __future__ import annotations

import copy
import traceback

from torch.fx import GraphModule

from vpu_core.config import RunConfig
from vpu_core.errors import InspectorError, QuantizationError, short_reason
from vpu_core.profile import HardwareProfile
from vpu_core.quantizers.overrides import changes_of


def import_quantizer(kind: str) -> None:
    """Import torchao's PT2E and the quantizer's modules (stage "import", timed on its own): the
    first XNNPACK prepare of a process spent 4.8 of 5.2 s importing ExecuTorch's quantizer,
    which is no work on the model. Later runs of the process find them imported (~0 s)."""
    import importlib

    from vpu_core import quiet
    from vpu_core.quantizers import registry

    quiet.import_torchao()          # first torchao import of a run: its CUDA-extension chatter off
    importlib.import_module("torchao.quantization.pt2e.quantize_pt2e")
    found = registry.info(kind)
    found.check_available()         # one sentence naming the extra that brings what it needs
    for module in found.preload:    # the backend's quantizer module, as its package registered it
        importlib.import_module(module)


def replays(kind: str) -> bool:
    """The quantizer prepares with observers (PT2E); False: its backend quantizes in one call."""
    from vpu_core.quantizers import registry

    return registry.info(kind).replays


def quantize_in_one_call(config: RunConfig, profile: HardwareProfile, float_gm: GraphModule,
                        batches: list[tuple]) -> GraphModule:
    """A quantizer whose backend calibrates and converts in one call (QuantizerInfo.quantize:
    NNCF's quantize_pt2e for OpenVINO), run as stage "calibrate": no observers of ours, so no
    recorded qparams; the Q/DQ graph it returns is analysed like any converted graph."""
    from vpu_core.quantizers import registry

    request = registry.QuantizerRequest(config.quantizer, profile, config.per_tensor, config.reference_observers,
                                        changes=changes_of(config))
    quantize = registry.loaded(registry.info(config.quantizer).quantize)
    try:
        converted = quantize(request, copy.deepcopy(float_gm), batches)
    except InspectorError:
        raise
    except Exception as exc:
        raise QuantizationError(f"The {config.quantizer} quantizer failed: {short_reason(exc)}",
                                traceback.format_exc()) from None
    return converted

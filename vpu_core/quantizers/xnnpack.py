"""ExecuTorch's XNNPACKQuantizer: the reference CPU backend's quantizer (per-channel or per-tensor)."""
from __future__ import annotations


def make_xnnpack_quantizer(per_channel: bool = True):
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config,
    )

    return XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=per_channel))

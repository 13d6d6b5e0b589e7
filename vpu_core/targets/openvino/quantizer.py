"""The OpenVINO quantizer: NNCF's OpenVINOQuantizer through ExecuTorch's `quantize_model`.

    converted = quantize(request, float_gm, batches)      # the registered QuantizerInfo.quantize

NNCF's quantize_pt2e annotates with OpenVINOQuantizer (INT8_SYM: int8 symmetric activations and
weights, weights per channel), collects statistics on the calibration batches, applies its fast
bias correction and converts, in one call. Why not our prepare → calibrate → convert with the
same quantizer: OpenVINO's conversion of that graph fails (an i8 convolution added to an f32
bias), NNCF's own flow is what OpenVINO's backend is built and tested with.

Its graph is ExecuTorch's `quantize_model` output as OpenVINO's backend expects it: weights stay
float behind a quantize_per_channel → dequantize_per_channel pair (`fold_quantize=False`, its
default). Folded to int8 constants as torchao's convert_pt2e leaves them, OpenVINO's conversion
fails the same way ("Element types for data batch and filters do not match": f32 and i8), and
NNCF's own folding writes the weights as (w - zp) * s arithmetic the analysis would read as
float ops. The analysis reads the quantize pair of a constant as a quantized weight (10 of 10 in
ResNet-8). NNCF's progress bars, its "experimental feature" warning and ExecuTorch's print go to
the captured output, not the terminal. `--keep-float NODE` is NNCF's ignored scope: those ops
are not quantized.
"""
from __future__ import annotations

import contextlib
import copy
import io
import logging
from typing import TYPE_CHECKING, Iterator

from vpu_core.quantizers.overrides import NodeChanges, mark_kept
from vpu_core.targets.openvino import no_telemetry

no_telemetry()     # before openvino or nncf is imported (see there)


def _import_quietly() -> None:
    """ExecuTorch's OpenVINO quantizer package imports its LLM tools, whose tokenizers library
    writes a line to the process' stderr when it loads: stderr is for our one-line errors."""
    from vpu_core.targets.xnnpack.measure import native_stderr

    with native_stderr():
        import executorch.backends.openvino.quantizer  # noqa: F401


_import_quietly()          # stage "import" imports this module first (QuantizerInfo.preload)

if TYPE_CHECKING:
    from torch.fx import GraphModule

    from vpu_core.quantizers.registry import QuantizerRequest


def quantize(request: QuantizerRequest, float_gm: GraphModule, batches: list[tuple]) -> GraphModule:
    """The converted Q/DQ graph of `float_gm` (a copy is quantized) calibrated on `batches`."""
    import nncf
    from executorch.backends.openvino.quantizer import quantize_model

    changes = request.changes or NodeChanges()
    options = {"ignored_scope": nncf.IgnoredScope(names=sorted(changes.keep_float))} if changes.keep_float else {}
    samples = sum(_batch_of(b) for b in batches)
    with quiet_nncf():
        converted = quantize_model(copy.deepcopy(float_gm), list(batches), transform_fn=tuple,
                                   subset_size=max(1, samples), extra_quantizer_options=options,
                                   fold_quantize=False)
    if changes.keep_float:
        mark_kept(converted, dict.fromkeys(changes.keep_float))
    return converted


def _batch_of(batch: tuple) -> int:
    first = batch[0] if batch else None
    shape = getattr(first, "shape", None)
    return int(shape[0]) if shape else 1


@contextlib.contextmanager
def quiet_nncf() -> Iterator[io.StringIO]:
    """NNCF's rich progress bars and logger, and ExecuTorch's prints, off the terminal."""
    logger = logging.getLogger("nncf")
    level = logger.level
    logger.setLevel(logging.ERROR)
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            yield sink
    finally:
        logger.setLevel(level)

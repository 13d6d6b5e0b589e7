"""Values no int8 scale can carry: mask constants at float32's limit, and the scales they cause.

Attention masks are built as `where(mask, 0, torch.finfo(float32).min)` (transformers, GPT-Neo,
LLaMA, …): a tensor holding 0 and -3.4e38, often added to the attention scores, and two such
masks added give -inf. An int8 grid over [-3.4e38, 0] has a step of ~1.3e36 (XNNPACK's affine
scale) or 2^122 (the VPU's power of two; +inf past float32 for a -inf), so every score of
ordinary size quantizes to 0: the tensor is a saturating mask, not an activation.

EXTREME = 2^110 (≈ 1.3e33) is where "no activation" starts: within a factor 2^18 of float32's
largest value (2^128 ≈ 3.4e38), far above anything a network computes from real data (inputs
scaled by 1e30 still quantize: int8 does not care about the unit), and below every mask built
from finfo.min / finfo.max or inf. The VPU quantizer leaves an op that would quantize such a
value in float (vpu_core.pipeline.keep_float: a CPU node with that reason); a graph that
quantizes one anyway (XNNPACK's, a loaded program) gets a note per tensor (`scale_notes`).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

from vpu_core.analysis.results import Note

if TYPE_CHECKING:
    from vpu_core.analysis.qgraph import QGraph

EXTREME = 2.0 ** 110
FLOAT32_MAX = 3.4028234663852886e38
FLOAT_REASON_KEY = "vpu_inspector_float_reason"   # node.meta of an op the VPU quantizer left in float


def is_extreme(value: float) -> bool:
    """|value| ≥ EXTREME, or inf / NaN."""
    return not math.isfinite(value) or abs(value) >= EXTREME


def value_text(value: float) -> str:
    """"-3.4e+38 (float32's lowest value: a mask constant)", "-inf (a mask constant)"."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return f"{'-' if value < 0 else ''}inf (a mask constant)"
    limit = abs(value) >= FLOAT32_MAX * (1 - 1e-6)
    what = ("float32's lowest value" if value < 0 else "float32's largest value") if limit \
        else "near float32's limit"
    return f"{value:.2g} ({what}: a mask constant)"


def float_reason(op: str, holder: str, value: float) -> str:
    """Why the VPU quantizer left `op` in float (the CPU node's reason, cause "float"); `holder`
    says what holds the value ("it reads where_1, which", "its output")."""
    return (f"{op} was left in float by the quantizer: {holder} reaches {value_text(value)}; no "
            "int8 scale represents that beside values of ordinary size (they would all quantize "
            "to 0), so the VPU, which computes int8 only, cannot run it")


def scale_notes(g: QGraph) -> tuple[Note, ...]:
    """A note for every activation / weight quantized with a scale whose int8 grid reaches
    EXTREME (or a non-finite scale): what it holds, and what its values of ordinary size become."""
    out = []
    for t in g.tensors:
        qp = t.qp
        if t.kind == "bias" or not qp.scales:
            continue
        bad = [(c, s) for c, s in enumerate(qp.scales) if not (math.isfinite(s) and s > 0)
               or s * max(abs(qp.quant_min), abs(qp.quant_max)) >= EXTREME]
        if not bad:
            continue
        channel, scale = bad[0]
        zp = qp.zero_points[channel] if channel < len(qp.zero_points) else 0
        reach = max(abs((qp.quant_min - zp) * scale), abs((qp.quant_max - zp) * scale))
        where = f"the output of {t.related}" if t.kind == "activation" else f"the weight of {t.related}"
        zero = f"every value below {scale / 2:.2g} in magnitude quantizes to 0" \
            if math.isfinite(scale) and scale > 0 else "no value quantizes to a number"
        message = (f"{qp.node.name} ({where}) has scale {scale:.3g}: its int8 grid reaches "
                   f"{reach:.2g}, so the tensor holds values at float32's limit (a mask constant "
                   f"such as finfo.min, or inf) and {zero}")
        out.append(Note("extreme_scale", qp.node.name, message,
                        (("scale", scale), ("related", t.related), ("channels", len(bad)))))
    return tuple(out)

"""Notes: what a user must know about a run that is no rule violation (Analysis.notes, JSON
`notes`, the text report, one line each on the command line's stderr).

- "kept_float": an op the VPU quantizer left in float because it would quantize a mask constant
  (vpu_core.pipeline.keep_float; the same sentence is the CPU node's reason);
- "extreme_scale": a tensor quantized anyway with a scale whose int8 grid reaches float32's
  limit (vpu_core.analysis.extreme: XNNPACK's 1.3e36 on a mask, a loaded program's inf);
- "calibration": a calibration input that is zero in every sample — its observers measured no
  range, so the scales it reaches are the observers' floor, not the data's.
"""
from __future__ import annotations

from typing import Sequence

import torch

from vpu_core.analysis.extreme import FLOAT_REASON_KEY, scale_notes
from vpu_core.analysis.qgraph import QGraph
from vpu_core.analysis.results import Note


def run_notes(g: QGraph, calib_batches: Sequence[tuple], input_names: Sequence[str]) -> tuple[Note, ...]:
    """Every note of one run, in the order above. `calib_batches` are the batches the observers
    saw (QuantizedModel.calib_batches), `input_names` the graph's inputs in the same order."""
    kept = tuple(Note("kept_float", n.name, f"{n.name}: {n.meta[FLOAT_REASON_KEY]}") for n in g.nodes
                 if isinstance(n.meta.get(FLOAT_REASON_KEY), str))
    return kept + scale_notes(g) + calibration_notes(g, calib_batches, input_names)


def calibration_notes(g: QGraph, batches: Sequence[tuple], names: Sequence[str]) -> tuple[Note, ...]:
    """A note per floating-point input that is exactly zero in every calibration batch (a mask or
    an unused input: its range says nothing), with the scale its own quantize got (the observers' floor, not a measured range)."""
    if not batches:
        return ()
    input_scales = {t.related: t.qp.scales[0] for t in g.tensors
                    if t.kind == "activation" and len(t.qp.scales) == 1}
    out = []
    for i, name in enumerate(names):
        values = [b[i] for b in batches if i < len(b)]
        if not values or not all(isinstance(t, torch.Tensor) and t.is_floating_point() for t in values) \
                or any(bool(t.any()) for t in values):
            continue
        samples = sum(int(t.shape[0]) if t.dim() else 1 for t in values)
        scale = input_scales.get(name)
        got = f" (it was quantized with scale {scale:.3g})" if scale is not None else ""
        out.append(Note("calibration", name, (
            f"calibration input {name} is zero in all {samples} calibration sample(s): the "
            f"observers saw no range, so the scales of the tensors it reaches are their floor, "
            f"not measured{got}; calibrate with representative data"),
            (("input", name), ("samples", samples), ("scale", scale))))
    return tuple(out)

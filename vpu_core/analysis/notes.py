"""Notes: what a user must know about a run that is no rule violation (Analysis.notes, JSON
`notes`, the text report, one line each on the command line's stderr).

- "kept_float": an op the VPU quantizer left in float because it would quantize a mask constant
  (vpu_core.pipeline.keep_float; the same sentence is the CPU node's reason);
- "extreme_scale": a tensor quantized anyway with a scale whose int8 grid reaches float32's
  limit (vpu_core.analysis.extreme: XNNPACK's 1.3e36 on a mask, a loaded program's inf).
"""
from __future__ import annotations

from typing import Sequence

from vpu_core.analysis.extreme import FLOAT_REASON_KEY, scale_notes
from vpu_core.analysis.qgraph import QGraph
from vpu_core.analysis.results import Note


def run_notes(g: QGraph, calib_batches: Sequence[tuple], input_names: Sequence[str]) -> tuple[Note, ...]:
    """Every note of one run, in the order above."""
    kept = tuple(Note("kept_float", n.name, f"{n.name}: {n.meta[FLOAT_REASON_KEY]}") for n in g.nodes
                 if isinstance(n.meta.get(FLOAT_REASON_KEY), str))
    return kept + scale_notes(g)

"""Integer simulation: what the VPU would actually compute, layer by layer (`check --int-sim`).

    report = simulate(qm)      # qm: a QuantizedModel; report: IntSimReport (plain numbers)

The Q/DQ graph is a float emulation; the VPU computes in integers. This package runs the VPU
partitions of the converted graph in integers — int8 × int8 products accumulated exactly (int64,
saturated at the profile's accumulator width), the int32 bias added, a right shift by n with the
profile's rounding, saturation to int8, relu / relu6 as clamps, add / cat / pooling on shared
scales, average pooling's division as a shift (window 2^k) or the profile's rule — while the CPU
fallback runs in float exactly as the graph says. It then compares every VPU layer's int8 output
with the Q/DQ graph's (in LSBs) and the end result with the float model (SQNR).

Modules: arith (shifts, rounding, saturation, exact sums, zero-point expansion), values (IntValue),
weighted (conv, linear), kernels (the other ops), executor (one pass over the graph), prereq (why
a graph cannot be simulated), compare (the layer-by-layer comparison), results (dataclasses).
Importing this package does not import torch; `simulate` does.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from vpu_core.intsim.results import IntSimReport
    from vpu_core.pipeline import QuantizedModel

ProgressFn = Callable[[str, float], None]


def simulate(qm: QuantizedModel, progress: ProgressFn | None = None) -> IntSimReport:
    """IntSimReport of a QuantizedModel on its held-aside batches (refusal as data, never raised)."""
    from vpu_core.intsim.compare import simulate_graph

    return simulate_graph(qm.converted, qm.profile, qm.heldout_calls, qm.float_graph, progress)


__all__ = ["simulate"]

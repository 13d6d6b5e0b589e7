"""What integer simulation reports: small frozen dataclasses of plain numbers (no torch).

The GUI, the text / JSON / HTML reports read these; all formatting happens there.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class IntSimLayer:
    """One VPU layer: the op whose output the VPU requantizes, compared at that quantize node.

    Differences are integer-simulated int8 minus the Q/DQ graph's int8, in LSBs of the output.
    "local": the layer fed with the Q/DQ graph's own int8 inputs (its own error, isolated);
    "drift": the free-running integer pipeline at the same point (errors of earlier layers included).
    """

    node: str                             # the op (conv2d, linear, add, avg_pool2d, …)
    op: str                               # "conv2d.default"
    nodes: tuple[str, ...]                # op, its fused activation (if any), the quantize node
    elements: int                         # output elements compared (every held-aside batch)
    max_abs_lsb: int
    mismatch_frac: float                  # share of elements that differ (local)
    saturated: int                        # accumulator saturations (sums beyond accumulator_bits)
    clipped: int                          # outputs clamped to the int8 range (as the Q/DQ graph does)
    diff_hist: tuple[tuple[int, int], ...]   # (difference in LSB, count), local
    drift_max_lsb: int
    drift_mismatch_frac: float
    drift_hist: tuple[tuple[int, int], ...]
    window: int = 0                       # average pooling: values per window (max over outputs)
    flags: tuple[str, ...] = ()           # "non_pow2_window" (divided by the profile's rule),
                                          # "float" (no integer kernel: ran in float as the graph says)


@dataclass(frozen=True)
class IntSimReport:
    """Integer simulation of the VPU partitions on the held-aside batches, or why it was refused."""

    rounding: str                         # the profile's shift rounding
    accumulator_bits: int
    avg_pool_divisor: str
    reciprocal_bits: int
    layers: tuple[IntSimLayer, ...] = ()
    sqnr_db: float | None = None          # integer result vs the float model (end to end)
    sqnr_vs_qdq_db: float | None = None   # integer result vs the Q/DQ graph (None when identical)
    outputs_identical: bool = False       # the integer result equals the Q/DQ graph's, bit for bit
    qdq_sqnr_db: float | None = None      # Q/DQ graph vs the float model (same batch, for reference)
    float_ops: tuple[str, ...] = ()       # VPU nodes with no integer kernel (ran in float)
    refused: str | None = None            # one sentence: why the graph cannot be simulated
    refused_rule: str | None = None       # the rule id named in it
    refused_node: str | None = None
    seconds: float = 0.0
    samples: int = 1                      # samples of the held-aside batches its figures rest on

    @property
    def max_abs_lsb(self) -> int:
        return max((la.max_abs_lsb for la in self.layers), default=0)

    @property
    def saturated(self) -> int:
        return sum(la.saturated for la in self.layers)

    def layer_of(self, node: str) -> IntSimLayer | None:
        """The layer a graph node belongs to (its op, fused activation or quantize)."""
        return next((la for la in self.layers if node in la.nodes), None)

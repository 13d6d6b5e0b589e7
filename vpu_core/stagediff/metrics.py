"""The numbers of a stage diff: per node and pair of stages, energies summed over the calls.

For a reference value r and a tested value t of one node (the float value and the Q/DQ graph's,
say), summed over every element of every held-aside call:
    signal Σr², noise Σ(r−t)², Σr·t and Σt² (cosine), max |r−t|, the count, and r's range.
SQNR = 10·log10(signal / noise) as vpu_core.analysis.sqnr; None when noise is 0 (identical).

The error a transition *adds* at a node (`added`): its noise minus what it inherits, where the
inherited part keeps the worst noise-to-signal ratio among the node's matched inputs (a linear
op, a view, a pooling or an activation passes an input's relative error on, roughly unchanged):
    A = max(0, noise − signal · max_i(noise_i / signal_i)),   added_db = 10·log10(signal / A).

The criterion for the first divergent op compares an error with the noise one rounding step
explains, Δ²/12 per element, with Δ the step an int8 grid (the node's own scheme: its quant_min/max,
symmetric or not, a power of two when its scale is one) would take to cover the reference's
observed range. Float → Q/DQ, the error is that of the op's own output quantize alone: the op is
run on the float values of its inputs with its quantized weights, and its output before and after
its quantize → dequantize are compared where it lands inside the grid (clipping is the range's
error, not the step's; it is in added_db) (the weights' rounding is the weights' business; a head
whose logits cancel can lose 30 dB to it with a perfect output scale). Between later stages it is
the added error A above. A correct step gives a ratio near 1; above DIVERGES (16: 12 dB, four
times the RMS error of one step) it is out of line: a scale several times too coarse, a saturated
range, a target computing something else. The first op in graph order above it is the first
divergent op.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import torch

DIVERGES = 16.0


class PairSum:
    """One node, one (reference, tested) pair of stages, summed over the calls."""

    __slots__ = ("signal", "noise", "dot", "test", "max_abs", "count", "low", "high")

    def __init__(self) -> None:
        self.signal = self.noise = self.dot = self.test = self.max_abs = 0.0
        self.count = 0
        self.low, self.high = math.inf, -math.inf

    def add(self, ref: torch.Tensor, test: torch.Tensor) -> None:
        r = ref.detach().reshape(-1).double()
        t = test.detach().reshape(-1).double()
        if not r.numel() or r.shape != t.shape:
            return
        d = r - t
        both = torch.stack((r, t))
        gram = both @ both.T                  # Σr², Σr·t, Σt² in one product (few calls: each costs)
        low_d, high_d = torch.aminmax(d)
        self.signal += float(gram[0, 0])
        self.noise += float(torch.dot(d, d))
        self.dot += float(gram[0, 1])
        self.test += float(gram[1, 1])
        self.max_abs = max(self.max_abs, -float(low_d), float(high_d))
        self.count += r.numel()
        low, high = torch.aminmax(r)
        self.low, self.high = min(self.low, float(low)), max(self.high, float(high))

    @property
    def valid(self) -> bool:
        return self.count > 0 and math.isfinite(self.signal) and math.isfinite(self.noise)

    @property
    def nsr(self) -> float:
        """Noise over signal (0 for a silent reference: it can pass no relative error on)."""
        return self.noise / self.signal if self.signal > 0 else 0.0

    def sqnr_db(self) -> float | None:
        if not self.valid or self.noise <= 0 or self.signal <= 0:
            return None
        return 10.0 * math.log10(self.signal / self.noise)

    def cosine(self) -> float | None:
        if not self.valid or self.signal <= 0 or self.test <= 0:
            return None
        return max(-1.0, min(1.0, self.dot / math.sqrt(self.signal * self.test)))


@dataclass(frozen=True)
class Step:
    """A node's output quantization: one LSB (None: no quantize after the node) and the grid's scheme."""

    scale: float | None = None
    levels: int = 255
    symmetric: bool = False
    pow2: bool = False

    @classmethod
    def of(cls, scale: float, zero_point: int, quant_min: int, quant_max: int) -> Step:
        return cls(scale, max(quant_max - quant_min, 1), zero_point == 0 and quant_min < 0,
                   scale > 0 and math.log2(scale).is_integer())

    def fitting(self, low: float, high: float) -> float:
        """The step this scheme would take to cover [low, high] (and 0, as PT2E's observers do);
        a node without a quantize is held to an asymmetric int8 grid."""
        if self.symmetric:
            step = 2.0 * max(abs(low), abs(high)) / self.levels
        else:
            step = (max(high, 0.0) - min(low, 0.0)) / self.levels
        if self.pow2 and step > 0:
            step = 2.0 ** math.ceil(math.log2(step))
        return step


@dataclass(frozen=True)
class Added:
    noise: float          # the added noise energy A (summed over the elements)
    db: float | None      # 10·log10(signal / A); None when nothing is added
    ratio: float | None   # A per element over Δ²/12 of the fitting step (None: no range)
    step: float           # that Δ


def added(pair: PairSum, inherited_nsr: float, step: Step | None) -> Added:
    """The error `pair`'s tested stage adds at this node (see the module docstring)."""
    noise = max(0.0, pair.noise - pair.signal * inherited_nsr)
    db = 10.0 * math.log10(pair.signal / noise) if noise > 0 and pair.signal > 0 else None
    delta = (step or Step()).fitting(pair.low, pair.high) if pair.count else 0.0
    ratio = (noise / pair.count) / (delta * delta / 12.0) if delta > 0 and pair.count else None
    return Added(noise, db, ratio, delta)

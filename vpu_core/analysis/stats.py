"""Scale statistics: qparams of every quantized tensor, and the histograms the views plot.

For the VPU quantizer the pow2 observers remember the float scale they rounded up
(QuantizedModel.observer_scales); log2(pow2 / float) ∈ [0, 1) is the resolution that rounding
cost (1 = twice as coarse).
"""
from __future__ import annotations

from typing import Sequence

import math

import numpy as np

from vpu_core.analysis.qgraph import QGraph, QTensor
from vpu_core.analysis.results import Histogram, RequantSite, TensorQParams


def _float_scales(t: QTensor, observers: list[dict]) -> tuple[float, ...]:
    """The observer's float scale for this tensor: activations by the observed producer, weights by
    the op consuming the observed get_attr (convert folds the weight, the consumer stays)."""
    n = len(t.qp.scales)
    for obs in observers:
        if t.kind == "activation":
            hit = obs["producer"] == t.related and obs.get("producer_op") != "get_attr"
        elif t.kind == "weight":
            hit = obs.get("producer_op") == "get_attr" and t.related in obs.get("consumers", ())
        else:
            hit = False  # bias scales are derived (s_in·s_w), never rounded on their own
        if hit and len(obs["float_scale"]) == n:
            return tuple(float(s) for s in obs["float_scale"])
    return ()


def tensor_qparams(g: QGraph, observers: list[dict] | None = None) -> tuple[TensorQParams, ...]:
    observers = observers or []
    return tuple(TensorQParams(
        node=t.qp.node.name, kind=t.kind, dtype=t.qp.dtype_text, scales=t.qp.scales,
        zero_points=t.qp.zero_points, consumer=t.related, float_scales=_float_scales(t, observers),
    ) for t in g.tensors)


def histogram(values: Sequence[float] | np.ndarray, edges: Sequence[float] | np.ndarray) -> Histogram:
    counts, bins = np.histogram(np.asarray(values, dtype=np.float64), bins=edges)
    return Histogram(tuple(float(e) for e in bins), tuple(int(c) for c in counts))


def integer_histogram(values: list[float]) -> Histogram:
    """Unit bins centred on the integers (bin k counts values nearest to k)."""
    if not values:
        return Histogram((-0.5, 0.5), (0,))
    lo, hi = math.floor(min(values) + 0.5), math.floor(max(values) + 0.5)
    return histogram(values, np.arange(lo - 0.5, hi + 1.0, 1.0))


def _usable(s: float) -> bool:
    """A scale a histogram can place: finite and positive (inf / NaN / 0 are notes, not bars)."""
    return math.isfinite(s) and s > 0


def _log2(scales) -> list[float]:
    return [math.log2(s) for s in scales if _usable(s)]


def resolution_loss(tensors: tuple[TensorQParams, ...]) -> list[float]:
    """log2(pow2 scale / float scale) per scale entry that has a float scale."""
    return [math.log2(s / f) for t in tensors for s, f in zip(t.scales, t.float_scales)
            if _usable(s) and _usable(f)]


def histograms(tensors: tuple[TensorQParams, ...], requant: tuple[RequantSite, ...]) -> dict:
    """"shifts" counts the right shifts that exist (sites whose every M is exactly 2^-n);
    "shifts_nearest" the nearest n = round(-log2 M) of the sites where M is no power of two (a
    shift-only VPU cannot requantize those: XNNPACK's scales, a K ≠ 2^k average pool). Both have
    the same unit bins, so a plot can stack them."""
    act = [v for t in tensors if t.kind == "activation" for v in _log2(t.scales)]
    weight = [v for t in tensors if t.kind == "weight" for v in _log2(t.scales)]
    exact = [float(n) for site in requant if site.exact and site.shifts for n in site.shifts]
    nearest = [float(n) for site in requant if not site.exact for n in site.nearest_shifts]
    both = integer_histogram(exact + nearest)
    return {
        "log2_scale_activation": integer_histogram(act),
        "log2_scale_weight": integer_histogram(weight),
        "shifts": histogram(exact, both.edges),
        "shifts_nearest": histogram(nearest, both.edges),
        "pow2_resolution_loss": histogram(resolution_loss(tensors), np.linspace(0.0, 1.0, 11)),
    }

"""Per-node metrics the canvas can colour ops by: numbers the analysis already has.

    values = node_metrics(analysis)         # {"sqnr": {"conv2d": 38.1, …}, "pow2_loss": …}
    scale = MetricScale.of("sqnr", values["sqnr"].values())
    scale.fraction(38.1)                    # 0 = worst end of the gradient, 1 = best
    bar = metric_bar("sqnr", member_values, scale)   # a group's distribution and worst value

- sqnr            layer SQNR of the op's output against the float model (dB; higher is better)
- pow2_loss       resolution the power-of-two rounding of its scales cost, log2(s_pow2 / s_float)
                  in bits (0 = none, 1 = twice as coarse); an activation counts on its producer,
                  a weight on its consumer (VPU quantizer only: XNNPACK scales are not rounded)
- shift           largest requantization right-shift of the op (nearest, per channel)
- boundary_bytes  bytes the op's VPU/CPU boundary edges move
- measured_us     the node's time in the lowered program run on this CPU (check --run / the window's
                  Run ▸ Run on this CPU): its ETDump time + its share of its XNNPACK delegate's
                  overhead (vpu_core.targets.xnnpack); no values until a run
- npu_cycles      Vela's NPU cycles of the node under the Ethos-U target the graph is coloured by
                  (the compiler's estimate: vpu_core.targets.arm); no values under another colouring

Pure Python, no torch.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping

from vpu_core.graph.model import MetricBar

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.targets.results import TargetResult

N_BINS = 6
SQNR_CAP = 200.0        # vpu_core.analysis.sqnr caps at ±200 dB


@dataclass(frozen=True)
class MetricInfo:
    key: str
    title: str
    unit: str
    better: str | None          # "high", "low" or None (no good/bad direction)


METRICS = {m.key: m for m in (
    MetricInfo("sqnr", "Layer SQNR", "dB", "high"),
    MetricInfo("pow2_loss", "Pow2 rounding loss", "bit", "low"),
    MetricInfo("shift", "Requant shift", "", None),
    MetricInfo("boundary_bytes", "Boundary bytes", "B", "low"),
    MetricInfo("measured_us", "Measured on this CPU", "µs", "low"),
    MetricInfo("npu_cycles", "NPU cycles (Vela estimate)", "cycles", "low"),
)}


def node_metrics(analysis: Analysis, measured_us: Mapping[str, float] | None = None,
                 judged: TargetResult | None = None) -> dict[str, dict[str, float]]:
    """metric key -> {fx node name: value}; nodes without a value are absent. `measured_us`: each
    node's µs in a run on this CPU (RuntimeReport.op_us), the "measured µs" metric; `judged`: the
    target the graph is coloured by, whose estimate may add its own per-node metrics."""
    sqnr = {k: float(v) for k, v in analysis.layer_sqnr.items()
            if v is not None and math.isfinite(v)}
    loss: dict[str, float] = {}
    for t in analysis.tensors:
        pairs = [(s, f) for s, f in zip(t.scales, t.float_scales) if s > 0 and f > 0]
        if pairs and t.consumer:
            value = max(math.log2(s / f) for s, f in pairs)
            loss[t.consumer] = max(loss.get(t.consumer, 0.0), max(0.0, value))
    shift = {s.node: float(max(s.nearest_shifts)) for s in analysis.requant if s.nearest_shifts}
    nbytes: dict[str, float] = {}
    for b in analysis.partition.boundaries:
        for end in {_op_of(analysis, b.src), _op_of(analysis, b.dst)}:
            nbytes[end] = nbytes.get(end, 0.0) + b.bytes
    # an estimate with per-node metrics of its own (Vela's: {"npu_cycles": …}) adds them
    extra = getattr(judged.estimate, "node_metrics", None) if judged is not None else None
    npu = dict(extra().get("npu_cycles", {})) if extra is not None else {}
    return {"sqnr": sqnr, "pow2_loss": loss, "shift": shift, "boundary_bytes": nbytes,
            "measured_us": dict(measured_us or {}), "npu_cycles": npu}


def _op_of(analysis: Analysis, name: str) -> str:
    """The op a boundary end stands for: a quantize's producer, a dequantize's consumer."""
    for _ in range(4):
        info = analysis.nodes.get(name)
        if info is None or not info.op.startswith("quantized_decomposed."):
            return name
        nxt = info.inputs[:1] if "dequantize" not in info.op else info.outputs[:1]
        if not nxt:
            return name
        name = nxt[0]
    return name


@dataclass(frozen=True)
class MetricScale:
    """The range a metric's gradient spans, oriented so that fraction 0 is the worst end."""

    key: str
    lo: float
    hi: float

    @staticmethod
    def of(key: str, values: Iterable[float]) -> MetricScale:
        """The gradient's range: 5th to 95th percentile (a few outliers must not wash out
        everything else; they land on the end colours). SQNR values at the ±200 dB cap
        (bit-exact or all-zero outputs) say nothing about the spread and are left out."""
        vals = sorted(v for v in values if v is not None and math.isfinite(v)
                      and not (key == "sqnr" and abs(v) >= SQNR_CAP))
        if not vals:
            lo, hi = 0.0, 1.0
        elif len(vals) >= 20:
            lo, hi = vals[int(0.05 * (len(vals) - 1))], vals[int(round(0.95 * (len(vals) - 1)))]
        else:
            lo, hi = vals[0], vals[-1]
        if key == "pow2_loss":
            lo, hi = 0.0, 1.0                       # the loss is bounded: show it on [0, 1]
        return MetricScale(key, lo, hi if hi > lo else lo + 1.0)

    def fraction(self, value: float) -> float:
        """0..1 along the gradient, 0 at the worst end (the low end for a neutral metric)."""
        f = min(1.0, max(0.0, (value - self.lo) / (self.hi - self.lo)))
        return 1.0 - f if METRICS[self.key].better == "low" else f

    def worst(self, values: Iterable[float]) -> float | None:
        vals = list(values)
        if not vals:
            return None
        return max(vals) if METRICS[self.key].better in ("low", None) else min(vals)


@dataclass(frozen=True)
class MetricRange:
    """What a metric legend states: the gradient's ends, how many values lie beyond them (drawn
    in the end colours), and the true worst and best values."""

    key: str
    scale: MetricScale
    count: int                  # ops with a finite value
    worst: float | None         # the true worst value (SQNR: the lowest, cap included)
    best: float | None
    beyond_worst: int           # values past the gradient's worst end
    beyond_best: int
    percentiles: bool           # the ends are the 5th / 95th percentile (20 values or more)

    @property
    def clipped(self) -> bool:
        return bool(self.beyond_worst or self.beyond_best)

    @property
    def low_end_worst(self) -> bool:
        """The gradient's worst end is its low value (every metric but a "lower is better" one)."""
        return METRICS[self.key].better != "low"

    @property
    def ends(self) -> tuple[float, float]:
        """(value at the worst end, value at the best end) of the gradient."""
        lo, hi = self.scale.lo, self.scale.hi
        return (lo, hi) if self.low_end_worst else (hi, lo)


def metric_range(key: str, values: Iterable[float]) -> MetricRange:
    """The MetricRange of `values` on MetricScale.of(key, values)."""
    vals = [v for v in values if v is not None and math.isfinite(v)]
    scale = MetricScale.of(key, vals)
    below = sum(1 for v in vals if v < scale.lo)
    above = sum(1 for v in vals if v > scale.hi)
    low_worst = METRICS[key].better != "low"           # "high" is better, or neutral: low end first
    worst = scale.worst(vals)
    best = (max(vals) if low_worst else min(vals)) if vals else None
    scored = [v for v in vals if not (key == "sqnr" and abs(v) >= SQNR_CAP)]
    return MetricRange(key, scale, len(vals), worst, best,
                       below if low_worst else above, above if low_worst else below,
                       len(scored) >= 20 and key != "pow2_loss")


def metric_bar(key: str, values: Iterable[float], scale: MetricScale, bins: int = N_BINS) -> MetricBar:
    vals = [v for v in values if v is not None and math.isfinite(v)]
    counts = [0] * bins
    for v in vals:
        counts[min(bins - 1, int(scale.fraction(v) * bins))] += 1
    return MetricBar(key, tuple(counts), scale.worst(vals))

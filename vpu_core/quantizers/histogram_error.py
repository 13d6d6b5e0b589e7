"""HistogramObserver's quantization error for many candidate (start_bin, end_bin) pairs at once.

`QuantizationErrors(obs).of(starts, ends)[k]` equals `obs._compute_quantization_error(starts[k],
ends[k])` bit for bit (torchao 0.18; the tests compare them):

* Same ops, same operands. The stock function is replayed op for op, with the per-candidate
  Python floats (dst_bin_width and its halves) as (K, 1) float32 columns: torch casts a Python
  float operand of a float32 op to float32 in the same way, so each element is the same float32
  operation on the same operands, whatever the batch.
* Empty bins. An empty bin has density 0, so its norm element is ±0 whatever the rest of the
  formula gives, as long as that is finite (`_zero_bins_are_zero` checks the range). Only the
  other bins are computed; each row is scattered back into a row of zeros before summing.
  ±0 at the same positions gives the same sum (up to the sign of an all-zero sum, which no
  comparison sees).
* Same sum. Every row is reduced like the stock `norm.sum()` reduces its one row: by one
  `sum(dim=1)` when that adds each row in the same order (`rowwise_sum_is_row_sum`, checked
  once), else row by row.
* Same threading. K rows × bins stays below torch's parallel grain size, so each op runs on one
  thread like the stock one (and no thread-pool overhead is paid).
"""
from __future__ import annotations

import functools
import math

import numpy as np
import torch
from torchao.quantization.pt2e.observer import HistogramObserver

_GRAIN = 32_768      # at::internal::GRAIN_SIZE: smaller tensors are processed on one thread
_MAX_BATCH = 64      # candidates evaluated ahead; those after the loop's break are wasted


class QuantizationErrors:
    """The error function of one observer's current histogram, evaluated in batches."""

    def __init__(self, obs: HistogramObserver) -> None:
        self.obs = obs
        self.bins = obs.bins
        self.bin_width = (obs.max_val.item() - obs.min_val.item()) / obs.bins
        self.max_batch = max(1, min(_MAX_BATCH, (_GRAIN - 1) // obs.bins))
        dev = obs.histogram.device
        self.src_bin = torch.arange(self.bins, device=dev)
        self.density = obs.histogram / self.bin_width
        self.used = obs.histogram != 0 if _zero_bins_are_zero(self.bin_width) else None
        if self.used is not None:
            cols = torch.nonzero(self.used).flatten()
            self.src_bin, self.density = self.src_bin[cols], self.density[cols]

    def of(self, starts: list[int], ends: list[int]) -> list[float]:
        obs, bin_width, dev = self.obs, self.bin_width, self.obs.histogram.device
        widths = [bin_width * (e - s + 1) / obs.dst_nbins for s, e in zip(starts, ends)]
        out = [0.0] * len(starts)
        rows = [i for i, w in enumerate(widths) if w != 0.0]      # the stock returns 0.0 for these
        if not rows:
            return out
        k = len(rows)
        # f32(dst_bin_width), f32(dst_bin_width / 2), f32(-dst_bin_width / 2): the stock's casts
        per_row = torch.tensor([[widths[i], widths[i] / 2, -widths[i] / 2] for i in rows], device=dev)
        w, half, neg_half = per_row[:, 0:1], per_row[:, 1:2], per_row[:, 2:3]
        start = torch.tensor([[starts[i]] for i in rows], device=dev)
        density, m = self.density, len(self.src_bin)

        src_bin_begin = (self.src_bin - start) * bin_width
        src_bin_end = src_bin_begin + bin_width
        dst_bin_of_begin = torch.clamp(torch.div(src_bin_begin, w, rounding_mode="floor"), 0, obs.dst_nbins - 1)
        dst_bin_of_begin_center = (dst_bin_of_begin + 0.5) * w
        dst_bin_of_end = torch.clamp(torch.div(src_bin_end, w, rounding_mode="floor"), 0, obs.dst_nbins - 1)

        norm = torch.zeros(k, m, device=dev)
        delta_begin = src_bin_begin - dst_bin_of_begin_center
        norm += obs._get_norm(delta_begin, half.expand(k, m), density)     # stock: ones(bins) * delta_end
        norm += (dst_bin_of_end - dst_bin_of_begin - 1) * obs._get_norm(neg_half, half, density)
        dst_bin_of_end_center = dst_bin_of_end * w + half
        norm += obs._get_norm(neg_half, src_bin_end - dst_bin_of_end_center, density)
        if self.used is not None:   # each row's values into its used bins, in bin order
            norm = torch.zeros(k, self.bins, device=dev).masked_scatter_(self.used.expand(k, self.bins), norm)
        if rowwise_sum_is_row_sum():
            sums = norm.sum(dim=1).tolist()
        else:
            sums = [norm[j].sum().item() for j in range(k)]
        for j, i in enumerate(rows):
            out[i] = sums[j]
        return out


def batched_errors(obs: HistogramObserver, starts: list[int], ends: list[int]) -> list[float]:
    """`obs._compute_quantization_error(s, e)` for every (s, e) pair."""
    return QuantizationErrors(obs).of(starts, ends)


def _zero_bins_are_zero(bin_width: float) -> bool:
    """True when an empty bin's norm element is exactly ±0 in the stock computation: its density
    0 / bin_width is 0 (bin_width a normal float32) and multiplies finite terms (the distances in
    the formula stay below ~4096 bin widths, far from float32 overflow when cubed)."""
    width32 = float(np.float32(bin_width))
    return math.isfinite(width32) and 1e-30 < width32 < 1e6


@functools.lru_cache(maxsize=1)
def rowwise_sum_is_row_sum() -> bool:
    """Does `m.sum(dim=1)` add each row in the same order as `row.sum()` (the stock `norm.sum()`)?

    Checked once on rows whose sum depends strongly on the order (magnitudes over 60 binades,
    both signs, zeros); if not bit-identical, rows are summed one by one.
    """
    gen = torch.Generator().manual_seed(12)
    rows = (torch.randn(15, 2048, generator=gen) * 20).exp() * torch.randn(15, 2048, generator=gen).sign()
    rows[:, ::7] = 0.0
    together = rows.sum(dim=1)
    return all(torch.equal(together[k], rows[k].clone().sum()) for k in range(rows.shape[0]))

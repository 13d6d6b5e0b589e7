"""Power-of-two observers (constraint 4).

The scale is rounded UP to 2^k: rounding up never clips more than the float scale would, at the
price of up to 2x coarser resolution. The float scale is kept on the observer (`float_scale`) so
the analysis can show that price.
"""
from __future__ import annotations

import torch
from torchao.quantization.pt2e.observer import MinMaxObserver, PerChannelMinMaxObserver

from vpu_core.quantizers.fast_observers import FastHistogramObserver


def round_up_pow2(scale: torch.Tensor) -> torch.Tensor:
    return torch.exp2(torch.ceil(torch.log2(scale.to(torch.float64)))).to(scale.dtype)


class Pow2MinMaxObserver(MinMaxObserver):
    """Per-tensor min/max observer whose scale is the next power of two."""

    def calculate_qparams(self) -> tuple[torch.Tensor, torch.Tensor]:
        scale, zero_point = super().calculate_qparams()
        self.float_scale = scale.detach().clone()
        return round_up_pow2(scale), zero_point


class Pow2PerChannelMinMaxObserver(PerChannelMinMaxObserver):
    """Per-channel min/max observer whose scales are each the next power of two."""

    def calculate_qparams(self) -> tuple[torch.Tensor, torch.Tensor]:
        scale, zero_point = super().calculate_qparams()
        self.float_scale = scale.detach().clone()
        return round_up_pow2(scale), zero_point


def pow2_candidates(scale: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The two powers of two around `scale`: 2^floor and 2^ceil of its log2."""
    log2 = torch.log2(scale.to(torch.float64))
    return torch.exp2(torch.floor(log2)).to(scale.dtype), torch.exp2(torch.ceil(log2)).to(scale.dtype)


class Pow2HistogramObserver(FastHistogramObserver):
    """Per-tensor symmetric histogram observer whose scale is a power of two: the histogram's
    least-error range (torchao's search), then of the two powers of two around its scale the one
    whose int8 grid has the smaller squared error over the histogram. Unlike Pow2MinMaxObserver
    it may round the scale down, clipping rare outliers when that costs less than a step twice as
    coarse."""

    def calculate_qparams(self) -> tuple[torch.Tensor, torch.Tensor]:
        scale, zero_point = super().calculate_qparams()
        self.float_scale = scale.detach().clone()
        if not bool(torch.isfinite(scale).all()) or float(scale.max()) <= 0:
            return round_up_pow2(scale), zero_point
        low, high = pow2_candidates(scale)
        best = low if self._grid_error(low) < self._grid_error(high) else high
        return best, zero_point

    def _grid_error(self, scale: torch.Tensor) -> float:
        """Σ count · (bin centre − its value on the int8 grid of `scale`)², zero point 0."""
        width = (self.max_val - self.min_val) / self.bins
        centres = self.min_val + width * (torch.arange(self.bins, dtype=torch.float64) + 0.5)
        s = float(scale.reshape(-1)[0])
        grid = torch.clamp(torch.round(centres / s), self.quant_min, self.quant_max) * s
        return float((self.histogram.to(torch.float64) * (centres - grid) ** 2).sum())

"""Power-of-two observers (constraint 4).

The scale is rounded UP to 2^k: rounding up never clips more than the float scale would, at the
price of up to 2x coarser resolution. The float scale is kept on the observer (`float_scale`) so
the analysis can show that price.
"""
from __future__ import annotations

import torch
from torchao.quantization.pt2e.observer import MinMaxObserver, PerChannelMinMaxObserver


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

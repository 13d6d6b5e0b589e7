"""Integer arithmetic of the VPU: rounding right shifts, saturation, exact sums, the zero-point expansion.

Every function takes and returns int64 tensors (or Python ints); nothing here knows about graphs.

Exactness of the sums. Products and window sums run through torch's float kernels (conv,
linear, avg_pool; torch has no integer conv on the CPU) on integer-valued tensors and are turned
back into int64. That is exact whenever the bound B = K · max|a| · max|b| (K products per output)
stays below 2^p, p the float's significand (24 for float32, 53 for float64): every product, every
partial sum of any order or blocking, every fused multiply-add is then an integer below 2^p, which
the float represents exactly, so nothing is ever rounded. `exact_sum` uses float32 (fast) when
B < 2^24; otherwise it cuts the reduction into chunks that each stay below 2^24 and adds the
chunks in int64; what cannot be cut (a grouped conv) runs in float64, exact up to 2^53 (K < 2^39
int8 products). NNPACK (Winograd / FFT convolutions, not exact) is switched off for these sums;
oneDNN's direct convolution and BLAS GEMMs only multiply and add.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable

import torch

from vpu_core.profile import ROUNDING_MODES

_FLOAT32_EXACT, _FLOAT64_EXACT = 2 ** 24, 2 ** 53


def shift_round(acc: torch.Tensor, n: torch.Tensor | int, mode: str) -> torch.Tensor:
    """acc · 2^-n rounded to an integer the way the hardware's right shift rounds.

    `n` is an int or an int64 tensor broadcasting against `acc` (one shift per output channel).
    round_half_up:   (acc + 2^(n-1)) >> n  — ties go towards +infinity (2.5 → 3, -2.5 → -2)
    round_half_even: ties go to the even neighbour (2.5 → 2, 3.5 → 4, -2.5 → -2), like torch.round
    truncate:        acc >> n, an arithmetic shift: floor (2.5 → 2, -2.5 → -3)
    n ≤ 0 is an exact left shift by -n (a multiplier M = 2^-n ≥ 1).
    """
    if mode not in ROUNDING_MODES:
        raise ValueError(f"unknown rounding mode {mode!r}")
    n = torch.as_tensor(n, dtype=torch.int64)
    right = n.clamp(0, 62)
    left = (-n).clamp(0, 62)
    # 2^(n-1) where n > 0, else 0 (no fractional bits, nothing to round)
    half = torch.where(right > 0, torch.bitwise_left_shift(torch.ones_like(right), (right - 1).clamp(min=0)),
                       torch.zeros_like(right))
    if mode == "truncate":
        out = torch.bitwise_right_shift(acc, right)
    elif mode == "round_half_up":
        out = torch.bitwise_right_shift(acc + half, right)
    else:
        floor = torch.bitwise_right_shift(acc, right)
        rem = acc - torch.bitwise_left_shift(floor, right)          # 0 ≤ rem < 2^n
        up = (rem > half) | ((rem == half) & (right > 0) & (floor % 2 == 1))
        out = floor + up.to(torch.int64)
    return torch.bitwise_left_shift(out, left) if bool(left.any()) else out


def round_fraction(value: Fraction, mode: str) -> int:
    """A rational number rounded by `mode` (used for compile-time constants such as clamp bounds)."""
    floor = value.numerator // value.denominator
    rem = value - floor
    if mode == "truncate" or rem < Fraction(1, 2):
        return floor
    if rem > Fraction(1, 2) or mode == "round_half_up":
        return floor + 1
    return floor + (floor % 2)                                        # half to even


def acc_range(bits: int) -> tuple[int, int]:
    """Range of a signed two's-complement accumulator of `bits` bits."""
    return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1


def saturate(x: torch.Tensor, lo: int, hi: int) -> tuple[torch.Tensor, int]:
    """x clamped to [lo, hi] and the number of elements that were outside."""
    if not x.numel():
        return x, 0
    low, high = torch.aminmax(x)
    if int(low) >= lo and int(high) <= hi:
        return x, 0
    return x.clamp(lo, hi), int(((x < lo) | (x > hi)).sum())


def exact_sum(fn: Callable[..., torch.Tensor], a: torch.Tensor, b: torch.Tensor, *, terms: int,
              split: tuple[int, int, int] | None = None, a_max: int | None = None,
              b_max: int | None = None) -> torch.Tensor:
    """fn(a, b) — a sum of `terms` products per output (conv, linear) — exactly, as int64.

    `split` = (dim of a, dim of b, products per index of that dim) names the reduction dimension
    along which the sum may be cut into chunks (input channels of a conv, features of a linear).
    `a_max` / `b_max` bound |a| / |b| when known (an int8 range), saving a pass over the data.
    """
    a_max = _abs_max(a) if a_max is None else a_max
    b_max = _abs_max(b) if b_max is None else b_max
    mags = max(a_max, 1) * max(b_max, 1)
    if terms * mags < _FLOAT32_EXACT:
        return _run(fn, a, b, torch.float32)
    if split is not None:
        dim_a, dim_b, per_index = split
        step = _FLOAT32_EXACT // (mags * per_index + 1)
        if step >= 1:
            size = a.shape[dim_a]
            return sum(_run(fn, a.narrow(dim_a, i, min(step, size - i)),
                            b.narrow(dim_b, i, min(step, size - i)), torch.float32)
                       for i in range(0, size, step))
    if terms * mags >= _FLOAT64_EXACT:
        raise OverflowError(f"{terms} products of up to {mags} are not exact in float64")
    return _run(fn, a, b, torch.float64)


def exact_window_sum(fn: Callable[[torch.Tensor], torch.Tensor], a: torch.Tensor, *, terms: int) -> torch.Tensor:
    """fn(a) — a sum of `terms` values of a per output (a pooling window) — exactly, as int64."""
    bound = terms * max(_abs_max(a), 1)     # one pass; the sums themselves are the expensive part
    if bound >= _FLOAT64_EXACT:
        raise OverflowError(f"a window of {terms} values up to {_abs_max(a)} is not exact in float64")
    dtype = torch.float32 if bound < _FLOAT32_EXACT else torch.float64
    return fn(a.to(dtype)).to(torch.int64)


def _run(fn, a: torch.Tensor, b: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    with torch.backends.nnpack.flags(enabled=False):
        out = fn(a.to(dtype), b.to(dtype))
    return out.to(torch.int64)        # already an exact integer: the conversion drops nothing


def _abs_max(t: torch.Tensor) -> int:
    if not t.numel():
        return 0
    low, high = torch.aminmax(t)
    return max(-int(low), int(high))


def zero_point_expansion(products: torch.Tensor, x_sums: torch.Tensor | int, w_sums: torch.Tensor,
                         z_x: int, z_w: torch.Tensor, terms: int) -> torch.Tensor:
    """Σ(q_x − z_x)(q_w − z_w) = Σq_x·q_w − z_w·Σq_x − z_x·Σq_w + z_x·z_w·K   (the seed's eq. 1)

    `products` = Σq_x·q_w per output, `x_sums` = Σq_x over the same window (only needed when some
    z_w ≠ 0: it is the per-position cross term the hardware would have to accumulate at run time),
    `w_sums` = Σq_w per output channel and K = `terms` per output. z_x·Σq_w and z_x·z_w·K are
    constants per channel: a compiler folds them into the bias.
    """
    folded_into_bias = z_x * w_sums - z_x * z_w * terms
    return products - z_w * x_sums - folded_into_bias

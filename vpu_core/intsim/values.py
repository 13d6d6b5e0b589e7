"""The values that flow through a VPU subgraph in integer simulation.

An `IntValue` is an int64 tensor plus what it means in real numbers: value = (data − zp) · 2^exp.
Two kinds flow:
- a quantized tensor (what a quantize node produces: int8 storage, one scalar exponent, a zero
  point, a range [qmin, qmax]); the VPU passes these between layers;
- an accumulator (conv / linear / add / pool sums before requantization): zp 0, no range, and an
  exponent that may differ per output channel (s_in·s_w[c]) or per element (pool windows).
A relu / relu6 directly on an accumulator is kept as a pending clamp (`lo`, `hi` in real units)
that the requantization applies in the output domain: the hardware's fused activation.
"""
from __future__ import annotations

from typing import Any, Callable

import math
from dataclasses import dataclass, replace
from fractions import Fraction

import torch


class NotInteger(Exception):
    """This op, on these inputs, has no integer implementation: run it in float as the graph says."""


@dataclass(frozen=True)
class IntValue:
    data: torch.Tensor                     # int64
    exp: int | torch.Tensor                # value = (data - zp) * 2**exp; a tensor broadcasts on data
    zp: int = 0
    qmin: int | None = None                # quantized tensors only: the storage range …
    qmax: int | None = None
    dtype: torch.dtype | None = None       # … and dtype (int8)
    lo: float | None = None                # pending activation clamp, real units
    hi: float | None = None

    @property
    def quantized(self) -> bool:
        return self.qmin is not None

    def centered(self) -> torch.Tensor:
        return self.data - self.zp if self.zp else self.data

    def exp_tensor(self) -> torch.Tensor:
        return torch.as_tensor(self.exp, dtype=torch.int64)

    def to_float(self) -> torch.Tensor:
        """Its real value as float32, as the Q/DQ graph holds it (exact for powers of two)."""
        real = self.centered().to(torch.float64) * torch.exp2(self.exp_tensor().to(torch.float64))
        if self.lo is not None or self.hi is not None:
            real = real.clamp(self.lo, self.hi)
        return real.to(torch.float32)


def quantized_value(data: torch.Tensor, scale: float, zp: int, qmin: int, qmax: int,
                    dtype: torch.dtype) -> IntValue:
    return IntValue(data.to(torch.int64), log2_exact(scale), int(zp), qmin, qmax, dtype)


def accumulator(data: torch.Tensor, exp: int) -> IntValue:
    return IntValue(data, exp)


def log2_exact(scale: float) -> int:
    k = round(math.log2(scale))
    if 2.0 ** k != scale:
        raise NotInteger(f"scale {scale} is not a power of two")
    return k


def aligned(v: IntValue) -> tuple[torch.Tensor, int]:
    """(data, e) with value = data · 2^e for one scalar e: the finest exponent of v (exact)."""
    v = materialized(v)
    if isinstance(v.exp, int):
        return v.centered(), v.exp
    e = int(v.exp.min())
    return torch.bitwise_left_shift(v.centered(), v.exp - e), e


def materialized(v: IntValue) -> IntValue:
    """v with a pending clamp applied to its data (exact when the bounds lie on its grid)."""
    if v.lo is None and v.hi is None:
        return v
    data = v.centered()
    exps = v.exp_tensor()
    for bound, fn in ((v.lo, torch.maximum), (v.hi, torch.minimum)):
        if bound is None:
            continue
        limit = [Fraction(bound) / Fraction(2) ** int(e) for e in exps.flatten().tolist()]
        if any(x.denominator != 1 for x in limit):
            raise NotInteger(f"clamp bound {bound} is not on the integer grid 2^{exps.min()}")
        ints = torch.tensor([int(x) for x in limit], dtype=torch.int64).reshape(exps.shape)
        data = fn(data, ints)
    return replace(v, data=data, zp=0, qmin=None, qmax=None, dtype=None, lo=None, hi=None)


def with_clamp(v: IntValue, lo: float | None, hi: float | None) -> IntValue:
    """A relu / hardtanh on v: tighten its pending clamp (applied at requantization)."""
    new_lo = lo if v.lo is None else (v.lo if lo is None else max(v.lo, lo))
    new_hi = hi if v.hi is None else (v.hi if hi is None else min(v.hi, hi))
    return IntValue(v.centered(), v.exp, lo=new_lo, hi=new_hi)


def map_values(value: object, fn: Callable[[IntValue], object]) -> Any:
    """Apply fn to every IntValue in a (possibly nested) tuple / list."""
    if isinstance(value, IntValue):
        return fn(value)
    if isinstance(value, (tuple, list)):
        return type(value)(map_values(v, fn) for v in value)
    return value

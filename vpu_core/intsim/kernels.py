"""Integer kernels of the VPU op list besides conv / linear: requantization, fused activations,
add, cat, max / average pooling and layout ops.

Each kernel spec (vpu_core.hardware.kernels) names the function here that simulates it (the
executor's IMPLEMENTATIONS). Each kernel takes the executor (settings, constants, per-node records), the node, and its
arguments with IntValues for tensors; it raises NotInteger when the inputs are not integer
tensors (then the executor runs the op in float, as the graph says).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import math
from fractions import Fraction

import torch

from vpu_core.analysis.qgraph import QParams
from vpu_core.fx_utils import bound_args, op_name
from vpu_core.intsim.arith import exact_window_sum, round_fraction, saturate, shift_round
from vpu_core.intsim.values import IntValue, NotInteger, aligned, log2_exact, with_clamp

if TYPE_CHECKING:
    from torch.fx import Node
    from vpu_core.intsim.executor import IntExecutor


def requantize(ex: IntExecutor, node: Node, v: IntValue, qp: QParams) -> IntValue:
    """The quantize after a VPU op: shift by n = e_out − e_acc with the profile's rounding, add the
    output zero point, saturate to [qmin, qmax], then the fused activation's clamp."""
    e_out, z = log2_exact(qp.scales[0]), int(qp.zero_points[0])
    mode = ex.settings.rounding
    n = e_out - v.exp if isinstance(v.exp, int) else e_out - v.exp_tensor()
    out = shift_round(v.centered(), n, mode)
    if z:
        out = out + z
    out, clipped = saturate(out, qp.quant_min, qp.quant_max)
    ex.record(node, clipped=clipped)
    # clamp(round(y/s)) == round(clamp(y)/s) for a monotone rounding when the bound is rounded the
    # same way: the fused relu / relu6 needs no float at all.
    scale = Fraction(2) ** e_out
    lo = None if v.lo is None else round_fraction(Fraction(v.lo) / scale, mode) + z
    hi = None if v.hi is None else round_fraction(Fraction(v.hi) / scale, mode) + z
    if lo is not None or hi is not None:
        out = out.clamp(lo, hi)
    return IntValue(out, e_out, z, qp.quant_min, qp.quant_max, qp.dtype)


def relu(ex: IntExecutor, node: Node, args: tuple, kwargs: dict) -> IntValue:
    return with_clamp(_int(args[0]), 0.0, None)


def hardtanh(ex: IntExecutor, node: Node, args: tuple, kwargs: dict) -> IntValue:
    a = bound_args(node)
    return with_clamp(_int(args[0]), float(a.get("min_val", -1.0)), float(a.get("max_val", 1.0)))


def add(ex: IntExecutor, node: Node, args: tuple, kwargs: dict) -> IntValue:
    if not op_name(node).endswith(".Tensor"):
        raise NotInteger("add of a scalar")       # add.Scalar: the VPU adds two int8 tensors only
    a, b = _int(args[0]), _int(args[1])
    alpha = bound_args(node).get("alpha", 1)
    if not float(alpha).is_integer():
        raise NotInteger("add with a fractional alpha")
    (da, ea), (db, eb) = aligned(a), aligned(b)
    e = min(ea, eb)
    total = torch.bitwise_left_shift(da, ea - e) + int(alpha) * torch.bitwise_left_shift(db, eb - e)
    return IntValue(ex.accumulate(node, total), e)


def cat(ex: IntExecutor, node: Node, args: tuple, kwargs: dict) -> IntValue:
    values = [_int(v) for v in args[0]]
    dim = bound_args(node).get("dim", 0)
    first = values[0]
    same = all(v.quantized and v.exp == first.exp and v.zp == first.zp and
               (v.qmin, v.qmax) == (first.qmin, first.qmax) for v in values) and first.quantized
    if same:  # one shared scale: the VPU writes the inputs side by side, nothing is computed
        return IntValue(torch.cat([v.data for v in values], dim), first.exp, first.zp,
                        first.qmin, first.qmax, first.dtype)
    parts = [aligned(v) for v in values]
    e = min(p[1] for p in parts)
    return IntValue(torch.cat([torch.bitwise_left_shift(d, pe - e) for d, pe in parts], dim), e)


def max_pool(ex: IntExecutor, node: Node, args: tuple, kwargs: dict) -> object:
    v = _int(args[0])
    if v.quantized:       # max commutes with the (monotone) dequantization: work on the int8 data
        data, exp = v.data, v.exp
    else:
        data, exp = aligned(v)
    out = node.target(data.to(torch.float64), *args[1:], **kwargs)   # max of integers: exact
    if isinstance(out, (tuple, list)):                               # max_pool2d_with_indices
        return (_like(v, torch.round(out[0]).to(torch.int64), exp), *out[1:])
    return _like(v, torch.round(out).to(torch.int64), exp)


def avg_pool(ex: IntExecutor, node: Node, args: tuple, kwargs: dict) -> IntValue:
    """Window sums exactly (float64 with divisor 1), then division by the window size K per output."""
    data, exp = aligned(_int(args[0]))
    a = bound_args(node)
    call = [a[k] for k in ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad")
            if k in a]
    pool = node.target.overloadpacket.default

    def window_sum(x):
        return pool(x, *call, 1)            # divisor_override=1: the plain window sum

    terms = math.prod(_ints(a["kernel_size"]))
    ones = torch.ones_like(data, dtype=torch.float64)
    sums = exact_window_sum(window_sum, data, terms=terms)
    # the divisor torch uses per output: (non-padded count) / (average of ones)
    counts = window_sum(ones)
    divisor_override = a.get("divisor_override")
    if divisor_override:
        divisors = torch.full_like(sums, int(divisor_override))
    else:
        divisors = torch.round(counts / pool(ones, *call)).to(torch.int64)
    return divide_window(ex, node, sums, exp, divisors)


def adaptive_avg_pool(ex: IntExecutor, node: Node, args: tuple, kwargs: dict) -> IntValue:
    data, exp = aligned(_int(args[0]))
    out_size = _ints(bound_args(node)["output_size"])
    spatial = len(out_size)
    sizes = [_window_lengths(int(i), int(o)) for i, o in zip(data.shape[-spatial:], out_size)]
    divisors = sizes[0]
    for s in sizes[1:]:
        divisors = divisors[..., None] * s
    averages = node.target(data.to(torch.float64), *args[1:], **kwargs)
    # mean · K recovers the exact integer sum: |error| ≤ |sum|·2^-52, far below 0.5
    sums = torch.round(averages * divisors.to(torch.float64)).to(torch.int64)
    return divide_window(ex, node, sums, exp, divisors.expand_as(sums))


def divide_window(ex: IntExecutor, node: Node, sums: torch.Tensor, exp: int, divisors: torch.Tensor) -> IntValue:
    """Division by the window size K: K = 2^k is k more right-shift (exact); otherwise the
    profile's rule — a reciprocal multiplier round(2^b / K) and b more shift, or the nearest shift."""
    sums = ex.accumulate(node, sums)
    window = int(divisors.max())
    log2k = torch.log2(divisors.to(torch.float64))
    if bool((log2k == torch.round(log2k)).all()):
        ex.record(node, window=window)
        return IntValue(sums, exp - _scalar_or_tensor(torch.round(log2k).to(torch.int64)))
    ex.record(node, window=window, flag="non_pow2_window")
    if ex.settings.avg_pool_divisor == "nearest_shift":
        return IntValue(sums, exp - _scalar_or_tensor(torch.round(log2k).to(torch.int64)))
    bits = ex.settings.reciprocal_bits
    multiplier = (2 ** bits + divisors // 2) // divisors          # round(2^b / K), a compile-time constant
    return IntValue(ex.accumulate(node, sums * multiplier), exp - bits)


def layout(ex: IntExecutor, node: Node, args: tuple, kwargs: dict) -> object:
    """flatten / reshape / view / permute / …: move int values, compute nothing."""
    v = _int(args[0])
    out = node.target(v.data, *args[1:], **kwargs)
    exp = v.exp
    if not isinstance(exp, int) and exp.numel() > 1:   # per-channel exponents travel with the data
        exp = node.target(exp.expand_as(v.data).contiguous(), *args[1:], **kwargs)
    if isinstance(out, (tuple, list)):
        exps = exp if isinstance(exp, (tuple, list)) else [exp] * len(out)
        return tuple(_like(v, o, e) for o, e in zip(out, exps))
    return _like(v, out, exp)


def _like(v: IntValue, data: torch.Tensor, exp) -> IntValue:
    return IntValue(data, exp, v.zp, v.qmin, v.qmax, v.dtype, v.lo, v.hi)


def _int(value) -> IntValue:
    if not isinstance(value, IntValue):
        raise NotInteger("input is not an integer tensor")
    return value


def _ints(value) -> list[int]:
    return [int(v) for v in value] if isinstance(value, (list, tuple)) else [int(value)]


def _window_lengths(size: int, out: int) -> torch.Tensor:
    """Lengths of adaptive pooling windows: [floor(i·size/out), ceil((i+1)·size/out))."""
    return torch.tensor([-(-(i + 1) * size // out) - (i * size) // out for i in range(out)],
                        dtype=torch.int64)


def _scalar_or_tensor(t: torch.Tensor):
    return int(t.flatten()[0]) if bool((t == t.flatten()[0]).all()) else t

"""conv (1d/2d/3d, grouped, depthwise) and linear in integers: int8 × int8 → accumulator + int32 bias.

The accumulator of output channel c holds Σ(q_x − z_x)(q_w − z_w) + q_b at scale s_in·s_w[c],
computed as the hardware would, through the zero-point expansion (arith.zero_point_expansion):
with the VPU's symmetric quantization (z_x = z_w = 0) that is the plain Σq_x·q_w + q_b. Padding
pads with the input's zero point (a real 0), as the Q/DQ graph pads its float input with 0.
The sum then saturates at the profile's accumulator width.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import torch
import torch.nn.functional as F

from vpu_core.fx_utils import bound_args
from vpu_core.intsim.arith import exact_sum, zero_point_expansion
from vpu_core.intsim.values import IntValue, NotInteger

if TYPE_CHECKING:
    from torch.fx import Node
    from vpu_core.intsim.executor import IntExecutor

_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def conv(ex: IntExecutor, node: Node, args: tuple, kwargs: dict) -> IntValue:
    x = _int8_input(args[0])
    w = ex.constant_int(node.args[1])
    a = bound_args(node)
    spatial = w.q.dim() - 2
    stride, dilation = _tuple(a.get("stride", 1), spatial), _tuple(a.get("dilation", 1), spatial)
    groups = int(a.get("groups", 1))
    pads = _pads(a.get("padding", 0), spatial, w.q.shape[2:], dilation)
    xp = F.pad(x.data, pads, value=x.zp) if any(pads) else x.data
    fn = _CONV[spatial]

    def window_sum(inp, weight):
        return fn(inp, weight, None, stride, 0, dilation, groups)

    terms = int(w.q[0].numel())
    # input channels are the reduction dim that may be cut into chunks (not across groups)
    split = (1, 1, terms // w.q.shape[1]) if groups == 1 else None
    x_max = _range_max(x)
    products = exact_sum(window_sum, xp, w.q, terms=terms, split=split, a_max=x_max, b_max=w.max)
    channel = (1, -1) + (1,) * spatial
    zw = w.zp.view(channel)
    x_sums = exact_sum(window_sum, xp, torch.ones_like(w.q), terms=terms, split=split, a_max=x_max,
                       b_max=1) if bool(w.zp.any()) else 0
    acc = zero_point_expansion(products, x_sums, w.q.flatten(1).sum(1).view(channel), x.zp, zw, terms)
    return _finish(ex, node, acc, x, w, channel)


def linear(ex: IntExecutor, node: Node, args: tuple, kwargs: dict) -> IntValue:
    """linear(x, W[out, in]) and its aliases addmm(b, x, W[in, out]) / mm / matmul(x, W[in, out])."""
    k = ex.g.kernel(node)
    x = _int8_input(args[k.input if k.input is not None else 0])
    w = ex.constant_int(k.weight_of(node.args), k.weight_axis)
    terms = int(w.q.shape[1])
    products = exact_sum(F.linear, x.data, w.q, terms=terms, split=(-1, 1, 1), a_max=_range_max(x),
                         b_max=w.max)
    x_sums = x.data.sum(-1, keepdim=True) if bool(w.zp.any()) else 0
    acc = zero_point_expansion(products, x_sums, w.q.sum(1), x.zp, w.zp, terms)
    return _finish(ex, node, acc, x, w, (-1,))


def _finish(ex, node, acc: torch.Tensor, x: IntValue, w, channel: tuple) -> IntValue:
    bias = ex.bias_int(node)
    if bias is not None:
        acc = acc + bias.view(channel)
    exp = (x.exp + w.exp).view(channel)
    return IntValue(ex.accumulate(node, acc), exp)


def _int8_input(x) -> IntValue:
    if not isinstance(x, IntValue) or not x.quantized:
        raise NotInteger("input is not a quantized tensor")
    return x


def _range_max(x: IntValue) -> int:
    """max |q| of a quantized tensor, from its range (its padding value z_x lies inside it)."""
    assert x.qmin is not None and x.qmax is not None, "a quantized value"
    return max(abs(x.qmin), abs(x.qmax))


def _tuple(value, n: int) -> list[int]:
    values = list(value) if isinstance(value, (list, tuple)) else [value]
    return [int(v) for v in values] * n if len(values) == 1 else [int(v) for v in values]


def _pads(padding, spatial: int, kernel, dilation: list[int]) -> list[int]:
    """F.pad amounts (last dim first) for a conv's padding (ints, "valid" or "same")."""
    if isinstance(padding, str):
        if padding == "valid":
            return [0] * (2 * spatial)
        total = [d * (int(k) - 1) for d, k in zip(dilation, kernel)]   # "same", stride 1
        pairs = [(t // 2, t - t // 2) for t in total]
    else:
        pairs = [(p, p) for p in _tuple(padding, spatial)]
    return [v for pair in reversed(pairs) for v in pair]

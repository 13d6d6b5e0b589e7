"""Hand-written Q/DQ graphs with chosen integers, exported with torch.export exactly as convert_pt2e
would leave them (folded int8 weights and int32 biases as attributes, quantize / dequantize calls),
so that integer simulation can be checked against numbers computed by hand.
"""
from __future__ import annotations

import torch
from torch import nn

from vpu_core import quiet

quiet.import_torchao()
qd = torch.ops.quantized_decomposed
INT8 = (-128, 127, torch.int8)


class HandConv(nn.Module):
    """quantize → dequantize → conv2d(int8 weight per channel, int32 bias) [→ act] → quantize → dequantize."""

    def __init__(self, w_q, b_q, e_in=-4, e_w=-5, e_out=-4, z_in=0, z_w=None, z_out=0, padding=0,
                 act: str | None = None) -> None:
        super().__init__()
        c = w_q.shape[0]
        self.register_buffer("w_q", w_q.to(torch.int8))
        self.register_buffer("w_scale", torch.full((c,), 2.0 ** e_w))
        self.register_buffer("w_zp", torch.zeros(c, dtype=torch.int64) if z_w is None
                             else torch.as_tensor(z_w, dtype=torch.int64))
        self.register_buffer("b_q", torch.as_tensor(b_q).to(torch.int32))
        self.register_buffer("b_scale", torch.full((c,), 2.0 ** (e_in + e_w)))
        self.register_buffer("b_zp", torch.zeros(c, dtype=torch.int64))
        self.s_in, self.s_out, self.z_in, self.z_out = 2.0 ** e_in, 2.0 ** e_out, z_in, z_out
        self.padding, self.act = [padding, padding], act

    def forward(self, x):
        q = qd.quantize_per_tensor.default(x, self.s_in, self.z_in, *INT8)
        dq = qd.dequantize_per_tensor.default(q, self.s_in, self.z_in, *INT8)
        w = qd.dequantize_per_channel.default(self.w_q, self.w_scale, self.w_zp, 0, -127, 127, torch.int8)
        b = qd.dequantize_per_channel.default(self.b_q, self.b_scale, self.b_zp, 0, -2 ** 31, 2 ** 31 - 1,
                                              torch.int32)
        y = torch.ops.aten.conv2d.default(dq, w, b, [1, 1], self.padding)
        if self.act == "relu":
            y = torch.ops.aten.relu.default(y)
        elif self.act == "relu6":
            y = torch.ops.aten.hardtanh.default(y, 0.0, 6.0)
        q2 = qd.quantize_per_tensor.default(y, self.s_out, self.z_out, *INT8)
        return qd.dequantize_per_tensor.default(q2, self.s_out, self.z_out, *INT8)


class HandAvgPool(nn.Module):
    """quantize → dequantize → avg_pool2d(kernel) → quantize (same scale) → dequantize."""

    def __init__(self, kernel: int, e: int = -4) -> None:
        super().__init__()
        self.kernel, self.s = kernel, 2.0 ** e

    def forward(self, x):
        q = qd.quantize_per_tensor.default(x, self.s, 0, *INT8)
        dq = qd.dequantize_per_tensor.default(q, self.s, 0, *INT8)
        y = torch.ops.aten.avg_pool2d.default(dq, [self.kernel, self.kernel])
        q2 = qd.quantize_per_tensor.default(y, self.s, 0, *INT8)
        return qd.dequantize_per_tensor.default(q2, self.s, 0, *INT8)


def exported(module: nn.Module, x: torch.Tensor):
    """The module as a GraphModule whose buffers are get_attr nodes (like a converted graph)."""
    return torch.export.export(module, (x,)).module()


def as_input(q: torch.Tensor, e: int = -4, z: int = 0) -> torch.Tensor:
    """A float input that quantizes to exactly `q` at scale 2^e, zero point z."""
    return ((q.to(torch.float32) - z) * 2.0 ** e).to(torch.float32)


def ints(out: torch.Tensor, e: int = -4, z: int = 0) -> list:
    """The int8 values behind a dequantized output (exact for 2^e scales)."""
    if isinstance(out, (tuple, list)):          # a graph returns its outputs as a tuple
        (out,) = out
    return (torch.round(out / 2.0 ** e) + z).to(torch.int64).flatten().tolist()

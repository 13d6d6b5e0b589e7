"""Matrix products of activations (or of a weight the linear alias does not take): no VPU kernel
in the shipped profiles, but their multiply-accumulates are the model's, wherever they run.

matmul / mm / bmm / addmm / baddbmm / mv / addmv / dot / vdot: output elements × K, the reduced
dimension; addbmm (a sum of B matrix products): B·N·K·M, i.e. batch1's elements × M; bilinear
(y_o = x1ᵀ·W_o·x2): output elements × in2 × (in1 + 1)."""
from __future__ import annotations

import math

from vpu_core.hardware.kernels.spec import KernelSpec, OpView, arg_shape, packet_of

_BIAS_FIRST = ("addmm", "baddbmm", "addmv")      # (bias, a, b): the reduced operand is argument 1


def matmul_macs(v: OpView) -> int:
    a = arg_shape(v, 1 if packet_of(v.op) in _BIAS_FIRST else 0)
    return math.prod(v.out) * a[-1] if v.out is not None and a else 0


def addbmm_macs(v: OpView) -> int:
    b1, b2 = arg_shape(v, 1), arg_shape(v, 2)
    return math.prod(b1) * b2[-1] if v.out is not None and b1 and b2 else 0


def bilinear_macs(v: OpView) -> int:
    w = arg_shape(v, 2)
    return math.prod(v.out) * w[2] * (w[1] + 1) if v.out is not None and w and len(w) == 3 else 0


MATMUL = KernelSpec("matmul", ("matmul", "mm", "bmm", "addmm", "baddbmm", "mv", "addmv", "dot", "vdot"),
                    "matrix products", macs=matmul_macs)
ADDBMM = KernelSpec("addbmm", ("addbmm",), "a sum of batched matrix products", macs=addbmm_macs)
BILINEAR = KernelSpec("bilinear", ("bilinear",), "bilinear form x1^T·W·x2", macs=bilinear_macs)
SPECS = (MATMUL, ADDBMM, BILINEAR)

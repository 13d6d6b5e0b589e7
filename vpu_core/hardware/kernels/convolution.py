"""aten.convolution (plain or transposed, by its `transposed` argument) and the transposed
convolutions: no VPU kernel, MACs only. A transposed convolution does input elements ×
prod(weight.shape[1:])."""
from __future__ import annotations

import math

from vpu_core.hardware.kernels.conv2d import macs as conv_macs
from vpu_core.hardware.kernels.spec import KernelSpec, OpView, arg_shape


def transposed_macs(v: OpView) -> int:
    x, weight = arg_shape(v, 0), arg_shape(v, 1)
    return math.prod(x) * math.prod(weight[1:]) if v.out is not None and x and weight else 0


def convolution_macs(v: OpView) -> int:
    transposed = len(v.args) > 6 and v.args[6]
    return transposed_macs(v) if transposed else conv_macs(v)


CONVOLUTION = KernelSpec("convolution", ("convolution",), "aten.convolution, plain or transposed",
                         macs=convolution_macs)
CONV_TRANSPOSE = KernelSpec("conv_transpose", ("conv_transpose1d", "conv_transpose2d", "conv_transpose3d"),
                            "transposed convolution", macs=transposed_macs)
SPECS = (CONVOLUTION, CONV_TRANSPOSE)

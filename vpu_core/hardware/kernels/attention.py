"""scaled_dot_product_attention: Q·Kᵀ and the weighted sum of V, L·S·(E + Ev) per batch and head."""
from __future__ import annotations

import math

from vpu_core.hardware.kernels.spec import KernelSpec, OpView, arg_shape


def macs(v: OpView) -> int:
    q, k, val = (arg_shape(v, i) for i in range(3))
    if v.out is None or not (q and k and val):
        return 0
    return math.prod(q[:-1]) * k[-2] * (q[-1] + val[-1])


ATTENTION = KernelSpec("attention", ("scaled_dot_product_attention",), "attention of activations", macs=macs)
SPECS = (ATTENTION,)

"""max_pool2d (and max_pool2d_with_indices, whose int64 indices keep it on the CPU for its dtype
before any limit is read), and max_pool1d: the max of int8 values, which commutes with the
monotone dequantization."""
from __future__ import annotations

from vpu_core.hardware.kernels.spec import KernelSpec, OpView, pair
from vpu_core.hardware.limit_keys import LimitKey, Quantity


def pool_limits(table: str) -> tuple[LimitKey, ...]:
    return (LimitKey(table, "kernel_max", "pair_max", "kernel", "largest pooling window [kH, kW]"),
            LimitKey(table, "stride_max", "pair_max", "stride", "largest pooling stride [sH, sW]"))


def window_quantities(v: OpView) -> dict[Quantity, object]:
    """kernel_size (an int k is k×k) and stride (empty: the kernel size) as (H, W) pairs."""
    a = v.bound()
    kernel = pair(a.get("kernel_size"), 2)
    stride = a.get("stride")
    return {"kernel": kernel, "stride": pair(stride, 2) if stride else kernel}


MAX_POOL2D = KernelSpec("max_pool2d", ("max_pool2d", "max_pool2d_with_indices"), "2-D max pooling",
                        limits=pool_limits("max_pool2d"), quantities=window_quantities, int_kernel="max_pool")
MAX_POOL1D = KernelSpec("max_pool1d", ("max_pool1d",), "1-D max pooling (no limit table)",
                        int_kernel="max_pool")
SPECS = (MAX_POOL2D, MAX_POOL1D)

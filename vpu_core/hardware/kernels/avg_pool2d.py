"""avg_pool2d (its window sum divided by the window size K: a shift when K = 2^k, otherwise the
profile's avg_pool_divisor), and the 1-D / 3-D averages, which have no integer kernel here."""
from __future__ import annotations

from vpu_core.hardware.kernels.max_pool2d import pool_limits, window_quantities
from vpu_core.hardware.kernels.spec import KernelSpec

AVG_POOL2D = KernelSpec("avg_pool2d", ("avg_pool2d",), "2-D average pooling", limits=pool_limits("avg_pool2d"),
                        quantities=window_quantities, int_kernel="avg_pool", averages=True)
AVG_POOL1D = KernelSpec("avg_pool1d", ("avg_pool1d",), "1-D average pooling (float here)", averages=True)
AVG_POOL3D = KernelSpec("avg_pool3d", ("avg_pool3d",), "3-D average pooling (float here)", averages=True)
SPECS = (AVG_POOL2D, AVG_POOL1D, AVG_POOL3D)

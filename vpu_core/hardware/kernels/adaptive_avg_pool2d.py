"""adaptive_avg_pool2d / 1d: windows of [floor(i·size/out), ceil((i+1)·size/out)), each sum divided
by its own length; no limit table (a global pool is any size). The 3-D form has no integer kernel."""
from __future__ import annotations

from vpu_core.hardware.kernels.spec import KernelSpec

ADAPTIVE_AVG_POOL2D = KernelSpec("adaptive_avg_pool2d", ("adaptive_avg_pool2d",), "2-D adaptive average pooling",
                                 int_kernel="adaptive_avg_pool", averages=True)
ADAPTIVE_AVG_POOL1D = KernelSpec("adaptive_avg_pool1d", ("adaptive_avg_pool1d",), "1-D adaptive average pooling",
                                 int_kernel="adaptive_avg_pool", averages=True)
ADAPTIVE_AVG_POOL3D = KernelSpec("adaptive_avg_pool3d", ("adaptive_avg_pool3d",),
                                 "3-D adaptive average pooling (float here)", averages=True)
SPECS = (ADAPTIVE_AVG_POOL2D, ADAPTIVE_AVG_POOL1D, ADAPTIVE_AVG_POOL3D)

"""relu and hardtanh (ReLU6): clamps, fused into the op before them when the profile says so
(their bounds rounded as the requantization rounds, so they need no float at all)."""
from __future__ import annotations

from vpu_core.hardware.kernels.spec import KernelSpec

RELU = KernelSpec("relu", ("relu",), "max(x, 0)", int_kernel="relu")
HARDTANH = KernelSpec("hardtanh", ("hardtanh",), "clamp(x, min_val, max_val); ReLU6 is hardtanh(0, 6)",
                      int_kernel="hardtanh")
SPECS = (RELU, HARDTANH)

"""add.Tensor: two int8 tensors on one shared scale added in the accumulator (differing power-of-two
scales are aligned by shifts; the integer kernel refuses a scalar operand, which then runs in float)."""
from __future__ import annotations

from vpu_core.hardware.kernels.spec import KernelSpec

ADD = KernelSpec("add", ("add",), "elementwise add of two tensors", int_kernel="add")
SPECS = (ADD,)

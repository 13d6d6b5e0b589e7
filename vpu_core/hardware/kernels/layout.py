"""Layout ops: they move or view data and compute nothing (the integer simulation moves the int8
values, per-channel exponents travelling with them). The view-like ones share their input's scale
in the VPU quantizer; the others (copies, splits, dropout) are annotated like any op."""
from __future__ import annotations

from vpu_core.hardware.kernels.spec import KernelSpec

VIEW = KernelSpec("view", ("flatten", "reshape", "view", "squeeze", "unsqueeze", "permute", "transpose"),
                  "views that keep every value and its scale", int_kernel="layout", layout=True,
                  shares_input_scale=True)
LAYOUT = KernelSpec("layout", ("_unsafe_view", "t", "contiguous", "clone", "alias", "detach", "expand", "slice",
                               "select", "unflatten", "split", "split_with_sizes", "chunk", "unbind", "dropout"),
                    "copies, slices and splits", int_kernel="layout", layout=True)
SPECS = (VIEW, LAYOUT)

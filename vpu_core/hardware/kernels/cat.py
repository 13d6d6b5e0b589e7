"""cat: int8 tensors on one shared scale written side by side. Its tensors come as one list (its
first argument), as do those of concat and stack, which have no integer kernel here."""
from __future__ import annotations

from vpu_core.hardware.kernels.spec import KernelSpec

CAT = KernelSpec("cat", ("cat",), "concatenation along one dimension", int_kernel="cat", list_input=True)
CONCAT = KernelSpec("concat", ("concat",), "concatenation (float here)", list_input=True)
STACK = KernelSpec("stack", ("stack",), "stacking along a new dimension (float here)", list_input=True)
SPECS = (CAT, CONCAT, STACK)

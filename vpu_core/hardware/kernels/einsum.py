"""einsum: contracted pairwise from the left, each step the product of the sizes of every index its
two operands carry (output elements × contracted sizes); one operand (a sum, a trace) is 0."""
from __future__ import annotations

import math

from vpu_core.hardware.kernels.spec import KernelSpec, OpView


def macs(v: OpView) -> int:
    if v.out is None or len(v.args) < 2:
        return 0
    equation, operands = v.args[0], v.args[1]
    if not isinstance(equation, str) or not isinstance(operands, (list, tuple)) or len(operands) < 2 \
            or "..." in equation or "->" not in equation:
        return 0
    inputs, output = equation.replace(" ", "").split("->")
    terms = inputs.split(",")
    sizes: dict[str, int] = {}
    for term, operand in zip(terms, operands):
        shape = v.shape(operand)
        if not shape or len(shape) != len(term):
            return 0
        sizes.update(zip(term, (int(d) for d in shape)))
    total, left = 0, terms[0]
    for i, right in enumerate(terms[1:], start=1):
        total += math.prod(sizes[c] for c in set(left) | set(right))
        later = set(output).union(*terms[i + 1:])
        left = "".join(c for c in dict.fromkeys(left + right) if c in later)
    return total


EINSUM = KernelSpec("einsum", ("einsum",), "Einstein summation", macs=macs)
SPECS = (EINSUM,)

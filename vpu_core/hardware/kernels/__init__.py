"""The kernel registry: every kernel the inspector knows, one `KernelSpec` each, declared in its
own module of this package (conv2d.py, linear.py, …), registered in `KERNELS` below.

    spec_of("max_pool2d_with_indices.default")   # the spec that runs it under its own name
    alias_of("addmm.default")                    # (linear's spec, its addmm Alias), or None

The order of `KERNELS` is the order limit failures are reported in (conv2d, linear, max_pool2d,
avg_pool2d; memory last: vpu_core.hardware.limits). Adding a kernel: a module declaring its
`SPECS`, its name in `KernelName` and the module in `_MODULES`, and its tests.
"""
from __future__ import annotations

from typing import Literal

from vpu_core.hardware.kernels import (
    activations, adaptive_avg_pool2d, add, attention, avg_pool2d, cat, conv2d, convolution, einsum, layout,
    linear, matmul, max_pool2d, recurrent,
)
from vpu_core.hardware.kernels.spec import Alias, KernelSpec, packet_of

KernelName = Literal[
    "conv2d", "conv3d", "linear", "max_pool2d", "max_pool1d", "avg_pool2d", "avg_pool1d", "avg_pool3d",
    "adaptive_avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool3d", "add", "cat", "concat", "stack",
    "relu", "hardtanh", "view", "layout", "matmul", "addbmm", "bilinear", "convolution", "conv_transpose",
    "attention", "recurrent", "einsum",
]
# Kernels with limit tables first, in the order their failures are reported.
_MODULES = (conv2d, linear, max_pool2d, avg_pool2d, adaptive_avg_pool2d, add, cat, activations, layout,
            matmul, convolution, attention, recurrent, einsum)
KERNELS: tuple[KernelSpec, ...] = tuple(spec for module in _MODULES for spec in module.SPECS)


def _index() -> tuple[dict[str, KernelSpec], dict[str, tuple[KernelSpec, Alias]]]:
    own: dict[str, KernelSpec] = {}
    aliases: dict[str, tuple[KernelSpec, Alias]] = {}
    for spec in KERNELS:
        for op in spec.ops:
            if op in own:
                raise ValueError(f"op {op} declared by kernels {own[op].name} and {spec.name}")
            own[op] = spec
        for alias in spec.aliases:
            if alias.op in aliases:
                raise ValueError(f"alias {alias.op} declared twice")
            aliases[alias.op] = (spec, alias)
    return own, aliases


_OWN, _ALIASES = _index()
_BY_NAME: dict[str, KernelSpec] = {spec.name: spec for spec in KERNELS}


def spec_of(op: str) -> KernelSpec | None:
    """The spec that runs ATen op `op` ("conv2d.default", "relu_", "max_pool2d") under its own name."""
    return _OWN.get(packet_of(op))


def alias_of(op: str) -> tuple[KernelSpec, Alias] | None:
    """The kernel `op` may run as, and how (None: `op` is no alias)."""
    return _ALIASES.get(packet_of(op))


def kernel_named(name: str) -> KernelSpec | None:
    return _BY_NAME.get(name)


KernelFlag = Literal["layout", "shares_input_scale", "list_input", "averages"]


def ops_where(flag: KernelFlag) -> tuple[str, ...]:
    """The ATen packets of every kernel whose boolean field `flag` is set ("layout", "averages"…)."""
    return tuple(op for spec in KERNELS if getattr(spec, flag) for op in spec.ops)


__all__ = ["KERNELS", "Alias", "KernelFlag", "KernelName", "KernelSpec", "alias_of", "kernel_named", "ops_where", "spec_of"]

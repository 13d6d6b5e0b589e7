"""Small helpers for reading torch.fx nodes (names, shapes, dtypes) in one consistent way."""
from __future__ import annotations

import torch
from torch.fx import Node


def op_name(node: Node) -> str:
    """ATen op as torch prints it without the namespace: "conv2d.default", "add.Tensor".

    Non-ATen targets keep their namespace ("quantized_decomposed.quantize_per_tensor.default")
    and Python callables their __name__ ("getitem").
    """
    target = node.target
    if isinstance(target, torch._ops.OpOverload):
        ns = target.namespace
        base = f"{target._schema.name.split('::', 1)[1]}.{target._overloadname}"
        return base if ns == "aten" else f"{ns}.{base}"
    if isinstance(target, str):
        return target
    return getattr(target, "__name__", str(target))


def tensor_shape_text(val) -> str:
    """"[16, 3, 32, 32]" for a tensor, "[s0, 3, 32, 32]" when a dim is symbolic, "" otherwise."""
    if isinstance(val, torch.Tensor):
        return "[" + ", ".join(str(d) for d in val.shape) + "]"
    if isinstance(val, (list, tuple)) and val and all(isinstance(v, torch.Tensor) for v in val):
        return ", ".join(tensor_shape_text(v) for v in val)
    return ""


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


def node_tensor(node: Node) -> torch.Tensor | None:
    val = node.meta.get("val")
    return val if isinstance(val, torch.Tensor) else None

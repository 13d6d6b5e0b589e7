"""Small helpers for reading torch.fx nodes (names, shapes, dtypes) in one consistent way."""
from __future__ import annotations

from typing import Callable

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


def tensor_shape_text(val: object) -> str:
    """"[16, 3, 32, 32]" for a tensor, "[s0, 3, 32, 32]" when a dim is symbolic, "" otherwise."""
    if isinstance(val, torch.Tensor):
        return "[" + ", ".join(str(d) for d in val.shape) + "]"
    if isinstance(val, (list, tuple)) and val and all(isinstance(v, torch.Tensor) for v in val):
        return ", ".join(tensor_shape_text(v) for v in val)
    return ""


def concrete_dim(d: int | torch.SymInt) -> int:
    """A dimension as an int: a symbolic one (torch.SymInt) at its example value, 1 without one."""
    if isinstance(d, torch.SymInt):
        hint = d.node.hint
        return int(hint) if hint is not None else 1
    return int(d)


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


def node_tensor(node: Node) -> torch.Tensor | None:
    val = node.meta.get("val")
    return val if isinstance(val, torch.Tensor) else None


def value_dtypes(val: object) -> list[torch.dtype]:
    """dtypes of the tensors in a node's value (a tensor, or a tuple/list of them; [] otherwise)."""
    if isinstance(val, torch.Tensor):
        return [val.dtype]
    if isinstance(val, (list, tuple)):
        return [v.dtype for v in val if isinstance(v, torch.Tensor)]
    return []


def node_dtypes(node: Node) -> list[torch.dtype]:
    return value_dtypes(node.meta.get("val"))


def non_float_tensor(node: Node, dtypes_of: Callable[[Node], list[torch.dtype]] = node_dtypes) -> tuple[str,
                     torch.dtype] | None:
    """("output" | input node name, dtype) of the first integer / bool tensor `node` writes or
    reads, or None when all its tensors are floating point. `dtypes_of(n)` gives a node's output
    dtypes (a converted graph's Q/DQ nodes carry no meta: the analysis passes its own lookup)."""
    for name, dtypes in (("output", dtypes_of(node)),
                         *((a.name, dtypes_of(a)) for a in node.all_input_nodes)):
        bad = next((d for d in dtypes if not d.is_floating_point), None)
        if bad is not None:
            return name, bad
    return None


def bound_args(node: Node) -> dict:
    """Argument name -> value of an OpOverload call (positional, keyword and schema defaults)."""
    out: dict[str, object] = {}
    schema = getattr(node.target, "_schema", None)
    if schema is None:
        return out
    for i, arg in enumerate(schema.arguments):
        if i < len(node.args):
            out[arg.name] = node.args[i]
        elif arg.name in node.kwargs:
            out[arg.name] = node.kwargs[arg.name]
        elif arg.has_default_value():
            out[arg.name] = arg.default_value
    return out

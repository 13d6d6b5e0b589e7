"""NodeInfo for every graph node (what the inspector panel shows on click) and the edge list."""
from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from dataclasses import replace

import torch
from torch.fx import Node

from vpu_core.analysis.qgraph import QGraph, QParams
from vpu_core.analysis.results import NodeInfo, OpArgument, QuantParams
from vpu_core.fx_utils import dtype_name, op_name, tensor_shape_text


def plain_value(a: object) -> object:
    """An fx argument as a plain value: a node by its name, a dtype by its name, lists as tuples."""
    if isinstance(a, Node):
        return a.name
    if isinstance(a, torch.dtype):
        return dtype_name(a)
    if isinstance(a, (list, tuple)):
        return tuple(plain_value(x) for x in a)
    if isinstance(a, (int, float, bool, str)) or a is None:
        return a
    return str(a)


def _refs(a) -> tuple[str, ...]:
    if isinstance(a, Node):
        return (a.name,)
    if isinstance(a, (list, tuple)):
        return tuple(r for x in a for r in _refs(x))
    return ()


@functools.lru_cache(maxsize=None)
def _argument_names(target: object) -> tuple[str, ...]:
    """The op schema's argument names (one lookup per op overload, not per node)."""
    schema = getattr(target, "_schema", None)
    return tuple(a.name for a in schema.arguments) if schema is not None else ()


def op_arguments(n: Node) -> tuple[OpArgument, ...]:
    """The node's arguments named by its op schema (OpOverload), else arg0, arg1, … and the kwargs."""
    names = _argument_names(n.target) if n.op == "call_function" else ()
    out = [OpArgument(names[i] if i < len(names) else f"arg{i}", plain_value(a), _refs(a))
           for i, a in enumerate(n.args)]
    out += [OpArgument(k, plain_value(v), _refs(v)) for k, v in n.kwargs.items()]
    return tuple(out)


def quant_params(qp: QParams) -> QuantParams:
    return QuantParams(scales=qp.scales, zero_points=qp.zero_points, dtype=qp.dtype_text,
                       quant_min=qp.quant_min, quant_max=qp.quant_max,
                       axis=int(qp.axis) if qp.per_channel and qp.axis is not None else None)


def source_text(node: Node) -> str:
    """"stages.0.path_a.0 (Conv2d) · resnet8.py:81" from nn_module_stack and the stack trace."""
    parts = []
    stack = node.meta.get("nn_module_stack")
    if stack:
        path, kind = list(stack.values())[-1]
        kind = kind if isinstance(kind, str) else getattr(kind, "__name__", str(kind))
        parts.append(f"{path} ({kind.rsplit('.', 1)[-1]})" if path else kind.rsplit(".", 1)[-1])
    line = _user_frame(node.meta.get("stack_trace") or "")
    if line:
        parts.append(line)
    return " · ".join(parts)


def module_stack(node: Node) -> tuple[tuple[str, str], ...]:
    """(module id, short class name) from the outermost module to the innermost.

    The id is the module path ("encoder.layer.3.attention"); torch.export numbers a second call
    of the same module "@1", "@2" in the stack's key, and the id keeps that suffix so each call
    is its own group ("act@1"). The root module (empty path) is left out.
    """
    stack = node.meta.get("nn_module_stack") or {}
    out = []
    for key, value in stack.items():
        try:
            path, kind = value
        except (TypeError, ValueError):
            continue
        if not path:
            continue
        kind = kind if isinstance(kind, str) else getattr(kind, "__name__", str(kind))
        call = str(key).rpartition("@")[2] if "@" in str(key) else ""
        uid = f"{path}@{call}" if call.isdigit() else path
        out.append((uid, kind.rsplit(".", 1)[-1]))
    return tuple(out)


def _user_frame(trace: str) -> str:
    """Last frame of the trace outside torch itself: the user's model code (read from the end:
    the first such frame from there is the answer)."""
    for raw in reversed(trace.splitlines()):
        raw = raw.strip()
        if raw.startswith("File ") and "/torch/" not in raw:
            try:
                file_part, line_part = raw.split('", line ')
            except ValueError:
                continue
            return f"{os.path.basename(file_part[6:])}:{line_part.split(',')[0]}"
    return ""


def node_infos(g: QGraph, layer_sqnr: dict[str, float]) -> dict[str, NodeInfo]:
    out = {}
    for n in g.nodes:
        meta = g.tensor_meta.get(n.name)
        val = n.meta.get("val")
        if meta:
            shape = "[" + ", ".join(str(d) for d in meta[0]) + "]"
            dtype = dtype_name(meta[1]) if meta[1] is not None else ""
        else:
            shape = tensor_shape_text(val)
            first = val[0] if isinstance(val, (list, tuple)) and val else val
            dtype = dtype_name(first.dtype) if isinstance(first, torch.Tensor) else ""
        out[n.name] = NodeInfo(
            name=n.name, op=op_name(n) if n.op == "call_function" else n.op, target=str(n.target),
            kind=n.op, arguments=op_arguments(n), shape=shape, dtype=dtype,
            qparams=quant_params(g.qp[n]) if n in g.qp else None, source=source_text(n),
            sqnr_db=layer_sqnr.get(n.name), inputs=tuple(i.name for i in n.all_input_nodes),
            outputs=tuple(u.name for u in n.users),
            module_stack=module_stack(n) if n.op == "call_function" else (),
            traced=n.op == "call_function" and n.meta.get("nn_module_stack") is not None)
    return with_modules(out, root_class(g.nodes))


def root_class(nodes: Iterable[Node]) -> str:
    """The short class name of the exported model ("BertModel"): the root entry of the first
    nn_module_stack; "" when the graph has none (a re-exported program)."""
    for n in nodes:
        for value in (n.meta.get("nn_module_stack") or {}).values():
            try:
                path, kind = value
            except (TypeError, ValueError):
                break
            if path:
                break
            kind = kind if isinstance(kind, str) else getattr(kind, "__name__", str(kind))
            return kind.rsplit(".", 1)[-1]
    return ""


def with_modules(infos: dict[str, NodeInfo], root: str = "") -> dict[str, NodeInfo]:
    """Every node's module path (NodeInfo.module, what tables and search name it by): exactly the
    innermost group of the module hierarchy (vpu_core.analysis.hierarchy: an op's own module, "" in
    the model's own forward; a Q/DQ node or parameter the one of the op it quantizes for), so a
    node's label, its panel and the box it is drawn in always agree. A node at the top level
    is named by the model's class `root`."""
    from vpu_core.analysis.hierarchy import node_stacks

    stacks = node_stacks(infos)
    out = {}
    for name, info in infos.items():
        module = stacks[name][-1][0] if stacks.get(name) else ""
        top = root if not module and info.kind not in ("placeholder", "output") else ""
        out[name] = replace(info, module=module, top_module=top)
    return out


def edges(g: QGraph) -> tuple[tuple[str, str], ...]:
    return tuple((src.name, dst.name) for dst in g.nodes for src in dst.all_input_nodes)

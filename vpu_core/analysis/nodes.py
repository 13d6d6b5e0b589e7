"""NodeInfo for every graph node (what the inspector panel shows on click) and the edge list."""
from __future__ import annotations

import os

import torch
from torch.fx import Node

from vpu_core.analysis.qgraph import QGraph, QParams, is_pow2, log2_int
from vpu_core.analysis.results import NodeInfo
from vpu_core.fx_utils import dtype_name, op_name, tensor_shape_text


def arg_text(a) -> str:
    if isinstance(a, Node):
        return a.name
    if isinstance(a, float):
        return f"{a:.6g}"
    if isinstance(a, torch.dtype):
        return dtype_name(a)
    if isinstance(a, (list, tuple)):
        return "[" + ", ".join(arg_text(x) for x in a) + "]"
    return str(a)


def scale_detail(s: float) -> str:
    """"0.03125 = 2^-5" for a power of two, "0.0272842" otherwise."""
    return f"{s:.6g} = 2^{log2_int(s)}" if is_pow2(s) else f"{s:.6g}"


def qparams_text(qp: QParams) -> tuple[tuple[str, str], ...]:
    rows = []
    if qp.per_channel:
        lo, hi = (min(qp.scales), max(qp.scales)) if qp.scales else (0.0, 0.0)
        span = scale_detail(lo) if lo == hi else f"{scale_detail(lo)} … {scale_detail(hi)}"
        zps = set(qp.zero_points)
        rows += [("scales", f"{len(qp.scales)} channels: {span}"),
                 ("zero_points", f"all {zps.pop()}" if len(zps) == 1 else
                  ", ".join(str(z) for z in qp.zero_points[:8]) + (" …" if len(qp.zero_points) > 8 else "")),
                 ("axis", str(qp.axis))]
    else:
        rows += [("scale", scale_detail(qp.scales[0]) if qp.scales else "computed at run time"),
                 ("zero_point", str(qp.zero_points[0]) if qp.zero_points else "?")]
    rows += [("dtype", qp.dtype_text), ("range", f"[{qp.quant_min}, {qp.quant_max}]")]
    return tuple(rows)


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
    """Last frame of the trace outside torch itself: the user's model code."""
    best = ""
    for raw in trace.splitlines():
        raw = raw.strip()
        if raw.startswith("File ") and "/torch/" not in raw:
            try:
                file_part, line_part = raw.split('", line ')
                best = f"{os.path.basename(file_part[6:])}:{line_part.split(',')[0]}"
            except ValueError:
                continue
    return best


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
        args = tuple(arg_text(a) for a in n.args) + tuple(f"{k}={arg_text(v)}" for k, v in n.kwargs.items())
        out[n.name] = NodeInfo(
            name=n.name, op=op_name(n) if n.op == "call_function" else n.op, target=str(n.target),
            kind=n.op, args=args, shape=shape, dtype=dtype,
            qparams=qparams_text(g.qp[n]) if n in g.qp else (), source=source_text(n),
            sqnr_db=layer_sqnr.get(n.name), inputs=tuple(i.name for i in n.all_input_nodes),
            outputs=tuple(u.name for u in n.users),
            module_stack=module_stack(n) if n.op == "call_function" else ())
    return out


def edges(g: QGraph) -> tuple[tuple[str, str], ...]:
    return tuple((src.name, dst.name) for dst in g.nodes for src in dst.all_input_nodes)

"""The converted Q/DQ GraphModule ↔ bytes, node for node, without pickle and without code.

Why not torch.export.save: a converted GraphModule must be re-exported to be saved, which
renames and restructures its Q/DQ nodes (resnet8: 71 of 132 node names change) — the analysis,
the integer simulation and the window all name nodes by the converted graph's own names — and
re-export + save cost 2.3 s on resnet8 where quantizing from recorded qparams costs 0.4 s.

The entry is one torch.save of {"graph": JSON text, "tensors": {attribute: tensor}}, read with
torch.load(weights_only=True). The JSON lists every node: its name, opcode, target, arguments
(node references by name, numbers, strings, dtypes, devices, layouts, memory formats, nested
tuples / lists) and the metadata the analysis and the integer simulation read — each value's
shape and dtype (rebuilt as a tensor on the "meta" device), the module stack and the stack trace
line. A target is looked up, never executed or imported: an OpOverload of an allowed
torch.ops namespace, or operator.getitem; anything else makes the graph not cacheable
(`Unsupported`: the stage then simply runs again next time). torch.export's shape guard
(`_guards_fn`, a generated submodule with no users) comes back as the same node calling a module
that checks nothing: the program is replayed at the shapes it was traced with.
"""
from __future__ import annotations

import json
import math
import operator
from typing import TYPE_CHECKING

from vpu_core.analysis.extreme import FLOAT_REASON_KEY
from vpu_core.cache.artifacts import BadEntry, tensors_from_bytes, tensors_to_bytes

if TYPE_CHECKING:
    from torch.fx import GraphModule

NAMESPACES = ("aten", "quantized_decomposed")
FUNCTIONS = {"operator.getitem": operator.getitem}
STACK_KEY = "nn_module_stack"                       # {key: (path, class)}, kept as [key, path, class name]
TEXT_META_KEYS = ("stack_trace", FLOAT_REASON_KEY)  # strings, kept as they are
META_KEYS = (STACK_KEY, *TEXT_META_KEYS)            # the node metadata an entry keeps


class Unsupported(Exception):
    """The graph holds something this codec does not keep exactly."""


# -- writing ---------------------------------------------------------------------------------------

def to_bytes(gm: GraphModule, observer_scales: list[dict]) -> bytes:
    """The entry of a converted GraphModule and its observers' float vs power-of-two scales."""
    nodes, tensors = [], {}
    for n in gm.graph.nodes:
        if n.op == "call_module" and not (_is_guard(n.target) and not n.users):
            raise Unsupported(f"call_module {n.target}")
        if n.op == "get_attr":
            tensors[n.target] = _attr(gm, n.target)
        nodes.append({"name": n.name, "op": n.op, "target": _target_name(n),
                      "args": _enc(n.args), "kwargs": _enc(dict(n.kwargs)),
                      "val": _val(n.meta.get("val")), "meta": _meta(n.meta),
                      "users": [u.name for u in n.users]})
    text = json.dumps({"nodes": nodes, "observer_scales": observer_scales}, allow_nan=True)
    return tensors_to_bytes({"graph": text, "tensors": tensors})


def _is_guard(target) -> bool:
    return str(target).startswith("_guards") and "." not in str(target)


def _attr(gm, target: str):
    import torch

    obj = gm
    for part in str(target).split("."):
        obj = getattr(obj, part)
    if not isinstance(obj, torch.Tensor):
        raise Unsupported(f"attribute {target} is a {type(obj).__name__}")
    return obj.detach()


def _target_name(n) -> str:
    if n.op != "call_function":
        return str(n.target)
    t = n.target
    if t is operator.getitem:
        return "operator.getitem"
    name = str(t)
    if type(t).__name__ != "OpOverload" or name.split(".")[0] not in NAMESPACES:
        raise Unsupported(f"target {name}")
    return name


def _enc(a):
    import torch
    from torch.fx import Node

    if isinstance(a, Node):
        return {"n": a.name}
    if a is None or isinstance(a, (bool, str)) or type(a) is int:
        return a
    if type(a) is float:
        return a if math.isfinite(a) else {"f": repr(a)}
    if isinstance(a, tuple):
        return {"t": [_enc(x) for x in a]}
    if isinstance(a, list):
        return [_enc(x) for x in a]
    if isinstance(a, dict):
        if not all(isinstance(k, str) for k in a):
            raise Unsupported("a dict with non-string keys")
        return {"d": [[k, _enc(v)] for k, v in a.items()]}
    for kind, cls in (("dtype", torch.dtype), ("layout", torch.layout), ("mf", torch.memory_format)):
        if isinstance(a, cls):
            return {kind: str(a).rsplit(".", 1)[-1]}
    if isinstance(a, torch.device):
        return {"device": str(a)}
    raise Unsupported(f"argument of type {type(a).__name__}")


def _val(v):
    import torch

    if v is None:
        return None
    if isinstance(v, torch.Tensor):
        if not all(type(d) is int for d in v.shape):
            raise Unsupported("a symbolic shape")
        return {"shape": list(v.shape), "dtype": str(v.dtype).rsplit(".", 1)[-1]}
    if isinstance(v, (tuple, list)):
        return {"t" if isinstance(v, tuple) else "l": [_val(x) for x in v]}
    if isinstance(v, (bool, int, float)) and type(v) in (bool, int, float):
        return {"s": v}
    raise Unsupported(f"value of type {type(v).__name__}")


def _meta(meta: dict) -> dict:
    out = {}
    stack = meta.get(STACK_KEY)
    if stack:
        out[STACK_KEY] = [[str(k), path, cls if isinstance(cls, str) else
                           f"{getattr(cls, '__module__', '')}.{getattr(cls, '__qualname__', cls)}"]
                          for k, (path, cls) in stack.items()]
    for key in TEXT_META_KEYS:      # the stack trace line; why the VPU quantizer left an op in float
        if isinstance(meta.get(key), str):
            out[key] = meta[key]
    return out


# -- reading ---------------------------------------------------------------------------------------

def from_bytes(data: bytes) -> tuple[GraphModule, list[dict]]:
    """(GraphModule, observer_scales) of `to_bytes`; raises BadEntry on anything else."""
    import torch
    from torch.fx import Graph, GraphModule

    from vpu_core import quiet

    quiet.import_torchao()                         # registers torch.ops.quantized_decomposed
    try:
        obj = tensors_from_bytes(data)
        doc = json.loads(obj["graph"])
        tensors = obj["tensors"]
        graph = Graph()
        made: dict = {}
        for spec in doc["nodes"]:
            node = _node(graph, spec, made)
            made[spec["name"]] = node
        for spec in doc["nodes"]:          # users in their original order (graph readers see it)
            node = made[spec["name"]]
            order = [made[u] for u in spec.get("users", ()) if u in made]
            if set(order) == set(node.users):
                node.users = dict.fromkeys(order)
        if not all(isinstance(t, torch.Tensor) for t in tensors.values()):
            raise BadEntry("an attribute is not a tensor")
        root = dict(tensors)
        for spec in doc["nodes"]:
            if spec["op"] == "call_module":
                if not _is_guard(spec["target"]):
                    raise BadEntry(f"call_module {spec['target']}")
                root[spec["target"]] = _NoGuard()
        gm = GraphModule(root, graph)
        return gm, list(doc["observer_scales"])
    except BadEntry:
        raise
    except Exception as exc:  # a damaged archive, wrong JSON, an unknown op: rebuild the stage
        raise BadEntry(f"{type(exc).__name__}: {exc}") from None


def _no_guard_class():
    import torch

    class NoGuard(torch.nn.Module):
        """Stands for torch.export's shape guard: the program is replayed at the shapes it was
        traced with, so there is nothing to check."""

        def forward(self, *args, **kwargs) -> None:
            return None

    return NoGuard


def _NoGuard():  # noqa: N802  (builds the module lazily: this module must not import torch)
    return _no_guard_class()()


def _node(graph, spec: dict, made: dict):
    args, kwargs = _dec(spec["args"], made), _dec(spec["kwargs"], made)
    op = spec["op"]
    if op == "output":
        node = graph.output(args[0])
    else:
        target = _resolve(spec["target"]) if op == "call_function" else spec["target"]
        node = graph.create_node(op, target, tuple(args), kwargs, name=spec["name"])
    if node.name != spec["name"]:
        raise BadEntry(f"node {spec['name']} came back as {node.name}")
    if spec.get("val") is not None:
        node.meta["val"] = _val_back(spec["val"])
    meta = spec.get("meta", {})
    if STACK_KEY in meta:
        node.meta[STACK_KEY] = {k: (path, cls) for k, path, cls in meta[STACK_KEY]}
    for key in TEXT_META_KEYS:
        if key in meta:
            node.meta[key] = meta[key]
    return node


def _resolve(name: str):
    import torch

    if name in FUNCTIONS:
        return FUNCTIONS[name]
    parts = name.split(".")
    if len(parts) != 3 or parts[0] not in NAMESPACES:
        raise BadEntry(f"target {name} is not allowed")
    return getattr(getattr(getattr(torch.ops, parts[0]), parts[1]), parts[2])


def _dec(a, made: dict):
    import torch

    if isinstance(a, list):
        return [_dec(x, made) for x in a]
    if not isinstance(a, dict):
        return a
    if "n" in a:
        return made[a["n"]]
    if "t" in a:
        return tuple(_dec(x, made) for x in a["t"])
    if "d" in a:
        return {k: _dec(v, made) for k, v in a["d"]}
    if "f" in a:
        return float(a["f"])
    if "device" in a:
        return torch.device(a["device"])
    for kind, cls in (("dtype", torch.dtype), ("layout", torch.layout), ("mf", torch.memory_format)):
        if kind in a:
            value = getattr(torch, a[kind])
            if not isinstance(value, cls):
                raise BadEntry(f"{a[kind]} is not a torch {kind}")
            return value
    raise BadEntry(f"unknown argument {a}")


def _val_back(v):
    import torch

    if v is None:
        return None
    if "shape" in v:
        dtype = getattr(torch, v["dtype"])
        if not isinstance(dtype, torch.dtype):
            raise BadEntry(f"{v['dtype']} is not a dtype")
        return torch.empty(v["shape"], dtype=dtype, device="meta")
    if "t" in v:
        return tuple(_val_back(x) for x in v["t"])
    if "l" in v:
        return [_val_back(x) for x in v["l"]]
    return v["s"]

"""SQNR of the quantized graph against the float graph: per layer and end to end.

SQNR = 10·log10(Σf² / Σ(f − q)²), in dB, capped at ±200 dB (identical or all-zero outputs).

qm.float_graph and qm.converted run once each through torch.fx.Interpreter on the same batch (the
held-out batch, which calibration never saw), in lockstep, and their node outputs are compared by
node name as they are produced (convert keeps op names; nothing is stored, so memory stays that
of one forward pass); the graph outputs give the end-to-end SQNR of the same pass.
For an op whose output is quantized, the quantized value is that of the dequantize after its
quantize (what the next op reads). prepare_pt2e folds batch norms into the conv before them, so a
float conv followed by a batch_norm that no longer exists in the converted graph is compared
through that batch_norm's output.
"""
from __future__ import annotations

import math
from typing import Iterator

import torch
from torch.fx import GraphModule, Interpreter, Node
from torch.utils._pytree import tree_leaves

from vpu_core.analysis.qgraph import is_op
from vpu_core.fx_utils import op_name
from vpu_core.qdq import is_dequantize, is_quantize

_CAP_DB = 200.0
_FOLDED = ("batch_norm", "_native_batch_norm_legit_no_training", "_native_batch_norm_legit")


def sqnr_db(ref: torch.Tensor, test: torch.Tensor) -> float:
    # float32 BLAS dot products: ~1e-6 relative error, far below what a dB figure shows, and
    # several times faster than float64 sums on large activations.
    ref = ref.detach().float().reshape(-1)
    diff = ref - test.detach().float().reshape(-1)
    signal, noise = float(torch.dot(ref, ref)), float(torch.dot(diff, diff))
    if noise == 0.0:
        return _CAP_DB
    if signal == 0.0:
        return -_CAP_DB
    return max(-_CAP_DB, min(_CAP_DB, 10.0 * math.log10(signal / noise)))


def _mutated(gm: GraphModule) -> set[str]:
    """Nodes whose output a later in-place op (relu_) overwrites: those outputs must be copied."""
    out = set()
    for n in gm.graph.nodes:
        if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload) \
                and n.target._schema.is_mutable and n.args and isinstance(n.args[0], Node):
            out.add(n.args[0].name)
    return out


def node_values(gm: GraphModule, args: tuple) -> Iterator[tuple[Node, object]]:
    """torch.fx.Interpreter, one node at a time: yields (node, value) as each node runs, and
    frees values after their last use exactly as Interpreter.run does."""
    interp = Interpreter(gm)
    interp.env = {}
    interp.args_iter = iter(gm.graph.process_inputs(*args))
    for node in gm.graph.nodes:
        value = interp.run_node(node)
        interp.env[node] = value
        yield node, value
        for dead in interp.user_to_last_uses.get(node, []):
            del interp.env[dead]


class _FloatCursor:
    """Advances the float graph just far enough to produce the value a comparison needs.

    Both graphs come from the same export, so their orders agree and a float value is usually
    compared right after it is computed, before a later in-place op (relu_) could change it; one
    computed ahead of its comparison is copied if such an op follows.
    """

    def __init__(self, gm: GraphModule, batch: tuple, wanted: set[str], recorded: dict | None = None) -> None:
        self.steps, self.wanted, self.mutated = node_values(gm, batch), wanted, _mutated(gm)
        self.ahead: dict[str, torch.Tensor] = dict(recorded or {})
        self.output = (recorded or {}).get(_OUTPUT)
        if recorded is not None:            # every value is there already: never run the graph
            self.steps = iter(())

    def value(self, name: str):
        if name in self.ahead:
            return self.ahead.pop(name)
        for node, value in self.steps:
            if node.op == "output":
                self.output = value
            elif node.name == name:
                return value
            elif node.name in self.wanted and isinstance(value, torch.Tensor):
                self.ahead[node.name] = value.clone() if node.name in self.mutated else value
        return None

    def finish(self):
        for node, value in self.steps:
            if node.op == "output":
                self.output = value
        return self.output


_OUTPUT = "\0output"


def record_float_values(float_gm: GraphModule, batch: tuple, limit_bytes: int = 1 << 30) -> dict | None:
    """Every tensor the float graph computes on `batch` (one pass), for several `measure_sqnr`
    calls against the same float graph and batch (vpu_core.whatif); None above `limit_bytes`."""
    mutated, out, total = _mutated(float_gm), {}, 0
    with torch.inference_mode():
        for node, value in node_values(float_gm, batch):
            if node.op == "output":
                out[_OUTPUT] = value
            elif isinstance(value, torch.Tensor):
                total += value.numel() * value.element_size()
                if total > limit_bytes:
                    return None
                out[node.name] = value.clone() if node.name in mutated else value
    return out


def _float_counterpart(node: Node, converted_names: set[str]) -> Node:
    """Follow a float op into the batch norm that was folded into it."""
    while len(node.users) == 1:
        user = next(iter(node.users))
        if user.op != "call_function" or user.name in converted_names or \
                op_name(user).split(".")[0] not in _FOLDED:
            break
        node = user
        if len(node.users) == 1 and getattr(next(iter(node.users)).target, "__name__", "") == "getitem":
            node = next(iter(node.users))
    return node


def _quantized_value_node(node: Node) -> Node:
    for q in node.users:
        if is_quantize(q):
            for dq in q.users:
                if is_dequantize(dq):
                    return dq
    return node


def measure_sqnr(float_gm: GraphModule, converted: GraphModule, batch: tuple,
                 float_values: dict | None = None) -> tuple[dict[str, float], float]:
    """(node name -> SQNR of that op's output, end-to-end SQNR of the graph outputs) on `batch`,
    from one Interpreter pass per graph (`float_values`: record_float_values of float_gm on
    `batch`, when several quantized graphs are compared with the same float pass)."""
    converted_names = {n.name for n in converted.graph.nodes}
    float_nodes = {n.name: n for n in float_gm.graph.nodes}
    pairs = {}
    for node in converted.graph.nodes:
        if is_op(node) and node.name in float_nodes and isinstance(node.meta.get("val"), torch.Tensor):
            pairs[node.name] = (_float_counterpart(float_nodes[node.name], converted_names).name,
                                _quantized_value_node(node).name)
    by_node: dict[str, list[tuple[str, str]]] = {}
    for name, (float_name, node_name) in pairs.items():
        by_node.setdefault(node_name, []).append((name, float_name))
    layers, test = {}, None
    with torch.inference_mode():
        ref = _FloatCursor(float_gm, batch, {a for a, _ in pairs.values()}, float_values)
        for node, value in node_values(converted, batch):
            if node.op == "output":
                test = value
            for name, float_name in by_node.get(node.name, ()):
                f = ref.value(float_name)
                if isinstance(value, torch.Tensor) and isinstance(f, torch.Tensor) \
                        and f.shape == value.shape and f.is_floating_point():
                    layers[name] = sqnr_db(f, value)
        return layers, _outputs_sqnr(ref.finish(), test)


def _outputs_sqnr(ref, test) -> float:
    ref = [t.flatten() for t in tree_leaves(ref) if isinstance(t, torch.Tensor)]
    test = [t.flatten() for t in tree_leaves(test) if isinstance(t, torch.Tensor)]
    return sqnr_db(torch.cat(ref), torch.cat(test))

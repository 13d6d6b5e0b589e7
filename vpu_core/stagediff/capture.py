"""Each stage's value at every compute op of the converted graph, one held-aside call at a time.

- float: the float graph (torch.fx.Interpreter), the values of the ops matched to the converted
  graph's (kept for the call; in-place ops copied first).
- qdq: the converted graph itself; an op whose output is quantized is read after its
  quantize → dequantize (what the next op reads), as vpu_core.analysis.sqnr does.
- vpu: the integer executor of vpu_core.intsim in lockstep with the Q/DQ pass (the deployed
  pass: VPU partitions in integers, the CPU in float), read at the same nodes.
- xnnpack: ExecuTorch's own runtime, inside its delegates, through devtools'
  intermediate_output_tap (vpu_core.stagediff.runtime_taps).
"""
from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping

import torch
from torch.fx import GraphModule, Interpreter, Node

from vpu_core.analysis.qgraph import QGraph, is_op
from vpu_core.analysis.sqnr import quantized_value_node as value_node
from vpu_core.qdq import is_dequantize, is_quantize
from vpu_core.stagediff.metrics import Step


def output_quantize(node: Node) -> Node | None:
    return next((q for q in node.users if is_quantize(q)), None)


def steps(g: QGraph) -> dict[str, Step]:
    """Compute op -> its output quantization (ops without one are left out)."""
    out = {}
    for node in g.nodes:
        q = output_quantize(node) if is_op(node) else None
        if q is not None and g.qp[q].scales:
            qp = g.qp[q]
            out[node.name] = Step.of(qp.scales[0], qp.zero_points[0], qp.quant_min, qp.quant_max)
    return out


def _mutated(gm: GraphModule) -> set[Node]:
    """Nodes a later in-place op (relu_) overwrites: their values are copied when kept."""
    return {n.args[0] for n in gm.graph.nodes if n.op == "call_function" and n.args
            and isinstance(n.args[0], Node) and getattr(getattr(n.target, "_schema", None), "is_mutable", False)}


def _floats(value: Any) -> torch.Tensor | None:
    return value if isinstance(value, torch.Tensor) and value.is_floating_point() else None


def float_values(gm: GraphModule, batch: tuple, wanted: set[str]) -> dict[str, torch.Tensor]:
    """The float graph's values of the `wanted` nodes on one call."""
    from vpu_core.analysis.sqnr import node_values

    mutated = _mutated(gm)
    out: dict[str, torch.Tensor] = {}
    with torch.inference_mode():
        for node, value in node_values(gm, batch):
            tensor = _floats(value) if node.name in wanted else None
            if tensor is not None:
                out[node.name] = tensor.clone() if node in mutated else tensor
    return out


Reader = Callable[[Node, Any], Any]


def converted_values(g: QGraph, batch: tuple, vpu: Any = None, reference: Mapping[str, torch.Tensor] | None = None
                     ) -> Iterator[tuple[Node, torch.Tensor, Any, Any]]:
    """(compute op, its Q/DQ value, its VPU value or None, its local values or None) in graph
    order, for one call. `vpu`: (assignment, settings, consts) of the integer simulation, None for
    the Q/DQ pass alone. `reference`: op name -> the float value of the op (this call), for the
    local values: each op run as the Q/DQ graph runs it (quantized weights, its own output
    quantize) but on the float values of the ops feeding it, so its error is its own alone: the
    value before and after that output quantize."""
    from vpu_core.intsim.executor import IntExecutor, graph_value

    by_value: dict[Node, list[Node]] = {}
    for node in g.nodes:
        if is_op(node):
            by_value.setdefault(value_node(node), []).append(node)
    ref = Interpreter(g.gm)
    ref.env = {}
    inputs = g.gm.graph.process_inputs(*batch)
    ref.args_iter = iter(inputs)
    free_env: dict[Node, object] = {}
    pending: dict[Node, Any] = {}
    free = None
    if vpu is not None:
        assignment, settings, consts = vpu
        free = IntExecutor(g, assignment, settings, free_env.__getitem__, consts)
        free.interp.args_iter = iter(list(inputs))
    with torch.inference_mode():
        for node in g.nodes:
            if free is not None:               # it reads its inputs before an in-place op changes them
                free_env[node] = free.run(node)
            if reference is not None and is_op(node):      # its inputs are all still there
                pending[node] = _local(node, ref.env, reference)
            ref.env[node] = ref.run_node(node)
            for op in by_value.get(node, ()):
                qdq = _floats(ref.env[node])
                local = pending.pop(op, None)
                if qdq is not None:
                    deployed = _floats(graph_value(node, free_env[node])) if free is not None else None
                    yield op, qdq, deployed, local
            for dead in ref.user_to_last_uses.get(node, []):
                ref.env.pop(dead, None)
                free_env.pop(dead, None)


def _source_op(node: Node) -> Node:
    """The op a dequantize's value comes from (through its quantize), else the node itself."""
    if is_dequantize(node) and isinstance(node.args[0], Node) and is_quantize(node.args[0]) \
            and isinstance(node.args[0].args[0], Node):
        return node.args[0].args[0]
    return node


def _local(op: Node, env: Mapping[Node, Any], reference: Mapping[str, torch.Tensor]
           ) -> tuple[torch.Tensor, ...] | None:
    """`op` on the float values of the ops feeding it (its quantized weights), before and after
    its own output quantize → dequantize; and the same two restricted to the elements inside
    the quantize's grid (rounded, not clipped)."""
    from torch.fx.node import map_arg

    if op.name not in reference:
        return None

    def read(node: Node) -> Any:
        source = _source_op(node)
        return reference.get(source.name, env.get(node)) if is_op(source) else env.get(node)

    try:
        args, kwargs = map_arg((op.args, op.kwargs), read)
        if getattr(getattr(op.target, "_schema", None), "is_mutable", False):     # relu_: never on the reference
            args = tuple(a.clone() if isinstance(a, torch.Tensor) else a for a in args)
        value = _floats(op.target(*args, **kwargs))
        rounded = value
        q = output_quantize(op)
        dq = value_node(op)
        inside = None
        if value is not None and q is not None and dq is not op:
            qargs = _rest(q, env)
            rounded = dq.target(q.target(value, *qargs), *_rest(dq, env))
            if isinstance(qargs[0], float):
                # clipped values are the range's business, not the step's; an exact zero (half of a
                # relu's output) is on every grid and would halve the rounding noise a step explains
                inside = ((rounded - value).abs() <= 0.501 * qargs[0]) & (value != 0)
    except Exception:            # an op the float values cannot feed (shapes a fold changed): no local value
        return None
    if value is None or rounded is None:
        return None
    if inside is None:
        return value, rounded, value, rounded
    return value, rounded, value[inside], rounded[inside]


def _rest(node: Node, env: Mapping[Node, Any]) -> list:
    from torch.fx.node import map_arg

    return list(map_arg(tuple(node.args[1:]), lambda n: env.get(n)))


def vpu_setup(g: QGraph) -> tuple[tuple[Mapping[str, Any], Any, dict], str | None]:
    """((assignment, settings, consts) for converted_values, why the VPU cannot be simulated or None)."""
    from vpu_core.analysis.partition import partition
    from vpu_core.intsim.executor import Settings
    from vpu_core.intsim.prereq import refusal

    assignment = partition(g).assignment
    refused = refusal(g, assignment)
    return (assignment, Settings.of(g.profile), {}), (refused.sentence if refused is not None else None)

"""Lower a converted Q/DQ graph to an ExecuTorch program for XNNPACK, with what it takes to run it.

    edge = lower_edge(qm)            # EdgeLowering: the graph lowered, delegates chosen
    lowered = lower_program(qm)      # LoweredProgram: .pte bytes, op map, inputs and references

    torch.export.export(graph) → to_edge_transform_and_lower(partitioner=[XnnpackPartitioner()])   (lower_edge)
                               → to_executorch() → .pte bytes                                      (lower_program)

`lower_edge` is the project's one XNNPACK lowering: the runtime (`--run`, `export`) emits it, and
the delegation overlay (`--xnnpack-delegation`, Ctrl+D; vpu_core.targets.xnnpack.delegation) reads
which nodes XNNPACK took, and why it left the others, from the same lowered graph.

What is lowered is the converted graph the analysis shows, under either quantizer:

- XNNPACK quantizer: the graph as it is (what ExecuTorch's own flow produces).
- VPU quantizer: the same int8 graph (power-of-two scales, int32 biases), with one exact rewrite.
  XnnpackPartitioner takes a conv / linear only with a float bias (it quantizes the bias itself,
  at s_in·s_w[c]); the VPU's bias is an int32 tensor behind a dequantize, which XNNPACK leaves on
  the CPU, where this runtime has no quantized kernel. Each such dequantize of a constant int32
  bias is folded into the float tensor it computes: q·s_in·s_w[c], which XNNPACK quantizes back
  to exactly q (every value is an integer multiple of its scale). The program therefore runs the
  VPU's own int8 arithmetic on this CPU — not the VPU's shifts (XNNPACK requantizes with float
  multipliers; `--int-sim` models the shifts) — so its node times and outputs are those of the
  graph on screen. Node names are unchanged.

Lowering also runs the float graph and the converted graph once on the held-aside batch: the
references for SQNR, kept with the program so a cached program needs no quantized model.

A program that cannot be lowered, or that needs a kernel this build of the runtime lacks, raises
RuntimeRefusal: one sentence naming the operator (the check still reports everything else).
"""
from __future__ import annotations

import copy
import re
import time
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch
from torch.fx import GraphModule, Node
from torch.fx.node import map_arg
from torch.utils._pytree import tree_leaves

from vpu_core import quiet
from vpu_core.analysis.qgraph import QGraph
from vpu_core.errors import InspectorError, short_reason
from vpu_core.progress import ProgressFn
from vpu_core.qdq import is_dequantize
from vpu_core.targets.results import GraphKind
from vpu_core.targets.xnnpack.op_map import OpMap, build_op_map, non_delegated_kernels

if TYPE_CHECKING:
    from vpu_core.pipeline import QuantizedModel

BACKEND = "xnnpack"


class RuntimeRefusal(InspectorError):
    """The program cannot be lowered or run here; `op` / `node` name what stops it."""

    def __init__(self, message: str, detail: str = "", op: str | None = None, node: str | None = None) -> None:
        super().__init__(message, detail)
        self.op, self.node = op, node


@dataclass
class LoweredProgram:
    """A lowered program and what running it needs (core-internal: holds tensors and bytes)."""

    buffer: bytes                       # the .pte
    op_map: OpMap
    inputs: tuple                       # the held-aside batch, as the program takes it
    float_outputs: list | None          # tensor leaves of the float graph on `inputs` (None: no float graph)
    qdq_outputs: list                   # tensor leaves of the converted graph on `inputs`
    graph_kind: GraphKind = "qdq"       # the converted graph as it is, or with its int32 biases folded
    portable_ops: tuple[str, ...] = ()
    folded_biases: int = 0
    lowering_s: float = 0.0
    meta: dict = field(default_factory=dict)   # input names / shapes, for `export`


@dataclass
class EdgeLowering:
    """The converted graph lowered for XNNPACK, before it is emitted (core-internal: fx graphs).

    The one lowering of the project: `lower_program` emits it as the .pte `--run` runs and
    `export` writes, and the delegation overlay (vpu_core.targets.xnnpack.delegation) reads which nodes
    XNNPACK took from it, so the two never disagree."""

    graph: GraphModule                  # what was exported: qm.converted, or its copy with biases folded
    folded_biases: int
    edge: Any                           # executorch.exir.EdgeProgramManager
    partitioner: Any                    # the XnnpackPartitioner that chose the delegates
    seconds: float

    def lowered_module(self) -> GraphModule:
        """The top-level graph: executorch_call_delegate nodes and the portable ops between them."""
        return self.edge.exported_program().graph_module


def lower_edge(qm: QuantizedModel, progress: ProgressFn | None = None) -> EdgeLowering:
    """`qm.converted` (int32 biases folded, see the module docstring) exported and lowered with
    XnnpackPartitioner; RuntimeRefusal when ExecuTorch cannot lower it."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    start = time.perf_counter()
    gm, folded = fold_int32_biases(qm)
    if progress is not None:
        progress("lower", 0.05)
    partitioner = XnnpackPartitioner()
    try:
        with quiet.torch_chatter():           # a failing pass logs whole graphs: the refusal says it
            exported = torch.export.export(gm, tuple(qm.example_inputs), strict=False)
            edge = to_edge_transform_and_lower(exported, partitioner=[partitioner])
    except Exception as exc:  # ExecuTorch raises many types; the user gets one line
        raise lowering_refusal(exc, traceback.format_exc()) from None
    return EdgeLowering(gm, folded, edge, partitioner, time.perf_counter() - start)


def lower_program(qm: QuantizedModel, progress: ProgressFn | None = None,
                  edge: EdgeLowering | None = None) -> LoweredProgram:
    """Lower `qm.converted` (a QuantizedModel's) to an XNNPACK program; see the module docstring.
    `edge` reuses a lowering of the same `qm` (the delegation overlay's); emitting changes it."""
    start = time.perf_counter()
    edge = edge if edge is not None else lower_edge(qm, progress)
    gm = edge.graph
    inputs = tuple(qm.heldout)
    if progress is not None:
        progress("lower", 0.8)
    try:
        program = edge.edge.to_executorch()
    except Exception as exc:  # ExecuTorch raises many types; the user gets one line
        raise lowering_refusal(exc, traceback.format_exc()) from None
    program_gm = program.exported_program().graph_module
    _refuse_missing_kernels(program_gm, gm)
    op_map = build_op_map(program_gm, gm)
    with torch.inference_mode():
        qdq = _tensor_leaves(qm.converted(*inputs))
        floats = _tensor_leaves(qm.float_graph(*inputs)) if qm.float_graph is not None else None
    if progress is not None:
        progress("lower", 1.0)
    folded = edge.folded_biases
    return LoweredProgram(
        buffer=bytes(program.buffer), op_map=op_map, inputs=inputs, float_outputs=floats,
        qdq_outputs=qdq, graph_kind="qdq, int32 bias folded" if folded else "qdq",
        portable_ops=tuple(sorted({k for k, _ in non_delegated_kernels(program_gm)})),
        folded_biases=folded, lowering_s=edge.seconds + time.perf_counter() - start,
        meta={"inputs": [{"name": n.name, "shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch.")}
                         for n, t in zip(_placeholders(gm), inputs)]})


_NOT_CORE = re.compile(r"Operator (?:torch\._ops\.)?aten\.([\w.]+) is not in Core ATen opset")


def lowering_refusal(exc: BaseException, detail: str = "") -> RuntimeRefusal:
    """One sentence for a failed lowering; an op outside the Core ATen opset (what ExecuTorch
    programs are made of: aten.cumprod, aten.erfinv, …) is named as such."""
    text = str(exc)
    found = _NOT_CORE.search(text)
    if found:
        op = found.group(1).removesuffix(".default")
        return RuntimeRefusal(f"ExecuTorch cannot lower aten.{op}: it is not in the Core ATen opset its "
                              "programs are made of, and no decomposition replaces it.", detail, op=op)
    return RuntimeRefusal(f"ExecuTorch could not lower the program for XNNPACK: {short_reason(exc)}", detail)


def fold_int32_biases(qm: QuantizedModel) -> tuple[GraphModule, int]:
    """A copy of the converted graph with every int32 bias dequantize replaced by its float value
    (the graph itself when there is none); and how many were folded."""
    g = QGraph(qm.converted, qm.profile)
    targets: list[Node] = []
    for op in g.weighted_ops:
        b = g.bias_arg(op)
        if isinstance(b, Node) and is_dequantize(b) and b in g.constants and g.qp[b].dtype == torch.int32:
            targets.append(b)
    if not targets:
        return qm.converted, 0
    gm = copy.deepcopy(qm.converted)
    by_name = {n.name: n for n in gm.graph.nodes}
    for k, original in enumerate(dict.fromkeys(targets)):
        dq = by_name[original.name]
        args, kwargs = map_arg((dq.args, dq.kwargs), lambda n: _attr(gm, n))
        name = f"_vpu_bias_float_{k}"
        gm.register_buffer(name, dq.target(*args, **kwargs).detach().clone())
        with gm.graph.inserting_before(dq):
            value = gm.graph.get_attr(name)
        value.meta = dict(dq.meta)
        dq.replace_all_uses_with(value)
    gm.graph.eliminate_dead_code()
    gm.recompile()
    return gm, len(dict.fromkeys(targets))


def _attr(gm: GraphModule, node: Node):
    obj = gm
    for part in str(node.target).split("."):
        obj = getattr(obj, part)
    return obj


def _refuse_missing_kernels(program_gm: GraphModule, lowered_gm: GraphModule) -> None:
    """The runtime loads a program only if it has a kernel for every operator left outside the
    delegates: name the first one it lacks."""
    from executorch.runtime import Runtime

    from vpu_core.targets.xnnpack.provenance import origin

    available = Runtime.get().operator_registry.operator_names
    names = {n.name for n in lowered_gm.graph.nodes}
    for kernel, node in non_delegated_kernels(program_gm):
        if kernel in available or kernel.startswith("executorch_prim::"):
            continue
        source = origin(node, id(lowered_gm.graph), names) or node.name
        raise RuntimeRefusal(
            f"ExecuTorch's runtime has no kernel for {kernel} (node {source}, outside the XNNPACK "
            f"delegates), so the lowered program cannot run on this CPU.", op=kernel, node=source)


def _tensor_leaves(value) -> list:
    return [t.detach().clone() for t in tree_leaves(value) if isinstance(t, torch.Tensor)]


def _placeholders(gm: GraphModule) -> list[Node]:
    return [n for n in gm.graph.nodes if n.op == "placeholder"]

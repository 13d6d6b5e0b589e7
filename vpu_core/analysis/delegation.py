"""Real XNNPACK delegation: lower the Q/DQ program with ExecuTorch and report what XNNPACK took.

    torch.export.export(qm.converted) → to_edge_transform_and_lower(partitioner=[XnnpackPartitioner()])

The result is a PartitionReport with source="xnnpack" in the same shape as the simulated VPU
partition, keyed by the ORIGINAL node names of qm.converted, so the two can be shown side by side.

Mapping lowered nodes back: every node created by export / to_edge keeps a `from_node` provenance
chain in node.meta (NodeSource: name, graph_id, from_node …). For each lowered call_function node
(inside a delegate's original_module, or left in the top-level graph for portable kernels) we
walk that chain and take the first entry whose graph is qm.converted's graph (graph_id ==
id(qm.converted.graph)) and whose name is a node of it; if no entry carries that graph id (e.g. a
program re-loaded elsewhere) the first entry naming an existing node is used.

An original node is assigned to delegate k when any lowered node derived from it runs inside
delegate k (a matmul becomes expand_copy outside + bmm inside: the compute went to XNNPACK); to
"cpu" when its lowered nodes all run as portable kernels. Nodes with no lowered counterpart
(removed or folded while lowering, graph inputs / outputs, constants) follow the same side rules as
the simulated partition: constants and Q/DQ follow their consumer, the rest is "cpu".
Boundaries and bytes are computed exactly as for the simulated partition (see partition.py).

lowered_counts reproduces ExecuTorch's own accounting (devtools.backend_debug.get_delegation_info):
call_function nodes inside the delegates vs outside them (the delegate calls excluded).
"""
from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING, Callable

import torch
from torch.fx import GraphModule, Node

from vpu_core.analysis.partition import boundaries
from vpu_core.analysis.qgraph import QGraph, is_getitem, is_op
from vpu_core.analysis.results import CpuNode, PartitionReport, Subgraph
from vpu_core.errors import InspectorError, short_reason
from vpu_core.fx_utils import op_name
from vpu_core.qdq import is_qdq

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.pipeline import QuantizedModel


def lower_xnnpack(qm: QuantizedModel) -> GraphModule:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.exir import to_edge_transform_and_lower

    try:
        program = torch.export.export(qm.converted, tuple(qm.example_inputs), strict=False)
        edge = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()])
    except Exception as exc:  # ExecuTorch raises many types; the user gets one line
        import traceback

        raise InspectorError(f"XNNPACK lowering failed: {short_reason(exc)}",
                             traceback.format_exc()) from None
    return edge.exported_program().graph_module


def _origin(node: Node, graph_id: int, names: set[str]) -> str | None:
    fallback = None
    stack = list(node.meta.get("from_node") or [])
    while stack:
        src = stack.pop(0)
        if src.name in names:
            if src.graph_id == graph_id:
                return src.name
            fallback = fallback or src.name
        stack[0:0] = list(src.from_node or [])  # depth first: nearest ancestors first
    return fallback


def _is_delegate_call(node: Node) -> bool:
    return node.op == "call_function" and getattr(node.target, "__name__", "") == "executorch_call_delegate"


def _lowered_modules(lowered: GraphModule) -> list[GraphModule]:
    from executorch.exir.lowered_backend_module import LoweredBackendModule

    mods = [getattr(lowered, n.target) for n in lowered.graph.nodes if n.op == "get_attr"]
    return [m.original_module.graph_module for m in mods if isinstance(m, LoweredBackendModule)]


def _map_lowered(lowered: GraphModule, qm) -> tuple[dict[str, int], dict[str, list[str]], dict]:
    """(original name -> delegate index, original name -> portable lowered op names, counts)."""
    names = {n.name for n in qm.converted.graph.nodes}
    gid = id(qm.converted.graph)
    delegated: dict[str, int] = {}
    for k, sub in enumerate(_lowered_modules(lowered)):
        for n in sub.graph.nodes:
            origin = _origin(n, gid, names) if n.op == "call_function" else None
            if origin is not None:
                delegated.setdefault(origin, k)
    portable: dict[str, list[str]] = {}
    for n in lowered.graph.nodes:
        if n.op != "call_function" or _is_delegate_call(n):
            continue
        if is_getitem(n) and isinstance(n.args[0], Node) and _is_delegate_call(n.args[0]):
            continue  # unpacking a delegate's outputs, not a kernel
        origin = _origin(n, gid, names)
        if origin is not None:
            kernels = portable.setdefault(origin, [])
            if not is_getitem(n):
                kernels.append(getattr(n.target, "__name__", str(n.target)))
    subs = _lowered_modules(lowered)
    counts = {
        "delegated_subgraphs": len(subs),
        "delegated_nodes": sum(1 for s in subs for n in s.graph.nodes if n.op == "call_function"),
        "non_delegated_nodes": sum(1 for n in lowered.graph.nodes
                                   if n.op == "call_function" and not _is_delegate_call(n)),
    }
    return delegated, portable, counts


def _assign(g: QGraph, delegated: dict[str, int], portable: dict[str, list[str]]) -> dict[str, int | str]:
    assignment: dict[str, int | str] = {}
    for node in g.nodes:
        if node.name in delegated:
            assignment[node.name] = delegated[node.name]
        elif node.name in portable or node.op in ("placeholder", "output", "call_module"):
            assignment[node.name] = "cpu"
    order = {n: i for i, n in enumerate(g.nodes)}
    for node in reversed(g.nodes):  # unmapped nodes follow their first consumer (already resolved)
        if node.name in assignment:
            continue
        users = sorted(node.users, key=order.__getitem__)
        follows = (node in g.constants or is_qdq(node) or not is_op(node)) and users
        assignment[node.name] = assignment[users[0].name] if follows else "cpu"
    return assignment


def _reason(node: Node, portable: dict[str, list[str]]) -> str:
    kernels = portable.get(node.name)
    if kernels:
        return f"not delegated by XnnpackPartitioner: runs as portable kernel {', '.join(kernels)}"
    if node.name in portable:
        return "not delegated by XnnpackPartitioner (runs on the CPU)"
    return "not delegated by XnnpackPartitioner (removed or folded while lowering)"


def xnnpack_delegation(qm: QuantizedModel, g: QGraph | None = None,
                       lowered: GraphModule | None = None) -> PartitionReport:
    """The delegation report; `lowered` reuses an already lowered graph module of qm.converted."""
    g = g or QGraph(qm.converted, qm.profile)
    lowered = lowered if lowered is not None else lower_xnnpack(qm)
    delegated, portable, counts = _map_lowered(lowered, qm)
    assignment = _assign(g, delegated, portable)
    n_sub = counts["delegated_subgraphs"]
    members: list[list[str]] = [[] for _ in range(n_sub)]
    for node in g.nodes:
        side = assignment[node.name]
        if isinstance(side, int):
            members[side].append(node.name)
    cpu_nodes = tuple(CpuNode(n.name, op_name(n), _reason(n, portable))
                      for n in g.nodes if is_op(n) and assignment[n.name] == "cpu")
    bounds = boundaries(g, assignment)
    delegated_ops = sorted({op_name(g.by_name[n]) for n in delegated if is_op(g.by_name[n])})
    return PartitionReport(
        profile="XnnpackPartitioner", vpu_ops=tuple(delegated_ops),
        subgraphs=tuple(Subgraph(i, tuple(m)) for i, m in enumerate(members)),
        cpu_nodes=cpu_nodes, boundaries=bounds, transfer_bytes=sum(b.bytes for b in bounds),
        assignment=assignment, source="xnnpack", lowered_counts=counts)


def with_xnnpack_delegation(analysis: Analysis, qm: QuantizedModel, g: QGraph | None = None,
                            progress: Callable[[str, float], None] | None = None) -> Analysis:
    """`analysis` (of `qm`) plus the real XNNPACK delegation, timed as "xnnpack_delegation" and
    reported as stage "delegate". The one way a delegation is added: by `analyze` and by the
    session, which adds it to an analysis it already has (the overlay switched on later)."""
    if progress is not None:
        progress("delegate", 0.0)
    start = time.perf_counter()
    delegation = xnnpack_delegation(qm, g)
    timings = {**analysis.timings_s, "xnnpack_delegation": time.perf_counter() - start}
    if progress is not None:
        progress("delegate", 1.0)
    return dataclasses.replace(analysis, delegation=delegation, timings_s=timings)

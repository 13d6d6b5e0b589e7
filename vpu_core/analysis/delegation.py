"""Real XNNPACK delegation: lower the Q/DQ program with ExecuTorch and report what XNNPACK took.

    lowered = lower_edge(qm)      # vpu_core.runtime.lowering: the ONE lowering, the one `--run` emits
                                  # (export → to_edge_transform_and_lower(XnnpackPartitioner);
                                  # a VPU graph's int32 biases folded to float first)
    report = xnnpack_delegation(qm, lowered=lowered)

The result is a PartitionReport with source="xnnpack" in the same shape as the simulated VPU
partition, keyed by the ORIGINAL node names of qm.converted, so the two can be shown side by side.

Mapping lowered nodes back: every node created by export / to_edge keeps a `from_node` provenance
chain in node.meta (NodeSource: name, graph_id, from_node …). For each lowered call_function node
(inside a delegate's original_module, or left in the top-level graph for portable kernels) we
walk that chain and take the first entry whose graph is the exported graph (qm.converted or its
bias-folded copy, same node names) and whose name is a node of it; if no entry carries that graph id (e.g. a
program re-loaded elsewhere) the first entry naming an existing node is used.

An original node is assigned to delegate k when any lowered node derived from it runs inside
delegate k (a matmul becomes expand_copy outside + bmm inside: the compute went to XNNPACK); to
"cpu" when its lowered nodes all run as portable kernels. Nodes with no lowered counterpart
(removed or folded while lowering, graph inputs / outputs, constants) follow the same side rules as
the simulated partition: constants and Q/DQ follow their consumer, the rest is "cpu".
Boundaries and bytes are computed exactly as for the simulated partition (see partition.py).
Every CPU node says why, as data (`cause`, `detail`), from what XNNPACK's own partitioner
configs say about its lowered ops (vpu_core.analysis.xnnpack_why): no XNNPACK kernel for the op,
rejected by its config's checks (with XNNPACK's words; `dtype` for integer / bool tensors), left
out of the delegates, or removed while lowering.

lowered_counts reproduces ExecuTorch's own accounting (devtools.backend_debug.get_delegation_info):
call_function nodes inside the delegates vs outside them (the delegate calls excluded).
"""
from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING, Callable

from torch.fx import GraphModule, Node

from vpu_core.analysis.partition import boundaries
from vpu_core.analysis.qgraph import QGraph, is_getitem, is_op
from vpu_core.analysis.results import CpuNode, PartitionReport, Subgraph
from vpu_core.fx_utils import op_name
from vpu_core.qdq import is_qdq

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.analysis.xnnpack_why import Why
    from vpu_core.pipeline import QuantizedModel
    from vpu_core.runtime.lowering import EdgeLowering


def lower_xnnpack(qm: QuantizedModel) -> EdgeLowering:
    """qm lowered for XNNPACK: the one lowering the runtime emits too (vpu_core.runtime.lowering:
    int32 biases folded into float, which XNNPACK re-quantizes to the same integers)."""
    from vpu_core.runtime.lowering import lower_edge

    return lower_edge(qm)


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


def _map_lowered(lowered: GraphModule, source: GraphModule
                 ) -> tuple[dict[str, int], dict[str, list[Node]], dict]:
    """(original name -> delegate index, original name -> its lowered nodes left outside the
    delegates, counts); `source` is the graph that was exported (names as in qm.converted)."""
    names = {n.name for n in source.graph.nodes}
    gid = id(source.graph)
    delegated: dict[str, int] = {}
    for k, sub in enumerate(_lowered_modules(lowered)):
        for n in sub.graph.nodes:
            origin = _origin(n, gid, names) if n.op == "call_function" else None
            if origin is not None:
                delegated.setdefault(origin, k)
    portable: dict[str, list[Node]] = {}
    for n in lowered.graph.nodes:
        if n.op != "call_function" or _is_delegate_call(n):
            continue
        if is_getitem(n) and isinstance(n.args[0], Node) and _is_delegate_call(n.args[0]):
            continue  # unpacking a delegate's outputs, not a kernel
        origin = _origin(n, gid, names)
        if origin is not None:
            kernels = portable.setdefault(origin, [])
            if not is_getitem(n):
                kernels.append(n)
    subs = _lowered_modules(lowered)
    counts = {
        "delegated_subgraphs": len(subs),
        "delegated_nodes": sum(1 for s in subs for n in s.graph.nodes if n.op == "call_function"),
        "non_delegated_nodes": sum(1 for n in lowered.graph.nodes
                                   if n.op == "call_function" and not _is_delegate_call(n)),
    }
    return delegated, portable, counts


def _assign(g: QGraph, delegated: dict[str, int], portable: dict[str, list[Node]]) -> dict[str, int | str]:
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


def _cpu_node(node: Node, portable: dict[str, list[Node]], why: dict[str, Why]) -> CpuNode:
    """The CPU entry of an original node XNNPACK did not take: what XNNPACK said about each of its
    lowered ops (vpu_core.analysis.xnnpack_why), as cause, sentence and `detail`."""
    lowered = portable.get(node.name)
    if lowered is None:
        return CpuNode(node.name, op_name(node), "not delegated: removed or folded while lowering for XNNPACK",
                       cause="removed")
    whys = list(dict.fromkeys(why[n.name] for n in lowered if n.name in why))
    if not whys:
        return CpuNode(node.name, op_name(node), "not delegated by XnnpackPartitioner (runs on the CPU)",
                       cause="left_out")
    first = min(whys, key=lambda w: WHY_ORDER.index(w.cause))
    reason = "not delegated: " + "; ".join(w.sentence for w in whys)
    detail = (("cause", first.cause), ("config", first.config), ("check", first.check),
              ("lowered_ops", tuple(w.op for w in whys)), ("dtypes", first.dtypes))
    return CpuNode(node.name, op_name(node), reason, cause=first.cause, detail=detail)


WHY_ORDER = ("dtype", "no_kernel", "rejected", "left_out")


def xnnpack_delegation(qm: QuantizedModel, g: QGraph | None = None, *,
                       lowered: EdgeLowering) -> PartitionReport:
    """The delegation report of `lowered`, a lowering of qm (vpu_core.runtime.lowering.lower_edge)."""
    from vpu_core.analysis.xnnpack_why import why_not_delegated

    g = g or QGraph(qm.converted, qm.profile)
    top = lowered.lowered_module()
    delegated, portable, counts = _map_lowered(top, lowered.graph)
    why = why_not_delegated(lowered, [n for ns in portable.values() for n in ns])
    assignment = _assign(g, delegated, portable)
    n_sub = counts["delegated_subgraphs"]
    members: list[list[str]] = [[] for _ in range(n_sub)]
    for node in g.nodes:
        side = assignment[node.name]
        if isinstance(side, int):
            members[side].append(node.name)
    cpu_nodes = tuple(_cpu_node(n, portable, why) for n in g.nodes if is_op(n) and assignment[n.name] == "cpu")
    bounds = boundaries(g, assignment)
    delegated_ops = sorted({op_name(g.by_name[n]) for n in delegated if is_op(g.by_name[n])})
    return PartitionReport(
        profile="XnnpackPartitioner", vpu_ops=tuple(delegated_ops),
        subgraphs=tuple(Subgraph(i, tuple(m)) for i, m in enumerate(members)),
        cpu_nodes=cpu_nodes, boundaries=bounds, transfer_bytes=sum(b.bytes for b in bounds),
        assignment=assignment, source="xnnpack", lowered_counts=counts)


def with_xnnpack_delegation(analysis: Analysis, qm: QuantizedModel, g: QGraph | None = None,
                            progress: Callable[[str, float], None] | None = None,
                            lower: Callable[[QuantizedModel], EdgeLowering] | None = None) -> Analysis:
    """`analysis` (of `qm`) plus the real XNNPACK delegation, timed as "xnnpack_delegation" and
    reported as stage "delegate". The one way a delegation is added: by `analyze` and by the
    session, which adds it to an analysis it already has (the overlay switched on later), and
    whose `lower` keeps the lowering for the runtime to emit (vpu_core.runtime.service)."""
    if progress is not None:
        progress("delegate", 0.0)
    start = time.perf_counter()
    delegation = xnnpack_delegation(qm, g, lowered=(lower or lower_xnnpack)(qm))
    timings = {**analysis.timings_s, "xnnpack_delegation": time.perf_counter() - start}
    if progress is not None:
        progress("delegate", 1.0)
    return dataclasses.replace(analysis, delegation=delegation, timings_s=timings)

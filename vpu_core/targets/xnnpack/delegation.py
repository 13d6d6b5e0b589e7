"""Real XNNPACK delegation: lower the Q/DQ program with ExecuTorch and report what XNNPACK took.

    lowered = lower_edge(qm)      # lowering.py: the ONE lowering, the one `--run` emits
                                  # (export → to_edge_transform_and_lower(XnnpackPartitioner);
                                  # a VPU graph's int32 biases folded to float first)
    report = xnnpack_delegation(qm, lowered=lowered)

The result is a PartitionReport with source="xnnpack" in the same shape as the simulated VPU
partition, keyed by the ORIGINAL node names of qm.converted, so the two can be shown side by side.

Mapping lowered nodes back: each lowered call_function node (inside a delegate's original_module,
or left in the top-level graph for portable kernels) is named by the converted-graph node its
`from_node` provenance leads to (provenance.origin).

An original node is assigned to delegate k when any lowered node derived from it runs inside
delegate k (a matmul becomes expand_copy outside + bmm inside: the compute went to XNNPACK); to
"cpu" when its lowered nodes all run as portable kernels. Nodes with no lowered counterpart
(removed or folded while lowering, graph inputs / outputs, constants) follow the same side rules as
the simulated partition: constants and Q/DQ follow their consumer, the rest is "cpu"
(vpu_core.targets.verdicts, which computes boundaries and bytes as the simulated partition does).
Every CPU node says why, as data (`cause`, `detail`), from what XNNPACK's own partitioner
configs say about its lowered ops (vpu_core.targets.xnnpack.why): no XNNPACK kernel for the op,
rejected by its config's checks (with XNNPACK's words; `dtype` for integer / bool tensors), left
out of the delegates, or removed while lowering.

lowered_counts reproduces ExecuTorch's own accounting (devtools.backend_debug.get_delegation_info):
call_function nodes inside the delegates vs outside them (the delegate calls excluded).
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

from torch.fx import GraphModule, Node

from vpu_core.analysis.qgraph import QGraph, is_getitem, is_op
from vpu_core.analysis.results import CpuNode, PartitionReport, Placement
from vpu_core.fx_utils import op_name
from vpu_core.targets.verdicts import placement_report
from vpu_core.targets.xnnpack.provenance import is_delegate_call, origin

if TYPE_CHECKING:
    from vpu_core.stages import TimingKey
    from vpu_core.targets.xnnpack.why import Why
    from vpu_core.pipeline import QuantizedModel
    from vpu_core.targets.xnnpack.lowering import EdgeLowering


def lower_xnnpack(qm: QuantizedModel) -> EdgeLowering:
    """qm lowered for XNNPACK: the one lowering the runtime emits too (vpu_core.targets.xnnpack.lowering:
    int32 biases folded into float, which XNNPACK re-quantizes to the same integers)."""
    from vpu_core.targets.xnnpack.lowering import lower_edge

    return lower_edge(qm)


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
            source = origin(n, gid, names) if n.op == "call_function" else None
            if source is not None:
                delegated.setdefault(source, k)
    portable: dict[str, list[Node]] = {}
    for n in lowered.graph.nodes:
        if n.op != "call_function" or is_delegate_call(n):
            continue
        if is_getitem(n) and isinstance(n.args[0], Node) and is_delegate_call(n.args[0]):
            continue  # unpacking a delegate's outputs, not a kernel
        source = origin(n, gid, names)
        if source is not None:
            kernels = portable.setdefault(source, [])
            if not is_getitem(n):
                kernels.append(n)
    subs = _lowered_modules(lowered)
    counts = {
        "delegated_subgraphs": len(subs),
        "delegated_nodes": sum(1 for s in subs for n in s.graph.nodes if n.op == "call_function"),
        "non_delegated_nodes": sum(1 for n in lowered.graph.nodes
                                   if n.op == "call_function" and not is_delegate_call(n)),
    }
    return delegated, portable, counts


def _cpu_node(node: Node, portable: dict[str, list[Node]], why: dict[str, Why]) -> CpuNode:
    """The CPU entry of an original node XNNPACK did not take: what XNNPACK said about each of its
    lowered ops (vpu_core.targets.xnnpack.why), as cause, sentence and `detail`."""
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
    """The delegation report of `lowered`, a lowering of qm (vpu_core.targets.xnnpack.lowering.lower_edge)."""
    from vpu_core.targets.xnnpack.why import why_not_delegated

    g = g or QGraph(qm.converted, qm.profile)
    top = lowered.lowered_module()
    delegated, portable, counts = _map_lowered(top, lowered.graph)
    why = why_not_delegated(lowered, [n for ns in portable.values() for n in ns])
    # a node that runs in a delegate is XNNPACK's; one whose lowered ops all run outside, the CPU's
    placed: dict[str, Placement] = {**{n: "cpu" for n in portable if n not in delegated}, **delegated}
    delegated_ops = sorted({op_name(g.by_name[n]) for n in delegated if is_op(g.by_name[n])})
    return placement_report(g, placed, lambda n: _cpu_node(n, portable, why), source="xnnpack",
                            profile="XnnpackPartitioner", ops=tuple(delegated_ops), lowered_counts=counts,
                            subgraph_count=counts["delegated_subgraphs"])


def timed_xnnpack_delegation(qm: QuantizedModel, g: QGraph | None = None,
                             progress: Callable[[str, float], None] | None = None,
                             lower: Callable[[QuantizedModel], EdgeLowering] | None = None,
                             ) -> tuple[PartitionReport, dict[TimingKey, float]]:
    """The real XNNPACK delegation of `qm` and its time ({"xnnpack_delegation": s}), reported as
    stage "delegate"; `lower` keeps the lowering for the runtime to emit
    (vpu_core.targets.xnnpack.service). The session attaches it beside the analysis
    (Inspection.attached.delegation), never into it."""
    if progress is not None:
        progress("delegate", 0.0)
    start = time.perf_counter()
    delegation = xnnpack_delegation(qm, g, lowered=(lower or lower_xnnpack)(qm))
    if progress is not None:
        progress("delegate", 1.0)
    return delegation, {"xnnpack_delegation": time.perf_counter() - start}

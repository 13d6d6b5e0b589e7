"""Partition (constraint 1): which nodes run on the VPU, which fall back to the CPU, what crosses.

Assignment of every graph node (each exactly once, to a subgraph id or "cpu"):
- an op (call_function, not Q/DQ) is a VPU candidate when its ATen op is in the profile's op list
  and every tensor it reads and writes is floating point (int64 ids, bool masks, index and shape
  arithmetic are never quantized, so they stay on the CPU with that reason);
  a `getitem` follows the op whose tuple it reads;
- a dequantize belongs to the side of the op it feeds (VPU if any op it feeds is a VPU op);
- a quantize belongs to the VPU when it feeds a VPU op, or when it quantizes a value produced on
  the VPU (the VPU requantizes its own outputs, so a quantized value leaves the VPU as int8);
- torch.fx's CapabilityBasedPartitioner groups the candidates into connected subgraphs without
  creating cycles between them (no horizontal fusion of unconnected nodes);
- parameters and constants (get_attr) belong to their first consumer;
- graph inputs, the output node and the export guard live on the host: "cpu".

Boundary edges: every data edge (src → dst) between a node on the VPU (any subgraph) and a node on
the CPU, with direction "vpu->cpu" or "cpu->vpu". Edges from constants never count (they are
loaded once, not transferred), nor do shape scalars (sym_size of a dynamic batch). The bytes are those of the tensor the edge carries, i.e. src's
output: numel × dtype size (an int8 tensor crossing counts 1 byte per element; a symbolic
dimension counts at its example value). transfer_bytes is the sum over all boundary edges.
"""
from __future__ import annotations

from typing import Callable

import math

import torch
from torch.fx import GraphModule, Node
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase

from vpu_core.analysis.acyclic import split_cycles
from vpu_core.analysis.qgraph import QGraph, is_getitem, is_op
from vpu_core.analysis.results import Boundary, CpuNode, PartitionReport, RuleInfo, Subgraph
from vpu_core.fx_utils import dtype_name, node_dtypes, non_float_tensor, op_name
from vpu_core.profile import HardwareProfile, op_matches
from vpu_core.qdq import is_qdq, is_quantize


# Constraint 1 is enforced by partitioning, not by a check of the Q/DQ graph: it is not one of the
# seven rules of check_vpu (nor of JSON "rules"), but it is shown to users beside them.
OP_LIST_RULE = RuleInfo(
    id="vpu_op_list", constraint=1,
    title="Only ops in the VPU op list run on the VPU",
    reason="The VPU has kernels only for the ops of its op list (the hardware profile); any other "
           "op falls back to the CPU, and every edge between the two moves its tensor across.")


class _NodeSet(OperatorSupportBase):
    def __init__(self, names: set[str]) -> None:
        super().__init__()
        self.names = names

    def is_node_supported(self, submodules, node: Node) -> bool:
        return node.name in self.names


class _Partitioner(CapabilityBasedPartitioner):
    # The base class rebuilds dict(named_modules()) for every node it asks about; our support
    # test needs no submodules, and this keeps partitioning a few ms on large graphs.
    def _is_node_supported(self, node: Node) -> bool:
        return self.operator_support.is_node_supported({}, node)


def dtype_lookup(g: QGraph) -> Callable[[Node], list[torch.dtype]]:
    """Output dtypes of a node of the converted graph (Q/DQ nodes carry no meta of their own)."""
    def dtypes_of(node: Node) -> list[torch.dtype]:
        meta = g.tensor_meta.get(node.name)
        return [meta[1]] if meta and meta[1] is not None else node_dtypes(node)
    return dtypes_of


def vpu_candidates(g: QGraph) -> set[str]:
    """Names of the call_function nodes that may run on the VPU (see the module docstring)."""
    gm, profile, dtypes_of = g.gm, g.profile, dtype_lookup(g)
    on_vpu: dict[Node, bool] = {}
    for node in gm.graph.nodes:  # topological: ops and getitems first pass
        if is_op(node):
            on_vpu[node] = (op_matches(op_name(node), profile.vpu_ops)
                            and non_float_tensor(node, dtypes_of) is None)
        elif is_getitem(node):
            on_vpu[node] = on_vpu.get(node.args[0], False)
    feeds: dict[Node, bool] = {}
    for node in reversed(gm.graph.nodes):  # users before producers
        if is_qdq(node):
            feeds[node] = any(feeds.get(u, False) if is_qdq(u) else on_vpu.get(u, False)
                              for u in node.users)
    names = {n.name for n, v in on_vpu.items() if v}
    for node, feeds_vpu in feeds.items():
        produced_on_vpu = is_quantize(node) and on_vpu.get(node.args[0], False)
        if feeds_vpu or produced_on_vpu:
            names.add(node.name)
    return names


def _assignment(g: QGraph, partitions) -> dict[str, int | str]:
    """Subgraph ids in graph order, split until no two subgraphs wait on each other (acyclic.py);
    constants follow their first consumer; the rest is "cpu"."""
    order = {n: i for i, n in enumerate(g.nodes)}
    ordered = sorted(partitions, key=lambda p: min(order[n] for n in p.nodes))
    proposed = {n.name: sid for sid, p in enumerate(ordered) for n in p.nodes}
    assignment: dict[str, int | str] = split_cycles(g.nodes, proposed)
    for node in reversed(g.nodes):  # consumers are resolved before the constants they read
        if node.name in assignment:
            continue
        users = sorted(node.users, key=order.__getitem__)
        if node in g.constants and users:
            assignment[node.name] = assignment[users[0].name]
        else:
            assignment[node.name] = "cpu"
    return assignment


def tensor_bytes(meta: tuple | None) -> tuple[int, tuple[int, ...], str]:
    """(bytes, shape, dtype text) of a (shape, dtype) pair; symbolic dims at their example value."""
    if not meta or meta[1] is None:
        return 0, (), ""
    shape = tuple(_concrete(d) for d in meta[0])
    dtype = meta[1]
    size = torch.empty((), dtype=dtype).element_size()
    return math.prod(shape) * size, shape, dtype_name(dtype)


def _concrete(d) -> int:
    if isinstance(d, torch.SymInt):
        hint = d.node.hint
        return int(hint) if hint is not None else 1
    return int(d)


def boundaries(g: QGraph, assignment: dict) -> tuple[Boundary, ...]:
    out = []
    for dst in g.nodes:
        for src in dst.all_input_nodes:
            if src.op == "get_attr" or src in g.constants:
                continue
            if isinstance(src.meta.get("val"), (torch.SymInt, int)):
                continue  # a shape scalar (sym_size of a dynamic batch): host metadata, not data
            a, b = assignment[src.name], assignment[dst.name]
            if (a == "cpu") == (b == "cpu"):
                continue
            nbytes, shape, dtype = tensor_bytes(g.tensor_meta.get(src.name))
            out.append(Boundary(src.name, dst.name, "vpu->cpu" if b == "cpu" else "cpu->vpu",
                                nbytes, shape, dtype))
    return tuple(out)


INT_REASON = "the VPU computes int8-quantized float activations only"


def cpu_reason(node: Node, profile: HardwareProfile, candidates: set[str],
               dtypes_of: Callable[[Node], list[torch.dtype]] = node_dtypes) -> str:
    """Why `node` runs on the CPU. A non-float output comes first (its op may well be listed:
    an int64 `view` or `add` is index arithmetic, not an activation), then the op list."""
    name = op_name(node)
    bad = non_float_tensor(node, dtypes_of)
    if bad is not None and bad[0] == "output":
        return f"{_kind(bad[1])} tensor op: {name} produces {dtype_name(bad[1])}; {INT_REASON}"
    if not op_matches(name, profile.vpu_ops):
        return f"{name} is not in the VPU op list (profile {profile.name})"
    if bad is not None:
        return f"{_kind(bad[1])} tensor op: {name} reads {dtype_name(bad[1])} '{bad[0]}'; {INT_REASON}"
    if node.name not in candidates:  # not reached today: listed, all-float ops are candidates
        return f"{name} is in the VPU op list but was not proposed for the VPU"
    return f"{name} is in the VPU op list but could not join a VPU subgraph without a cycle"


def _kind(dtype: torch.dtype) -> str:
    return "bool" if dtype == torch.bool else "integer"


def partition(g: QGraph) -> PartitionReport:
    gm, profile = g.gm, g.profile
    candidates = vpu_candidates(g)
    # skip_horizontal_fusion: only merge along data edges, so every subgraph stays connected.
    partitioner = _Partitioner(gm, _NodeSet(candidates), allows_single_node_partition=True,
                               skip_horizontal_fusion=True)
    assignment = _assignment(g, partitioner.propose_partitions())
    n_sub = len({v for v in assignment.values() if v != "cpu"})
    members: list[list[str]] = [[] for _ in range(n_sub)]
    for node in gm.graph.nodes:
        side = assignment[node.name]
        if isinstance(side, int):
            members[side].append(node.name)
    dtypes_of = dtype_lookup(g)
    cpu_nodes = tuple(CpuNode(n.name, op_name(n), cpu_reason(n, profile, candidates, dtypes_of))
                      for n in gm.graph.nodes if is_op(n) and assignment[n.name] == "cpu")
    bounds = boundaries(g, assignment)
    return PartitionReport(
        profile=profile.name, vpu_ops=profile.vpu_ops,
        subgraphs=tuple(Subgraph(i, tuple(m)) for i, m in enumerate(members)),
        cpu_nodes=cpu_nodes, boundaries=bounds, transfer_bytes=sum(b.bytes for b in bounds),
        assignment=assignment, source="simulated")

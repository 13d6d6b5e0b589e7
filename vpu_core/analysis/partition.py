"""Partition (constraint 1): which nodes run on the VPU, which fall back to the CPU, what crosses
(docs/spec.md, "The partition").

Assignment of every graph node (each exactly once, to a subgraph id or "cpu"):
- an op (call_function, not Q/DQ) is a VPU candidate when vpu_core.analysis.verdict says so (its
  op, or the kernel it runs as, is in the profile's op list; every tensor it reads and writes is
  floating point — int64 ids, bool masks, index and shape arithmetic are never quantized; every
  per-op limit and the SRAM of the profile hold) and, in a Q/DQ graph, the quantizer did not
  leave it in float (cause "float": it reads an activation that is neither dequantized, directly
  or through layout ops, nor the raw output of the op it is fused to, or a conv / linear / alias
  whose weight is not dequantized — the VPU computes int8 only);
  a `getitem` follows the op whose tuple it reads;
- a dequantize belongs to the side of the op it feeds (VPU if any op it feeds is a VPU op);
- a quantize belongs to the VPU when it quantizes a value produced on the VPU (the VPU
  requantizes its own outputs, so a quantized value leaves the VPU as int8); a quantize of a value
  produced on the CPU belongs to the VPU only when everything it feeds (through its dequantizes)
  is on the VPU — one that also feeds the CPU stays there: the CPU quantizes, the int8 values
  cross (T5's `to` → quantize → {VPU add, CPU mul});
- a subgraph with no op of its own (only Q/DQ nodes, e.g. split off by the cycle check) runs
  nothing on the VPU: its nodes go to the CPU;
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


import math
from typing import Mapping

import torch
from torch.fx import Node
from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
from torch.fx.passes.operator_support import OperatorSupportBase

from vpu_core.analysis.acyclic import split_cycles
from vpu_core.analysis.extreme import FLOAT_REASON_KEY
from vpu_core.analysis.macs import op_macs
from vpu_core.analysis.qgraph import QGraph, is_getitem, is_op
from vpu_core.analysis.results import Boundary, CpuNode, PartitionReport, Placement, RuleInfo, Subgraph
from vpu_core.analysis.verdict import INT_REASON, Verdict, dtype_lookup, op_verdict
from vpu_core.fx_utils import concrete_dim, dtype_name, op_name
from vpu_core.hardware.nodes import is_constant
from vpu_core.hardware.ops import is_layout, op_matches
from vpu_core.qdq import is_dequantize, is_qdq, is_quantize


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


def verdicts(g: QGraph, assume_quantized: frozenset[str] = frozenset()) -> dict[Node, Verdict]:
    """The verdict on every op of `g` (vpu_core.analysis.verdict), plus cause "float" in a Q/DQ
    graph for an op the quantizer left in float — unless it is in `assume_quantized` (the what-if
    asks what a changed profile would do, and the VPU quantizer would then quantize it)."""
    dtypes_of = dtype_lookup(g)
    quantized_graph = bool(g.qp)
    out = {}
    for node in g.nodes:
        if not is_op(node):
            continue
        verdict = op_verdict(g, node, dtypes_of)
        if verdict.on_vpu and quantized_graph and node.name not in assume_quantized:
            verdict = _left_in_float(g, node, verdict)
        out[node] = verdict
    return out


def _left_in_float(g: QGraph, node: Node, verdict: Verdict) -> Verdict:
    chosen = node.meta.get(FLOAT_REASON_KEY)
    if chosen:      # the quantizer said it left this op in float, and why (a mask constant, a request)
        return Verdict(False, "float", chosen, verdict.kernel)
    for src in node.all_input_nodes:
        meta = g.tensor_meta.get(src.name)
        if meta is None or meta[1] is None or not meta[1].is_floating_point or is_constant(src):
            continue
        if not _int8_value(g, src, node):
            reason = (f"{op_name(node)} was left in float by the quantizer: it reads {src.name} "
                      f"without a quantize / dequantize; {INT_REASON}")
            return Verdict(False, "float", reason, verdict.kernel)
    weight = verdict.kernel.weight_of(node.args) if verdict.kernel is not None else None
    if isinstance(weight, Node) and not _int8_value(g, weight, node):
        # XNNPACK leaves addmm / mm with a constant weight in float: its input may be int8, the
        # weight is not (a conv / linear bias stays float under XNNPACK and is not checked)
        return Verdict(False, "float", f"{op_name(node)} was left in float by the quantizer: its "
                       f"weight {weight.name} is not quantized; {INT_REASON}", verdict.kernel)
    return verdict


def _int8_value(g: QGraph, src: Node, reader: Node) -> bool:
    """`src` holds int8 values as `reader` reads it: a dequantize, a layout op (or tuple item) of
    such a value, or the raw output of the op `reader` is fused to (an activation after it)."""
    while True:
        if is_dequantize(src):
            return True
        if src.op != "call_function":
            return False
        if is_getitem(src) or is_layout(op_name(src)):
            if not src.all_input_nodes:
                return False
            src = src.all_input_nodes[0]
            continue
        profile = g.profile
        return (len(src.users) == 1 and op_matches(op_name(reader), profile.fused_activations)
                and g.listed(src, profile.fusable_ops))


def vpu_candidates(g: QGraph, on_vpu: dict[Node, bool]) -> set[str]:
    """Names of the call_function nodes that may run on the VPU (see the module docstring), given
    whether each op may (its verdict)."""
    on_vpu = dict(on_vpu)
    for node in g.nodes:  # topological: a getitem follows the op whose tuple it reads
        if is_getitem(node):
            on_vpu[node] = on_vpu.get(node.args[0], False)
    feeds: dict[Node, bool] = {}
    for node in reversed(g.nodes):  # users before producers
        if is_qdq(node):
            sides = [feeds.get(u, False) if is_qdq(u) else on_vpu.get(u, False) for u in node.users]
            feeds[node] = any(sides)
            if is_quantize(node) and not on_vpu.get(node.args[0], False):
                # a value of the CPU that the CPU reads too: the CPU quantizes it, int8 crosses
                feeds[node] = bool(sides) and all(sides)
    names = {n.name for n, v in on_vpu.items() if v}
    for node, feeds_vpu in feeds.items():
        produced_on_vpu = is_quantize(node) and on_vpu.get(node.args[0], False)
        if feeds_vpu or produced_on_vpu:
            names.add(node.name)
    return names


def _assignment(g: QGraph, partitions) -> dict[str, Placement]:
    """Subgraph ids in graph order, split until no two subgraphs wait on each other (acyclic.py);
    constants follow their first consumer; the rest is "cpu"."""
    order = {n: i for i, n in enumerate(g.nodes)}
    ordered = sorted(partitions, key=lambda p: min(order[n] for n in p.nodes))
    proposed = {n.name: sid for sid, p in enumerate(ordered) for n in p.nodes}
    assignment: dict[str, Placement] = dict(split_cycles(g.nodes, proposed))
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
    shape = tuple(concrete_dim(d) for d in meta[0])
    dtype = meta[1]
    size = torch.empty((), dtype=dtype).element_size()
    return math.prod(shape) * size, shape, dtype_name(dtype)


def boundaries(g: QGraph, assignment: Mapping[str, Placement]) -> tuple[Boundary, ...]:
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


def _cpu_node(g: QGraph, node: Node, verdict: Verdict | None) -> CpuNode:
    if verdict is None or verdict.on_vpu:   # not reached: every VPU candidate joins a subgraph
        return CpuNode(node.name, op_name(node), f"{op_name(node)} could not join a VPU subgraph",
                       "op_list", macs=op_macs(g, node))
    runs_as = verdict.kernel.runs_as if verdict.kernel is not None else ""
    return CpuNode(node.name, op_name(node), verdict.reason, verdict.cause or "op_list", verdict.limits, runs_as,
                   op_macs(g, node))


def _proposed(g: QGraph, candidates: set[str]) -> dict[str, Placement]:
    # skip_horizontal_fusion: only merge along data edges, so every subgraph stays connected.
    partitioner = _Partitioner(g.gm, _NodeSet(candidates), allows_single_node_partition=True,
                               skip_horizontal_fusion=True)
    return _assignment(g, partitioner.propose_partitions())


def _without_ops(g: QGraph, assignment: Mapping[str, Placement]) -> set[str]:
    """The nodes of subgraphs that hold no op of their own (only quantize / dequantize nodes and
    the constants they read)."""
    members: dict[Placement, list[Node]] = {}
    for node in g.nodes:
        members.setdefault(assignment[node.name], []).append(node)
    return {n.name for where, nodes in members.items() if where != "cpu"
            and not any(is_op(n) or is_getitem(n) for n in nodes) for n in nodes}


def partition(g: QGraph, assume_quantized: frozenset[str] = frozenset()) -> PartitionReport:
    """The partition of `g` under `g.profile`; `assume_quantized` names ops the what-if treats as
    quantized although the quantizer left them in float (see `verdicts`)."""
    return partition_by(g, verdicts(g, assume_quantized))


def partition_by(g: QGraph, decided: dict[Node, Verdict], source: str = "simulated") -> PartitionReport:
    """The partition of `g` with the verdict of each op given (e.g. the predicted verdicts of an
    exported float graph: vpu_core.analysis.predicted)."""
    gm, profile = g.gm, g.profile
    candidates = vpu_candidates(g, {n: v.on_vpu for n, v in decided.items()})
    assignment = _proposed(g, candidates)
    idle = _without_ops(g, assignment)
    if idle:                             # Q/DQ-only subgraphs: to the CPU, and group again
        assignment = _proposed(g, candidates - idle)
    n_sub = len({v for v in assignment.values() if v != "cpu"})
    members: list[list[str]] = [[] for _ in range(n_sub)]
    for node in gm.graph.nodes:
        where = assignment[node.name]
        if isinstance(where, int):
            members[where].append(node.name)
    cpu_nodes = tuple(_cpu_node(g, n, decided.get(n)) for n in gm.graph.nodes
                      if is_op(n) and assignment[n.name] == "cpu")
    bounds = boundaries(g, assignment)
    aliases = {n.name: v.kernel.runs_as for n, v in decided.items()
               if v.kernel is not None and v.kernel.alias}
    return PartitionReport(
        profile=profile.name, vpu_ops=profile.vpu_ops,
        subgraphs=tuple(Subgraph(i, tuple(m)) for i, m in enumerate(members)),
        cpu_nodes=cpu_nodes, boundaries=bounds, transfer_bytes=sum(b.bytes for b in bounds),
        assignment=assignment, source=source, aliases=aliases)

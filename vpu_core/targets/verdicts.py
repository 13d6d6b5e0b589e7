"""Building a target's verdict from the ops it placed: the rest of the graph follows them.

    report = placement_report(g, placed, cpu_node, source="conv-only", profile="…", ops=("conv2d",))

A target decides about ops (what its partitioner or compiler took); a PartitionReport places every
node. `placed` maps the nodes the target decided on to a subgraph id or "cpu"; every other op is
the CPU's (`cpu_node(node)` says why), and Q/DQ nodes, constants, getitems and other non-ops
follow their first consumer — a dequantize belongs to the side it feeds, as in the simulated
partition (vpu_core.analysis.partition) — while graph inputs, the output and submodule calls stay
on the host. Boundaries and their bytes are the simulated partition's.
"""
from __future__ import annotations

from typing import Callable, Mapping

from torch.fx import Node

from vpu_core.analysis.partition import boundaries
from vpu_core.analysis.qgraph import QGraph, is_op
from vpu_core.analysis.results import CpuNode, PartitionReport, Placement, Subgraph
from vpu_core.qdq import is_qdq

def follow_consumers(g: QGraph, placed: Mapping[str, Placement]) -> dict[str, Placement]:
    """Every node of `g` assigned: `placed` as given; host nodes and undecided ops "cpu"; the rest
    with its first consumer (graph order)."""
    assignment: dict[str, Placement] = {}
    for node in g.nodes:
        if node.name in placed:
            assignment[node.name] = placed[node.name]
        elif node.op in ("placeholder", "output", "call_module"):
            assignment[node.name] = "cpu"
    order = {n: i for i, n in enumerate(g.nodes)}
    for node in reversed(g.nodes):      # consumers are resolved before what they read
        if node.name in assignment:
            continue
        users = sorted(node.users, key=order.__getitem__)
        follows = (node in g.constants or is_qdq(node) or not is_op(node)) and users
        assignment[node.name] = assignment[users[0].name] if follows else "cpu"
    return assignment


def _folded_into(g: QGraph, assignment: Mapping[str, Placement],
                 cpu_node: Callable[[Node], CpuNode]) -> dict[str, Placement]:
    """The ops the lowering folded away ("removed") inside one partition -> that partition. Such an
    op runs nowhere, so it neither cuts its partition nor moves bytes: every placed op around it
    (through Q/DQ nodes and other removed ops) must be in the same partition for it to count as
    folded into it; one at the edge between two sides stays "cpu" (its boundary is real)."""
    removed = {n.name for n in g.nodes if is_op(n) and assignment[n.name] == "cpu"
               and cpu_node(n).cause == "removed"}

    def reach(node: Node, step: Callable[[Node], list[Node]]) -> set[Placement]:
        found: set[Placement] = set()
        todo, seen = step(node), set()
        while todo:
            n = todo.pop()
            if n.name in seen:
                continue
            seen.add(n.name)
            if n.name in removed or is_qdq(n):
                todo += step(n)
            elif n.op not in ("get_attr",) and n not in g.constants:
                found.add(assignment[n.name])
        return found

    out: dict[str, Placement] = {}
    for node in g.nodes:
        if node.name not in removed:
            continue
        around = reach(node, lambda n: [a for a in n.all_input_nodes]) | reach(node, lambda n: list(n.users))
        if len(around) == 1 and isinstance(next(iter(around)), int):
            out[node.name] = next(iter(around))
    return out


def placement_report(g: QGraph, placed: Mapping[str, Placement], cpu_node: Callable[[Node], CpuNode], *,
                     source: str, profile: str, ops: tuple[str, ...] = (),
                     lowered_counts: dict | None = None, subgraph_count: int | None = None) -> PartitionReport:
    """The PartitionReport of a target that placed `placed` (subgraph ids 0..n-1); `ops` the op
    names its accelerator takes (PartitionReport.vpu_ops), `profile` what judged ("XnnpackPartitioner"),
    `subgraph_count` how many subgraphs it formed when some may hold none of our nodes."""
    assignment = follow_consumers(g, placed)
    folded = _folded_into(g, assignment, cpu_node)
    if folded:
        assignment = follow_consumers(g, {**placed, **folded})
    count = 1 + max((s for s in assignment.values() if isinstance(s, int)), default=-1)
    count = max(count, subgraph_count or 0)
    members: list[list[str]] = [[] for _ in range(count)]
    for node in g.nodes:
        where = assignment[node.name]
        if isinstance(where, int):
            members[where].append(node.name)
    cpu_nodes = tuple(cpu_node(n) for n in g.nodes if is_op(n) and (assignment[n.name] == "cpu" or n.name in folded))
    bounds = boundaries(g, assignment)
    return PartitionReport(
        profile=profile, vpu_ops=ops, subgraphs=tuple(Subgraph(i, tuple(m)) for i, m in enumerate(members)),
        cpu_nodes=cpu_nodes, boundaries=bounds, transfer_bytes=sum(b.bytes for b in bounds),
        assignment=dict(assignment), source=source, lowered_counts=dict(lowered_counts or {}))

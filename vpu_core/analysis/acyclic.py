"""Make a partition schedulable: no two VPU subgraphs may wait on each other.

torch.fx's CapabilityBasedPartitioner keeps every subgraph free of cycles through the nodes
outside it, but two subgraphs can still depend on each other jointly: A feeds B, B feeds a CPU op,
that CPU op feeds A (A → B → cpu → A). Each runs as one unit on the VPU, so neither could start
first. `split_cycles` finds such a cycle between units (a subgraph, or one CPU node) and splits a
subgraph on it: the nodes that depend on where the cycle enters it go to a new subgraph, the rest
stay. One subgraph on every such cycle exits through a node that does not depend on its entry
(otherwise the node graph itself would have a cycle), so each split removes that cycle; every
part is then split into its connected pieces, so a subgraph stays connected. It works on the
proposed subgraphs only: nodes without an id (CPU ops, constants not yet attached) are CPU units
here, which read nothing from a subgraph (constants) or are one node each (CPU ops).
"""
from __future__ import annotations

from typing import Mapping

import networkx as nx
from torch.fx import Node

from vpu_core.analysis.results import Placement


def split_cycles(nodes: list[Node], proposed: Mapping[str, int]) -> dict[str, int]:
    """`proposed` (node name → subgraph id, for the nodes in a subgraph) with subgraphs split until
    the graph of units is acyclic, ids renumbered in graph order; unchanged when it already is."""
    assignment, changed = dict(proposed), False
    while True:
        cycle = _unit_cycle(nodes, assignment)
        if cycle is None:
            return _renumbered(nodes, assignment) if changed else assignment
        assignment = _split_on(cycle, nodes, assignment)
        changed = True


def _unit(assignment: Mapping[str, Placement], name: str) -> Placement | tuple[str, str]:
    """A node's unit: its subgraph, or ("cpu", the node) for a node of its own on the CPU."""
    where = assignment.get(name, "cpu")
    return ("cpu", name) if where == "cpu" else where


def _unit_cycle(nodes: list[Node], assignment: Mapping[str, int]):
    """A cycle of the condensed graph as [(unit, unit, [(src, dst) node pairs])], or None.

    The cycle is the one networkx's `find_cycle` returns on the same graph (units in order of
    first appearance, edges in order of first crossing): a depth-first search from each unit not
    yet explored, the first edge back onto the active path closing the cycle. Written out because
    `find_cycle` re-walks everything reachable from every start (quadratic: seconds per partition
    on a 1,600-node graph, and the op-list what-if partitions once per candidate op)."""
    succ: dict = {}                                    # unit -> {unit: [(src, dst)]}, in order
    for node in nodes:
        b = _unit(assignment, node.name)
        for src in node.all_input_nodes:
            a = _unit(assignment, src.name)
            if a != b:
                out = succ.setdefault(a, {})
                succ.setdefault(b, {})
                out.setdefault(b, []).append((src, node))
    path = _back_edge_path(succ)
    if path is None:
        return None
    return [(a, b, succ[a][b]) for a, b in zip(path, path[1:])]


def _back_edge_path(succ: dict) -> list | None:
    """[u0, u1, …, u0]: the first cycle a depth-first search in `succ`'s order meets, or None."""
    done: set = set()
    for start in succ:
        if start in done:
            continue
        active, stack = {start: 0}, [(start, iter(succ[start]))]
        while stack:
            unit, edges = stack[-1]
            head = next(edges, None)
            if head is None:
                stack.pop()
                del active[unit]
                done.add(unit)
            elif head in active:
                path = [u for u, _ in stack[active[head]:]]
                return path + [head]
            elif head not in done:
                active[head] = len(stack)
                stack.append((head, iter(succ[head])))
    return None


def _split_on(cycle, nodes: list[Node], assignment: dict[str, int]) -> dict[str, int]:
    for i, (_, unit, entering) in enumerate(cycle):
        if isinstance(unit, tuple):          # a CPU node: one node, never split
            continue
        members = {n for n in nodes if assignment.get(n.name) == unit}
        late = _descendants_within({dst for _, dst in entering}, members)
        leaving = {src for src, _ in cycle[(i + 1) % len(cycle)][2]}
        if leaving - late:
            return _assign_parts(assignment, [late, members - late], nodes)
    raise AssertionError("a cycle of units without a node cycle always has a subgraph to split")


def _descendants_within(starts: set[Node], members: set[Node]) -> set[Node]:
    seen, stack = set(), [n for n in starts if n in members]
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(u for u in node.users if u in members)
    return seen


def _assign_parts(assignment: dict[str, int], parts: list[set[Node]], nodes: list[Node]) -> dict[str, int]:
    """Each part's connected pieces become subgraphs with new, unused ids."""
    out = dict(assignment)
    next_id = 1 + max(out.values(), default=-1)
    for part in parts:
        pieces = nx.Graph()
        pieces.add_nodes_from(part)
        pieces.add_edges_from((src, n) for n in part for src in n.all_input_nodes if src in part)
        for piece in nx.connected_components(pieces):
            for node in piece:
                out[node.name] = next_id
            next_id += 1
    return out


def _renumbered(nodes: list[Node], assignment: Mapping[str, int]) -> dict[str, int]:
    """Subgraph ids 0, 1, … in graph order."""
    ids: dict[int, int] = {}
    return {n.name: ids.setdefault(assignment[n.name], len(ids)) for n in nodes if n.name in assignment}

"""Module groups on the display graph: per-group numbers and the collapsed graph.

    stats = group_stats(model, tree, violations)        # path -> GroupStats
    vis = Visibility(tree, expanded)                     # which groups are open
    shown = visible_model(model, tree, vis, stats)       # collapsed groups become one node each

A collapsed group is one GraphNode of category "group" (id "group:<path>") carrying its
GroupStats: node count, VPU / CPU op counts, violations, and per metric the distribution of its
member ops over the metric's scale with the worst value. Edges entering or leaving it keep their
boundary direction, and their bytes and folded-Q/DQ violations are summed. Expanded groups that
are visible are listed in `GraphModel.frames` (the canvas draws them as frames around members).
Pure Python.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from vpu_core.graph.hierarchy import ModuleTree
from vpu_core.graph.metrics import MetricScale, metric_bar
from vpu_core.graph.model import GraphEdge, GraphModel, GraphNode, GroupStats

GROUP_PREFIX = "group:"
_OPS = ("vpu", "cpu")


def group_id(path: str) -> str:
    return GROUP_PREFIX + path


def group_path(node_id: str) -> str | None:
    return node_id[len(GROUP_PREFIX):] if node_id.startswith(GROUP_PREFIX) else None


def group_stats(model: GraphModel, tree: ModuleTree,
                violations: dict[str, int] | None = None) -> dict[str, GroupStats]:
    """GroupStats of every group. `violations`: count per graph node name (default: the
    model's own per-node counts); a node's count goes to every group it sits in."""
    if violations is None:
        violations = {n.id: n.violations for n in model.nodes if n.violations}
    cats = {n.id: n.category for n in model.nodes}
    scales = {k: MetricScale.of(k, vals.values()) for k, vals in model.metrics.items() if vals}
    out = {}
    for path, g in tree.groups.items():
        ops = [n for n in g.nodes if cats.get(n) in _OPS]
        vpu = sum(1 for n in ops if cats[n] == "vpu")
        bars = tuple(metric_bar(k, (model.metrics[k][n] for n in ops if n in model.metrics[k]), s)
                     for k, s in scales.items())
        out[path] = GroupStats(path, g.label, g.depth, len(g.nodes), len(ops), vpu, len(ops) - vpu,
                               sum(violations.get(n, 0) for n in g.nodes), bars)
    return out


class Visibility:
    """Which group (or node) stands for each node when only `expanded` groups are open."""

    def __init__(self, tree: ModuleTree, expanded: frozenset[str]):
        self.tree, self.expanded = tree, frozenset(p for p in expanded if p in tree.groups)
        self.top: dict[str, str | None] = {}        # group -> outermost closed group on its chain
        self.chains: dict[str | None, list[str]] = {None: []}
        for path in tree.groups:
            chain = self.chains[path] = tree.chain(path)
            closed = None
            for p in chain:
                if p not in self.expanded:
                    closed = p
                    break
            self.top[path] = closed

    def rep(self, node: str) -> str:
        """The id drawn for `node`: itself, or the collapsed group it is hidden in."""
        owner = self.tree.owner.get(node)
        closed = self.top[owner] if owner is not None else None
        return node if closed is None else GROUP_PREFIX + closed

    def container(self, item: str) -> str | None:
        """The open group a drawn item (node or collapsed group) sits in directly."""
        if item.startswith(GROUP_PREFIX):
            return self.tree.groups[item[len(GROUP_PREFIX):]].parent
        return self.tree.owner.get(item)

    def open_chain(self, item: str) -> list[str]:
        """Expanded groups around a drawn item (node or collapsed group), outermost first."""
        return self.chains[self.container(item)]

    def frames(self) -> list[str]:
        """Expanded groups that are visible (every group around them is open too)."""
        return [p for p in self.tree.groups if p in self.expanded and self.top[p] is None]


def group_node(s: GroupStats) -> GraphNode:
    """The box a collapsed group is drawn as."""
    return GraphNode(GROUP_PREFIX + s.path, s.label, f"{s.nodes} nodes · {s.ops} ops", "group",
                     None, s.violations, group=s)


def visible_model(model: GraphModel, vis: Visibility, stats: dict[str, GroupStats],
                  box: Callable[[str], GraphNode] | None = None) -> GraphModel:
    """`model` with every closed group replaced by its box (`box(path)`, default group_node)."""
    box = box or (lambda path: group_node(stats[path]))
    nodes: list[GraphNode] = []
    added: set[str] = set()
    into = dict(model.meta.get("folded_into", {}))
    rep: dict[str, str] = {}
    for n in model.nodes:
        r = rep[n.id] = vis.rep(n.id)
        if r is n.id:
            nodes.append(n)
        else:
            into[n.id] = r
            if r not in added:
                added.add(r)
                nodes.append(box(group_path(r)))
    if added:                                    # folded into a node that is now in a group
        into = {k: rep.get(v, v) for k, v in into.items()}
    edges: dict[tuple[str, str], GraphEdge] = {}
    for e in model.edges:
        rs, rd = rep.get(e.src, e.src), rep.get(e.dst, e.dst)
        if rs is e.src and rd is e.dst:
            edges[(rs, rd)] = e
        elif rs != rd:
            old = edges.get((rs, rd))
            edges[(rs, rd)] = replace(e, src=rs, dst=rd) if old is None else _merge(old, e)
    metrics = model.metrics
    if added:
        metrics = {k: {i: v for i, v in vals.items() if rep.get(i, i) is i}
                   for k, vals in model.metrics.items()}
    meta = {**model.meta, "folded_into": into, "expanded": vis.expanded, "rep": rep}
    return GraphModel(tuple(nodes), tuple(edges.values()), model.title, meta, metrics,
                      tuple(stats[p] for p in vis.frames()))


def _merge(a: GraphEdge, b: GraphEdge) -> GraphEdge:
    return replace(a, boundary=a.boundary or b.boundary, bytes=a.bytes + b.bytes,
                   violations=a.violations + b.violations, folded=a.folded + b.folded,
                   dtype=a.dtype if a.dtype == b.dtype else "",
                   scale=a.scale if a.scale == b.scale else None)

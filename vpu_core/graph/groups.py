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
from typing import TYPE_CHECKING, Callable

from vpu_core.analysis.hierarchy import ModuleTree
from vpu_core.graph.metrics import MetricScale, metric_bar
from vpu_core.graph.model import GraphEdge, GraphModel, GraphNode, GroupStats

if TYPE_CHECKING:
    from vpu_core.analysis.results import ScaleGroup

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

    def __init__(self, tree: ModuleTree, expanded: frozenset[str]) -> None:
        self.tree, self.expanded = tree, frozenset(p for p in expanded if p in tree.groups)
        self.chains = tree.chains
        self.top: dict[str, str | None] = {}        # group -> outermost closed group on its chain
        for path, g in tree.groups.items():         # parents come before their children
            above = self.top[g.parent] if g.parent is not None else None
            self.top[path] = above if above is not None else (None if path in self.expanded else path)

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
                nodes.append(box(r[len(GROUP_PREFIX):]))
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


class VisibleModels:
    """`visible_model`, kept up to date across expand / collapse: only the nodes of the groups
    that opened or closed, and the edges touching them, are looked at again."""

    def __init__(self, model: GraphModel, stats: dict[str, GroupStats],
                 box: Callable[[str], GraphNode]) -> None:
        self.model, self.stats, self.box = model, stats, box
        self.ids = {n.id for n in model.nodes}
        self.edges_of: dict[str, list[int]] = {}
        for i, e in enumerate(model.edges):
            self.edges_of.setdefault(e.src, []).append(i)
            if e.dst != e.src:
                self.edges_of.setdefault(e.dst, []).append(i)
        self.expanded: frozenset[str] | None = None
        self.rep: dict[str, str] = {}
        self.key_of: list[tuple[str, str] | None] = [None] * len(model.edges)
        self.contrib: dict[tuple[str, str], list[int]] = {}
        self.edges: dict[tuple[str, str], GraphEdge] = {}
        self.cross: dict[tuple[str, str], GraphEdge] = {}   # edges between different containers
        self._first: dict[str, int] | None = None          # item -> model index of its first node
        self._by_id = {n.id: n for n in model.nodes}
        self.open_nodes: set[str] = set()

    def build(self, vis: Visibility) -> GraphModel:
        if self.expanded is None:
            changed_nodes = self.ids
        else:
            groups = vis.tree.groups
            changed_nodes = {n for p in self.expanded ^ vis.expanded if p in groups
                             for n in groups[p].nodes if n in self.ids}
        self.expanded = vis.expanded
        rep, open_nodes = self.rep, self.open_nodes
        for n in changed_nodes:
            r = rep[n] = vis.rep(n)
            if r == n:
                open_nodes.add(n)
            else:
                open_nodes.discard(n)
        touched = {i for n in changed_nodes for i in self.edges_of.get(n, ())}
        dirty: set[tuple[str, str]] = set()
        for i in touched:
            old = self.key_of[i]
            if old is not None:
                self.contrib[old].remove(i)
                dirty.add(old)
            e = self.model.edges[i]
            key = (rep[e.src], rep[e.dst]) if e.src in rep and e.dst in rep else None
            if key is not None and key[0] == key[1]:
                key = None
            self.key_of[i] = key
            if key is not None:
                self.contrib.setdefault(key, []).append(i)
                dirty.add(key)
        for key in dirty:
            self._refresh(key, vis)
        return self._model(vis)

    def _refresh(self, key: tuple[str, str], vis: Visibility) -> None:
        members = self.contrib.get(key)
        if not members:
            self.contrib.pop(key, None)
            self.edges.pop(key, None)
            self.cross.pop(key, None)
            return
        members.sort()
        edges = self.model.edges
        first = edges[members[0]]
        merged = first if (first.src, first.dst) == key else replace(first, src=key[0], dst=key[1])
        for i in members[1:]:
            merged = _merge(merged, edges[i])
        self.edges[key] = merged
        if vis.container(key[0]) != vis.container(key[1]):
            self.cross[key] = merged             # drawn through the ports of open groups
        else:
            self.cross.pop(key, None)

    def _model(self, vis: Visibility) -> GraphModel:
        model, rep = self.model, self.rep
        if self._first is None:
            self._first = {n.id: i for i, n in enumerate(model.nodes)}
            for path, g in vis.tree.groups.items():
                idx = [self._first[n] for n in g.nodes if n in self._first]
                if idx:
                    self._first[GROUP_PREFIX + path] = min(idx)
        if all(c is None for c in vis.top.values()):     # every group open: the flat graph itself
            meta = {**model.meta, "expanded": vis.expanded,
                    "cross_edges": tuple(self.cross.values())}
            return GraphModel(model.nodes, model.edges, model.title, meta, model.metrics,
                              tuple(self.stats[p] for p in vis.frames()))
        items = self._items(vis)
        by_id = self._by_id
        nodes = tuple(by_id[i] if i in by_id else self.box(i[len(GROUP_PREFIX):])
                      for i in sorted(items, key=self._first.__getitem__))
        into = ShownAs(model.meta.get("folded_into", {}), rep)
        meta = {**model.meta, "folded_into": into, "expanded": vis.expanded,
                "cross_edges": tuple(self.cross.values())}
        return GraphModel(nodes, tuple(self.edges.values()), model.title, meta, model.metrics,
                          tuple(self.stats[p] for p in vis.frames()))

    def _items(self, vis: Visibility) -> set[str]:
        """The drawn items: open nodes, and the outermost closed group of each hidden node."""
        items = set(self.open_nodes)
        items.update(GROUP_PREFIX + c for c in vis.top.values() if c is not None)
        return items


class ShownAs:
    """`meta["folded_into"]` of a collapsed graph, computed on lookup: a folded node's op, or the
    closed group around either (a 20k-entry dict rebuilt per toggle would cost more than the
    toggle)."""

    def __init__(self, folded: dict, rep: dict) -> None:
        self.folded, self.rep = folded, rep

    def get(self, node: str, default: str | None = None) -> str | None:
        shown = self.folded.get(node, node)
        shown = self.rep.get(shown, shown)
        return default if shown == node and node not in self.rep else shown

    def __contains__(self, node: str) -> bool:
        return self.get(node) is not None

    def __getitem__(self, node: str) -> str:
        got = self.get(node)
        if got is None:
            raise KeyError(node)
        return got


def _merge(a: GraphEdge, b: GraphEdge) -> GraphEdge:
    return replace(a, boundary=a.boundary or b.boundary, bytes=a.bytes + b.bytes,
                   violations=a.violations + b.violations, folded=a.folded + b.folded,
                   dtype=a.dtype if a.dtype == b.dtype else "",
                   scale=a.scale if a.scale == b.scale else None)


def scale_group_of(scale_groups: tuple[ScaleGroup, ...], node: str,
                   model: GraphModel | None = None) -> ScaleGroup | None:
    """The shared-scale group (analysis ScaleGroup) `node` belongs to: as one of its ops, tensors,
    their dequantizes or producers; with `model`, also as the node that shows a member (a
    folded Q/DQ, a collapsed group). None when it is in none."""
    from vpu_core.graph.build import display_id

    for g in scale_groups:
        members = g.nodes()
        if node in members or (model is not None and any(display_id(model, m) == node for m in members)):
            return g
    return None

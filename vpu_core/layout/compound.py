"""Compound layout: each expanded module group is laid out on its own, inside a frame.

Why: expanding or collapsing one group must not lay out the whole graph again (20k nodes take
~0.3 s flat). Here every container (the top level and each group) has a small layered graph of
its own *items* — its direct nodes and its child groups, each child one box — plus *ports*: an
in-port on the top row for every outside tensor read inside, an out-port on the bottom row for
every item whose output leaves. That level graph does not depend on what is open or closed (a
child is one item either way, only its size changes), so its layering and crossing reduction are
done once; a toggle re-places (x, y, routes) only the containers whose children changed size —
the toggled group's ancestors — and reuses every other container's coordinates as they were.

A drawn edge is stitched from one route per level: from its source up through the out-ports of
the open groups around it, across the level where both ends meet, and down through the in-ports
to its target. Port and frame sides only ever meet in a vertical run, so the stitched polyline
stays a top-to-bottom route that never crosses a node.

    compound = CompoundLayout(flat_model, tree, group_node)     # once per graph
    layout = compound.layout(visibility, shown_model)           # per expand / collapse
"""
from __future__ import annotations

import gc
from dataclasses import dataclass, field
from typing import Callable

from vpu_core.graph.groups import GROUP_PREFIX, Visibility, group_id, group_path
from vpu_core.analysis.hierarchy import ModuleTree
from vpu_core.graph.model import GraphEdge, GraphModel, GraphNode

from .layering import LayeredGraph, build_layered
from .ordering import order_layers
from .coordinates import assign_x, assign_y
from .routing import route_edges
from .types import CHAR_W, MARGIN, Box, EdgeRoute, Layout, NodeSize, Point, default_node_size, rank_sep

HEADER = 20.0          # frame title strip
PAD = 8.0              # inside a frame, around its content
PORT_GAP = 12.0        # between a row of ports and the nodes next to it (RANK_SEP elsewhere)
IN, OUT = "in:", "out:"
_SAMPLE = GraphNode("sample", "x" * 40)     # a label long enough to measure the node size's char width


@dataclass
class _Level:
    """One container's item graph, layered and ordered once."""

    model: GraphModel
    g: LayeredGraph
    layers: list
    port_rows: frozenset = frozenset()     # layers holding only ports
    base: list = field(default_factory=list)    # sizes of the nodes and ports (fixed)
    slots: list = field(default_factory=list)   # (index, path) of the child-group items
    items: list = field(default_factory=list)   # (item id, group path or None), drawing order


@dataclass
class _Local:
    """A container placed at some item sizes: coordinates relative to its own origin."""

    boxes: dict[str, Box]
    routes: dict[tuple[str, str], EdgeRoute]
    right: float
    bottom: float


class CompoundLayout:
    def __init__(self, model: GraphModel, tree: ModuleTree,
                 group_node: Callable[[str], GraphNode], node_size: NodeSize | None = None) -> None:
        self.model, self.tree = model, tree
        self.group_node = group_node              # path -> the GraphNode of its collapsed box
        self.size = node_size or default_node_size
        self.char_w = self.size(_SAMPLE)[0] / default_node_size(_SAMPLE)[0] * CHAR_W   # label scale
        self.rank_sep = rank_sep(model)
        self.nodes = {n.id: n for n in model.nodes}
        self._chains = {p: tree.chain(p) for p in tree.groups}
        self.marks: dict[str | None, dict] = {}       # boundary of item-to-item edges
        self.items: dict[str | None, dict[str, None]] = {None: {}}
        self.edges: dict[str | None, dict[tuple[str, str], None]] = {None: {}}
        self._index()
        self._levels: dict[str | None, _Level] = {}
        self._local: dict[str | None, tuple[tuple, _Local]] = {}
        self._box_sizes: dict[str, tuple[float, float]] = {}
        self._abs: dict[str | None, tuple] = {}
        self._version: dict[str | None, int] = {}   # bumped whenever a container moves or changes
        self._stitch_cache: dict[tuple[str, str], tuple[tuple, EdgeRoute]] = {}
        self._succ: dict[str, list[str]] = {}
        self._sources: dict[tuple[str, str], str] = {}
        for e in model.edges:
            self._succ.setdefault(e.src, []).append(e.dst)

    # -- the static item graphs -------------------------------------------------------------------
    def _chain_of(self, node: str) -> list[str]:
        owner = self.tree.owner.get(node)
        return self._chains[owner] if owner is not None else []

    def _index(self) -> None:
        items, edges = self.items, self.edges
        for p in self.tree.groups:
            items.setdefault(p, {})
            edges.setdefault(p, {})
        for n in self.model.nodes:
            chain = self._chain_of(n.id)
            parent = None
            for p in chain:
                items[parent].setdefault(group_id(p), None)
                parent = p
            items[parent].setdefault(n.id, None)
        for e in self.model.edges:
            if e.src not in self.nodes or e.dst not in self.nodes or e.src == e.dst:
                continue
            cs, ct = self._chain_of(e.src), self._chain_of(e.dst)
            k = _common(cs, ct)
            a = group_id(cs[k]) if len(cs) > k else e.src
            b = group_id(ct[k]) if len(ct) > k else e.dst
            if a != b:
                meet = cs[k - 1] if k else None
                edges[meet].setdefault((a, b), None)
                if e.boundary:
                    self.marks.setdefault(meet, {}).setdefault((a, b), e.boundary)
            for j in range(k, len(cs)):
                item = group_id(cs[j + 1]) if j + 1 < len(cs) else e.src
                edges[cs[j]].setdefault((item, OUT + item), None)
            for j in range(k, len(ct)):
                item = group_id(ct[j + 1]) if j + 1 < len(ct) else e.dst
                edges[ct[j]].setdefault((IN + e.src, item), None)

    def _level(self, c: str | None) -> _Level:
        lv = self._levels.get(c)
        if lv is None:
            ids = list(self.items[c])
            ports_in = dict.fromkeys(a for a, _ in self.edges[c] if a.startswith(IN))
            ports_out = dict.fromkeys(b for _, b in self.edges[c] if b.startswith(OUT))
            nodes = [self.nodes[i] if i in self.nodes else GraphNode(i, "", category="group")
                     for i in ids]
            nodes += [GraphNode(p, "", category="port") for p in (*ports_in, *ports_out)]
            pins = {len(ids) + i: "top" for i in range(len(ports_in))}
            pins.update({len(ids) + len(ports_in) + i: "bottom" for i in range(len(ports_out))})
            model = GraphModel(tuple(nodes), tuple(GraphEdge(a, b) for a, b in self.edges[c]))
            g = build_layered(model, pins)
            layers = order_layers(g)
            rows = frozenset(i for i, lay in enumerate(layers)
                             if lay and all(v >= g.n_real or v in pins for v in lay)
                             and any(v in pins for v in lay))
            slots = [(i, group_path(n.id)) for i, n in enumerate(nodes[:len(ids)])
                     if n.id not in self.nodes]
            base = [(0.0, 0.0) if n.category == "port" else self.size(n) if n.id in self.nodes
                    else (0.0, 0.0) for n in nodes]
            lv = self._levels[c] = _Level(model, g, layers, rows, base, slots,
                                          [(i, group_path(i) if i not in self.nodes else None)
                                           for i in ids])
        return lv

    # -- coordinates --------------------------------------------------------------------------------
    def _sizes(self, c: str | None, vis: Visibility) -> list[tuple[float, float]]:
        lv = self._level(c)
        out = lv.base[:]
        for i, p in lv.slots:
            out[i] = self._frame_size(p, vis) if p in vis.expanded else self._box_size(p)
        return out

    def _box_size(self, p: str) -> tuple[float, float]:
        size = self._box_sizes.get(p)
        if size is None:
            size = self._box_sizes[p] = self.size(self.group_node(p))
        return size

    def _placed(self, c: str | None, vis: Visibility) -> _Local:
        sizes = tuple(self._sizes(c, vis))
        hit = self._local.get(c)
        if hit is not None and hit[0] == sizes:
            return hit[1]
        local = _place(self._level(c), sizes, self.rank_sep)
        self._local[c] = (sizes, local)
        return local

    def _frame_size(self, p: str, vis: Visibility) -> tuple[float, float]:
        local = self._placed(p, vis)
        w = max(local.right - MARGIN + 2 * PAD, self._title_w(p))
        return (w, HEADER + local.bottom - MARGIN + 2 * PAD)

    def _title_w(self, p: str) -> float:
        """Room for "▾ name (Class) · N nodes", the violation badge and the VPU/CPU bar."""
        return (len(self.group_node(p).label) + 18) * self.char_w * 1.1 + 120.0   # bold title

    # -- the whole picture --------------------------------------------------------------------------
    def layout(self, vis: Visibility, shown: GraphModel) -> Layout:
        was = gc.isenabled()
        gc.disable()
        try:
            return self._layout(vis, shown)
        finally:
            if was:
                gc.enable()

    def _layout(self, vis: Visibility, shown: GraphModel) -> Layout:
        root = self._placed(None, vis)
        boxes: dict[str, Box] = {}
        frames: dict[str, Box] = {}
        routes: list[EdgeRoute] = []
        origin: dict[str | None, Point] = {None: (0.0, 0.0)}
        stack: list[str | None] = [None]
        while stack:
            c = stack.pop()
            c_boxes, c_frames, c_routes, _ = self._pieces(c, vis, origin[c])
            boxes.update(c_boxes)
            routes += c_routes
            for p, box in c_frames:
                frames[p] = box
                x, y, w, _ = box
                inner = self._local[p][1]
                dx = (w - (inner.right - MARGIN + 2 * PAD)) / 2.0
                origin[p] = (x + dx + PAD - MARGIN, y + HEADER + PAD - MARGIN)
                stack.append(p)
        routes += self._stitch(vis, shown, origin)
        return Layout(boxes=boxes, edges=tuple(routes), width=root.right + MARGIN + 16.0,
                      height=root.bottom + MARGIN + 10.0, frames=frames)

    def _pieces(self, c, vis: Visibility, at: Point):
        """One container's boxes, frames and inner routes in absolute coordinates. Kept from
        the last call while the container neither moved nor changed (most of them, after a
        toggle: only the toggled group's ancestors and what lies below or right of it move)."""
        lv, local = self._levels[c], self._local[c][1]
        sig = tuple(p in vis.expanded for _, p in lv.slots)
        hit = self._abs.get(c)
        if hit is not None and hit[0] is local and hit[1] == sig and hit[2] == at:
            return hit[3]
        ox, oy = at
        lboxes = local.boxes
        boxes, frames = {}, []
        for item, p in lv.items:
            x, y, w, h = lboxes[item]
            if p is not None and p in vis.expanded:
                frames.append((p, (x + ox, y + oy, w, h)))
            else:
                boxes[item] = (x + ox, y + oy, w, h)
        routes, ports = [], {}
        marks = self.marks.get(c, {})
        for key, r in local.routes.items():
            a, b = key
            if a in boxes and b in boxes:
                routes.append(EdgeRoute(a, b, marks.get(key),
                                        tuple([(x + ox, y + oy) for x, y in r.points]), r.reversed))
            elif b.startswith(OUT) or a.startswith(IN) or a not in boxes or b not in boxes:
                ports[key] = [(x + ox, y + oy) for x, y in r.points]     # pieces of stitched edges
        piece = (boxes, frames, routes, ports)
        self._abs[c] = (local, sig, at, piece)
        self._version[c] = self._version.get(c, 0) + 1
        return piece

    def _route(self, c, key, origin) -> list[Point]:
        """A level's route in absolute coordinates (translated once per container move)."""
        return self._abs[c][3][3][key]

    def _stitch(self, vis: Visibility, shown: GraphModel, origin) -> list[EdgeRoute]:
        """Edges between items of different containers (through ports): stitched per level,
        and kept while none of the containers they pass through moved."""
        out = []
        cache, version = self._stitch_cache, self._version
        for e in shown.meta.get("cross_edges", ()):
            vs, vt = e.src, e.dst
            hit = cache.get((vs, vt))
            if hit is not None and all(version.get(c) == v for c, v in hit[0]):
                out.append(hit[1])
                continue
            src = vs if vs in self.nodes else self._real_source(vis, vs, vt)
            pts, used = self._stitched(vis, vs, vt, src, origin)
            route = EdgeRoute(vs, vt, e.boundary, tuple(pts))
            cache[(vs, vt)] = (tuple((c, version.get(c)) for c in used), route)
            out.append(route)
        return out

    def _real_source(self, vis: Visibility, group: str, vt: str) -> str:
        """A node inside collapsed `group` with an edge into what `vt` stands for: the key of
        the in-ports that edge enters by."""
        hit = self._sources.get((group, vt))
        if hit is not None and any(vis.rep(t) == vt for t in self._succ.get(hit, ())):
            return hit
        for s in self.tree.groups[group[len(GROUP_PREFIX):]].nodes:
            for t in self._succ.get(s, ()):
                if vis.rep(t) == vt:
                    self._sources[(group, vt)] = s
                    return s
        raise KeyError((group, vt))

    def _stitched(self, vis, vs, vt, src, origin) -> tuple[list[Point], list]:
        """The polyline of one drawn edge, and the containers whose routes it is made of."""
        cs, ct = vis.open_chain(vs), vis.open_chain(vt)
        k = _common(cs, ct)
        a = group_id(cs[k]) if len(cs) > k else vs
        b = group_id(ct[k]) if len(ct) > k else vt
        meet = cs[k - 1] if k else None
        pts: list[Point] = []
        for j in range(len(cs) - 1, k - 1, -1):
            item = group_id(cs[j + 1]) if j + 1 < len(cs) else vs
            pts = _join_up(pts, self._route(cs[j], (item, OUT + item), origin))
        pts = _join_up(pts, self._route(meet, (a, b), origin))
        for j in range(k, len(ct)):
            item = group_id(ct[j + 1]) if j + 1 < len(ct) else vt
            pts = _join_down(pts, self._route(ct[j], (IN + src, item), origin))
        return pts, [meet, *cs[k:], *ct[k:]]


def _common(a: list, b: list) -> int:
    k = 0
    while k < len(a) and k < len(b) and a[k] == b[k]:
        k += 1
    return k


def _run(pts: list[Point], start: int, step: int) -> int:
    """How many points from `start` (walking by `step`) share that point's x: a vertical run."""
    x, i, n = pts[start][0], start, 0
    while 0 <= i < len(pts) and pts[i][0] == x:
        i, n = i + step, n + 1
    return n


def _join_up(prev: list[Point], seg: list[Point]) -> list[Point]:
    """Continue from an out-port: the next route's vertical start moves to the port's x."""
    if not prev:
        return seg
    px = prev[-1][0]
    n = _run(seg, 0, 1)
    return prev + [(px, y) for _, y in seg[:n]] + seg[n:]


def _join_down(prev: list[Point], seg: list[Point]) -> list[Point]:
    """Continue into an in-port: the route so far ends with a vertical run at the port's x."""
    if not prev:
        return seg
    sx = seg[0][0]
    n = _run(prev, len(prev) - 1, -1)
    return prev[:len(prev) - n] + [(sx, y) for _, y in prev[len(prev) - n:]] + seg


def _assign_y(level: _Level, height: list[float], sep: float) -> tuple[list[float], list[float]]:
    """assign_y, with rows of ports (zero height) closer to their neighbours."""
    tops, row_h = assign_y(level.layers, height, sep)
    if not level.port_rows:
        return tops, row_h
    shift, out = 0.0, []
    for i, top in enumerate(tops):
        if i > 0 and (i - 1 in level.port_rows or i in level.port_rows):
            shift += sep - PORT_GAP
        out.append(top - shift)
    return out, row_h


def _place(level: _Level, sizes, sep: float) -> _Local:
    g = level.g
    n_dummy = g.n - g.n_real
    width = [s[0] for s in sizes] + [0.0] * n_dummy
    height = [s[1] for s in sizes] + [0.0] * n_dummy
    x = assign_x(g, level.layers, width)
    tops, row_h = _assign_y(level, height, sep)
    boxes: dict[str, Box] = {}
    layer = g.layer
    for v, nid in enumerate(g.ids):
        l, w, h = layer[v], width[v], height[v]
        boxes[nid] = (x[v] - w / 2.0, tops[l] + (row_h[l] - h) / 2.0, w, h)
    routes = route_edges(level.model, g, x, width, height, tops, row_h, boxes)
    right = max((x[v] + width[v] / 2.0 for v in range(g.n)), default=MARGIN)
    bottom = (tops[-1] + row_h[-1]) if tops else MARGIN
    return _Local(boxes, {(r.src, r.dst): r for r in routes}, right, bottom)

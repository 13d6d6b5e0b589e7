"""Edge routing: polylines through the bend points left by the dummy vertices.

Inside a layer row an edge only runs vertically (below its source, above its target, or
through its dummy's reserved slot), and it only runs diagonally in the empty band between
two rows. Since nodes never overlap inside a row, no edge can cross a node.
Ports are spread a few pixels apart, ordered by where the edge goes, so edges fanning out
of one node do not start on top of each other.
"""
from __future__ import annotations

from vpu_core.graph_model import GraphModel

from .layering import LayeredGraph
from .types import EdgeRoute, Point

PORT_STEP = 10.0        # px between neighbouring ports on a node's top or bottom side


def _ports(slots: list[tuple[float, int]], cx: float, w: float) -> dict[int, float]:
    """Port x per slot key, spread around the centre cx, sorted by the slot's target x."""
    slots.sort()
    k = len(slots)
    step = min(PORT_STEP, (w - 8.0) / max(k, 1))
    first = cx - step * (k - 1) / 2.0
    return {key: first + i * step for i, (_, key) in enumerate(slots)}


class _Router:
    def __init__(self, g: LayeredGraph, x, width, height, tops, row_h):
        self.g, self.x, self.w, self.h = g, x, width, height
        self.tops, self.row_h = tops, row_h
        out_slots: dict[int, list] = {}
        in_slots: dict[int, list] = {}
        for k, (u, v) in enumerate(g.chains):
            chain = g.chains[(u, v)]
            out_slots.setdefault(u, []).append((x[chain[1]], k))
            in_slots.setdefault(v, []).append((x[chain[-2]], k))
        self.out_port: dict[tuple[int, int], float] = {}
        self.in_port: dict[tuple[int, int], float] = {}
        keys = list(g.chains)
        for u, slots in out_slots.items():
            for k, px in _ports(slots, x[u], width[u]).items():
                self.out_port[keys[k]] = px
        for v, slots in in_slots.items():
            for k, px in _ports(slots, x[v], width[v]).items():
                self.in_port[keys[k]] = px

    def _node_top(self, v: int) -> float:
        l = self.g.layer[v]
        return self.tops[l] + (self.row_h[l] - self.h[v]) / 2.0

    def route(self, u: int, v: int) -> list[Point]:
        g, x = self.g, self.x
        chain = g.chains[(u, v)]
        lu, lv = g.layer[u], g.layer[v]
        sx, tx = self.out_port[(u, v)], self.in_port[(u, v)]
        pts: list[Point] = [(sx, self._node_top(u) + self.h[u])]
        row_bottom = self.tops[lu] + self.row_h[lu]
        if pts[-1][1] < row_bottom:
            pts.append((sx, row_bottom))
        for d in chain[1:-1]:
            l = g.layer[d]
            pts.append((x[d], self.tops[l]))
            pts.append((x[d], self.tops[l] + self.row_h[l]))
        top = self._node_top(v)
        if self.tops[lv] < top:
            pts.append((tx, self.tops[lv]))
        pts.append((tx, top))
        return pts


def _self_loop(box) -> list[Point]:
    x, y, w, h = box
    r = x + w
    return [(r - 12.0, y + h), (r - 12.0, y + h + 8.0), (r + 14.0, y + h + 8.0),
            (r + 14.0, y - 8.0), (r - 12.0, y - 8.0), (r - 12.0, y)]


def route_edges(model: GraphModel, g: LayeredGraph, x, width, height, tops, row_h,
                boxes) -> tuple[EdgeRoute, ...]:
    router = _Router(g, x, width, height, tops, row_h)
    index = {nid: i for i, nid in enumerate(g.ids)}
    routes: list[EdgeRoute] = []
    cache: dict[tuple[int, int], tuple[Point, ...]] = {}
    for e in model.edges:
        u, v = index.get(e.src), index.get(e.dst)
        if u is None or v is None:
            continue                              # dangling edge: nothing to draw
        if u == v:
            routes.append(EdgeRoute(e.src, e.dst, e.boundary, tuple(_self_loop(boxes[e.src]))))
            continue
        rev = (u, v) not in g.chains             # closed a cycle: routed upward
        key = (v, u) if rev else (u, v)
        if key not in cache:
            cache[key] = tuple(router.route(*key))
        pts = cache[key]
        routes.append(EdgeRoute(e.src, e.dst, e.boundary, pts[::-1] if rev else pts, rev))
    return tuple(routes)

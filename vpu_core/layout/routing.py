"""Edge routing: polylines through the bend points left by the dummy vertices.

Inside a layer row an edge only runs vertically (below its source, above its target, or
through its dummy's reserved slot), and it only runs diagonally in the empty band between
two rows. Since nodes never overlap inside a row, no edge can cross a node.
Ports are spread a few pixels apart, ordered by where the edge goes, so edges fanning out
of one node do not start on top of each other.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from vpu_core.graph.model import GraphModel

from .layering import LayeredGraph
from .types import EdgeRoute, Point

if TYPE_CHECKING:
    from vpu_core.layout.types import Box

PORT_STEP = 10.0        # px between neighbouring ports on a node's top or bottom side


def _ports(g: LayeredGraph, x, width) -> tuple[dict, dict]:
    """Port x of every chain at its source (bottom side) and target (top side): the node
    centre for a single edge, else spread around it in the order of where the edges go."""
    nr = g.n_real
    n_out, n_in = [0] * nr, [0] * nr
    for u, v in g.chains:
        n_out[u] += 1
        n_in[v] += 1
    out_port: dict[tuple[int, int], float] = {}
    in_port: dict[tuple[int, int], float] = {}
    multi_out: dict[int, list] = {}
    multi_in: dict[int, list] = {}
    for key, chain in g.chains.items():
        u, v = key
        if n_out[u] > 1:
            multi_out.setdefault(u, []).append((x[chain[1]], key))
        else:
            out_port[key] = x[u]
        if n_in[v] > 1:
            multi_in.setdefault(v, []).append((x[chain[-2]], key))
        else:
            in_port[key] = x[v]
    for multi, ports in ((multi_out, out_port), (multi_in, in_port)):
        for v, slots in multi.items():
            slots.sort()
            k = len(slots)
            step = min(PORT_STEP, (width[v] - 8.0) / k)
            first = x[v] - step * (k - 1) / 2.0
            for i, (_, key) in enumerate(slots):
                ports[key] = first + i * step
    return out_port, in_port


def _self_loop(box) -> list[Point]:
    x, y, w, h = box
    r = x + w
    return [(r - 12.0, y + h), (r - 12.0, y + h + 8.0), (r + 14.0, y + h + 8.0),
            (r + 14.0, y - 8.0), (r - 12.0, y - 8.0), (r - 12.0, y)]


def route_edges(model: GraphModel, g: LayeredGraph, x: list[float], width: list[float], height: list[float],
                tops: list[float], row_h: list[float],
                boxes: dict[str, Box]) -> tuple[EdgeRoute, ...]:
    layer = g.layer
    top = [tops[layer[v]] + (row_h[layer[v]] - height[v]) / 2.0 for v in range(g.n_real)]
    out_port, in_port = _ports(g, x, width)
    paths: dict[tuple[int, int], tuple[Point, ...]] = {}
    for key, chain in g.chains.items():
        u, v = key
        lu, lv = layer[u], layer[v]
        sx, tx = out_port[key], in_port[key]
        bottom = top[u] + height[u]
        pts: list[tuple[float, float]] = [(sx, bottom)]
        row_bottom = tops[lu] + row_h[lu]
        if bottom < row_bottom:
            pts.append((sx, row_bottom))
        for d in chain[1:-1]:
            l, xd = layer[d], x[d]
            pts.append((xd, tops[l]))
            pts.append((xd, tops[l] + row_h[l]))
        if tops[lv] < top[v]:
            pts.append((tx, tops[lv]))
        pts.append((tx, top[v]))
        paths[key] = tuple(pts)
    index = {nid: i for i, nid in enumerate(g.ids)}
    routes: list[EdgeRoute] = []
    for e in model.edges:
        iu, iv = index.get(e.src), index.get(e.dst)
        if iu is None or iv is None:
            continue                              # dangling edge: nothing to draw
        u, v = iu, iv
        if u == v:
            routes.append(EdgeRoute(e.src, e.dst, e.boundary, tuple(_self_loop(boxes[e.src]))))
            continue
        found = paths.get((u, v))
        if found is not None:
            routes.append(EdgeRoute(e.src, e.dst, e.boundary, found))
        else:                                     # closed a cycle: routed upward
            routes.append(EdgeRoute(e.src, e.dst, e.boundary, paths[(v, u)][::-1], True))
    return tuple(routes)

"""Quality metrics and invariant checks of a finished `Layout`.

Crossings are counted geometrically on the drawn polylines (not on our internal layer
order), so the same counter applies unchanged to Graphviz dot's output
(`tools/layouts/dot_reference.py`). Rules, identical for both:
  * every proper intersection of two segments of two different edges counts once;
  * edges that share an endpoint node are never counted against each other (they meet at
    the node, and whether their ports fan out is a matter of where the ports sit, not layout);
  * touching and collinear overlaps are not crossings.
A uniform grid keeps it near-linear; each intersection is counted only in the grid cell
that contains it, so segments spanning several cells are not counted twice.
"""
from __future__ import annotations

from typing import Iterable

from collections import defaultdict

from .types import Layout, Point

CELL = 96.0


def _segments(polylines):
    for k, pts in enumerate(polylines):
        for a, b in zip(pts, pts[1:]):
            if a != b:
                yield k, a, b


def _orient(a: Point, b: Point, c: Point) -> float:
    return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])


def _cross_point(p1, p2, p3, p4) -> Point | None:
    """Intersection point if the two segments cross properly, else None."""
    d1, d2 = _orient(p3, p4, p1), _orient(p3, p4, p2)
    if (d1 > 0) == (d2 > 0) or d1 == 0 or d2 == 0:
        return None
    d3, d4 = _orient(p1, p2, p3), _orient(p1, p2, p4)
    if (d3 > 0) == (d4 > 0) or d3 == 0 or d4 == 0:
        return None
    t = d1 / (d1 - d2)
    return (p1[0] + t * (p2[0] - p1[0]), p1[1] + t * (p2[1] - p1[1]))


def count_polyline_crossings(polylines: list[tuple[Point, ...]],
                             ends: list[tuple[str, str]]) -> int:
    """Crossings between polylines; ends[k] = (src, dst) of polyline k."""
    grid: dict[tuple[int, int], list] = defaultdict(list)
    for seg in _segments(polylines):
        _, a, b = seg
        x0, x1 = sorted((a[0], b[0]))
        y0, y1 = sorted((a[1], b[1]))
        for cx in range(int(x0 // CELL), int(x1 // CELL) + 1):
            for cy in range(int(y0 // CELL), int(y1 // CELL) + 1):
                grid[(cx, cy)].append(seg)
    total = 0
    for (cx, cy), segs in grid.items():
        m = len(segs)
        for i in range(m):
            ki, a, b = segs[i]
            ei = ends[ki]
            for j in range(i + 1, m):
                kj, c, d = segs[j]
                if kj == ki:
                    continue
                ej = ends[kj]
                if ei[0] in ej or ei[1] in ej:
                    continue
                p = _cross_point(a, b, c, d)
                if p and int(p[0] // CELL) == cx and int(p[1] // CELL) == cy:
                    total += 1
    return total


def count_crossings(layout: Layout) -> int:
    """Edge crossings of the drawn layout (see module docstring for the exact rules)."""
    return count_polyline_crossings([e.points for e in layout.edges],
                                    [(e.src, e.dst) for e in layout.edges])


def overlapping_boxes(layout: Layout, tol: float = 0.01) -> list[tuple[str, str]]:
    """Pairs of node boxes that overlap (sweep over y, then test x)."""
    items = sorted(layout.boxes.items(), key=lambda kv: (kv[1][1], kv[1][0], kv[0]))
    active: list[tuple[str, tuple]] = []
    out = []
    for nid, (x, y, w, h) in items:
        active = [(o, b) for o, b in active if b[1] + b[3] > y + tol]
        for o, (ox, oy, ow, oh) in active:
            if ox < x + w - tol and x < ox + ow - tol:
                out.append((o, nid))
        active.append((nid, (x, y, w, h)))
    return out


def edges_through_nodes(layout: Layout) -> list[tuple[str, str, str]]:
    """(src, dst, node) for every edge segment that passes through a third node's box."""
    grid: dict[tuple[int, int], list[str]] = defaultdict(list)
    for nid, (x, y, w, h) in layout.boxes.items():
        for cx in range(int(x // CELL), int((x + w) // CELL) + 1):
            for cy in range(int(y // CELL), int((y + h) // CELL) + 1):
                grid[(cx, cy)].append(nid)
    hits = set()
    for e in layout.edges:
        for a, b in zip(e.points, e.points[1:]):
            x0, x1 = sorted((a[0], b[0]))
            y0, y1 = sorted((a[1], b[1]))
            for cx in range(int(x0 // CELL), int(x1 // CELL) + 1):
                for cy in range(int(y0 // CELL), int(y1 // CELL) + 1):
                    for nid in grid.get((cx, cy), ()):
                        if nid not in (e.src, e.dst) and _hits_box(a, b, layout.boxes[nid]):
                            hits.add((e.src, e.dst, nid))
    return sorted(hits)


def _hits_box(a: Point, b: Point, box, inset: float = 0.5) -> bool:
    """Does segment ab enter the interior of the box (Liang-Barsky clipping)?"""
    x, y, w, h = box
    xmin, xmax, ymin, ymax = x + inset, x + w - inset, y + inset, y + h - inset
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for p, q in ((-dx, a[0] - xmin), (dx, xmax - a[0]), (-dy, a[1] - ymin), (dy, ymax - a[1])):
        if p == 0:
            if q < 0:
                return False
        else:
            r = q / p
            if p < 0:
                t0 = max(t0, r)
            else:
                t1 = min(t1, r)
            if t0 > t1:
                return False
    return True


def check_layout(layout: Layout, node_ids: Iterable[str]) -> list[str]:
    """Invariant violations as readable strings (empty list = all good)."""
    problems = [f"node {nid} not placed" for nid in node_ids if nid not in layout.boxes]
    problems += [f"boxes overlap: {a} / {b}" for a, b in overlapping_boxes(layout)]
    for e in layout.edges:
        if e.src == e.dst or e.reversed:
            continue
        s, d = layout.boxes[e.src], layout.boxes[e.dst]
        if not d[1] >= s[1] + s[3]:
            problems.append(f"edge {e.src}->{e.dst} does not go down")
        if e.points[0][1] != s[1] + s[3] or e.points[-1][1] != d[1]:
            problems.append(f"edge {e.src}->{e.dst} does not join bottom of src to top of dst")
        if any(p[1] > q[1] for p, q in zip(e.points, e.points[1:])):
            problems.append(f"edge {e.src}->{e.dst} turns upward")
    problems += [f"edge {s}->{d} crosses node {n}" for s, d, n in edges_through_nodes(layout)]
    return problems


def layout_stats(layout: Layout) -> dict:
    bends = sum(max(0, len(e.points) - 2) for e in layout.edges)
    return {"nodes": len(layout.boxes), "edges": len(layout.edges), "layers": layout.layers,
            "width": round(layout.width, 1), "height": round(layout.height, 1),
            "bend_points": bends, "crossings": count_crossings(layout)}

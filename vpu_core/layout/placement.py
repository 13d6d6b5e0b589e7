"""Coordinate assignment: x inside each layer, y per layer.

x minimises  sum_e w_e (x_u - x_v)^2  subject to the order and the minimum gaps of each
layer, by block coordinate descent: one layer at a time (alternately downward and upward),
each layer solved exactly as a weighted isotonic regression (pool-adjacent-violators).
Edge weights follow dot's priority idea: segments of long edges (dummy-dummy) weigh most so
long edges run straight, and an op ignores its parameter inputs while parameter vertices
barely resist being pushed, so the data path stays a straight spine with weights beside it.
"""
from __future__ import annotations

from .layering import LayeredGraph
from .types import EDGE_SEP, MARGIN, NODE_SEP, RANK_SEP

W_REAL, W_MIXED, W_DUMMY = 1.0, 2.0, 8.0
SIDE_STIFFNESS = 0.05   # how strongly a parameter vertex resists the spine pushing it aside
SWEEPS = 6


def _pav(z: list[float], wt: list[float]) -> list[float]:
    """Weighted least-squares non-decreasing fit of z (pool adjacent violators)."""
    sw: list[float] = []
    sz: list[float] = []
    cnt: list[int] = []
    for zi, wi in zip(z, wt):
        cw, cz, cc = wi, wi * zi, 1
        while sw and sz[-1] * cw > cz * sw[-1]:     # previous block mean > this mean
            cw += sw.pop()
            cz += sz.pop()
            cc += cnt.pop()
        sw.append(cw)
        sz.append(cz)
        cnt.append(cc)
    out: list[float] = []
    for cw, cz, cc in zip(sw, sz, cnt):
        out.extend([cz / cw] * cc)
    return out


def _neighbour_weights(g: LayeredGraph) -> tuple[list[list[tuple[int, float]]], list[float]]:
    """(neighbour, weight) lists for every vertex, over both adjacent layers, and the
    stiffness of each vertex (total weight, shrunk for parameter vertices)."""
    nr = g.n_real
    nbw: list[list[tuple[int, float]]] = []
    stiff: list[float] = []
    for v in range(g.n):
        real_v = v < nr
        lst = []
        for u in g.up[v] + g.down[v]:
            real_u = u < nr
            if real_v and not g.side[v] and g.side[u]:
                continue                           # an op is not pulled by its weights
            w = W_REAL if (real_u and real_v) else W_DUMMY if not (real_u or real_v) else W_MIXED
            lst.append((u, w))
        nbw.append(lst)
        tot = sum(w for _, w in lst)
        stiff.append(max(tot, 1e-3) * (SIDE_STIFFNESS if g.side[v] else 1.0))
    return nbw, stiff


def _gaps(layers: list[list[int]], width: list[float], nr: int) -> list[list[float]]:
    """Offset of each vertex from the first one of its layer when packed tight."""
    offs = []
    for lay in layers:
        o, prev, out = 0.0, None, []
        for v in lay:
            if prev is not None:
                sep = NODE_SEP if (v < nr and prev < nr) else EDGE_SEP
                o += (width[prev] + width[v]) / 2.0 + sep
            out.append(o)
            prev = v
        offs.append(out)
    return offs


def _place_layer(lay, off, x, nbw, stiff) -> None:
    z, wt = [], []
    for v, o in zip(lay, off):
        s = tw = 0.0
        for u, w in nbw[v]:
            s += w * x[u]
            tw += w
        d = s / tw if tw else x[v]
        z.append(d - o)
        wt.append(stiff[v])
    if len(z) > 1 and any(a > b for a, b in zip(z, z[1:])):
        z = _pav(z, wt)
    for v, o, zi in zip(lay, off, z):
        x[v] = zi + o


def assign_x(g: LayeredGraph, layers: list[list[int]], width: list[float]) -> list[float]:
    offs = _gaps(layers, width, g.n_real)
    x = [0.0] * g.n
    for lay, off in zip(layers, offs):             # start: every layer centred on 0
        mid = off[-1] / 2.0 if off else 0.0
        for v, o in zip(lay, off):
            x[v] = o - mid
    nbw, stiff = _neighbour_weights(g)
    nl = len(layers)
    for s in range(SWEEPS):
        rng = range(nl) if s % 2 == 0 else range(nl - 1, -1, -1)
        for li in rng:
            _place_layer(layers[li], offs[li], x, nbw, stiff)
    left = min((x[v] - width[v] / 2.0 for v in range(g.n)), default=0.0)
    shift = MARGIN - left
    return [xi + shift for xi in x]


def assign_y(layers: list[list[int]], height: list[float]) -> tuple[list[float], list[float]]:
    """Top y and height of every layer row; nodes are centred vertically in their row."""
    tops, hs = [], []
    y = MARGIN
    for lay in layers:
        h = max((height[v] for v in lay), default=0.0)
        tops.append(y)
        hs.append(h)
        y += h + RANK_SEP
    return tops, hs

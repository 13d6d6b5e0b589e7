"""Coordinate assignment (the third step of the layered layout): x inside each layer, y per layer.

x is a priority method in two passes over the layers. Top-down, each vertex wants the
weighted median of its upper neighbours' x; bottom-up, the vertices tied more strongly to
the layer below (parameter chains, the dequantize ending a skip edge) want the median of
their lower neighbours while the rest is pinned. Each layer is fitted to those wishes
exactly under its order and minimum gaps, as a weighted isotonic regression (pool adjacent
violators), so a conflict moves the weakest vertices. The median is the L1 choice: a vertex
lines up exactly with its heaviest neighbour, and on a tie it stays put, so chains come out
straight with any bend in one place. (Block coordinate descent over both neighbours was
tried: slower, and it lengthened edges on Q/DQ graphs.)
Edge weights follow dot's priority idea: segments of long edges (dummy-dummy) weigh most so
long edges run straight, op-to-op edges next so the data path is a straight spine, and an
op ignores its parameter inputs while parameter vertices barely resist being pushed aside.
"""
from __future__ import annotations

from .layering import LayeredGraph
from .types import EDGE_SEP, MARGIN, NODE_SEP, RANK_SEP

W_SPINE = 4.0          # op -> op (not parameters): the data path wants to be straight
W_REAL = 1.0           # edges of parameter chains
W_MIXED = 2.0          # real vertex <-> bend point of a long edge
W_DUMMY = 8.0          # bend point <-> bend point: long edges run straight
PARAM_STIFFNESS = 0.05  # how strongly a parameter vertex resists the spine pushing it aside
OP_STIFFNESS = 1000.0  # ... and an op, relative to a bend point: ops get priority
PIN = 1e4              # stiffness factor of vertices that sit out the bottom-up pass


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


# Weight of an edge seen from vertex v, by kind of v (row) and of its neighbour (column);
# kinds: 0 op, 1 parameter vertex, 2 bend point. 0 means "ignore": an op is not pulled by
# its weights, they move to it.
_WEIGHT = ((W_SPINE, 0.0, W_MIXED),
           (W_REAL, W_REAL, W_MIXED),
           (W_MIXED, W_MIXED, W_DUMMY))
_STIFF = (OP_STIFFNESS, PARAM_STIFFNESS, 1.0)


def _pass_inputs(g: LayeredGraph):
    """What each vertex follows in the two passes, as (neighbour, weight) lists, and how
    stiff it is in each. Stiffness is the sum of squared weights (a vertex on strong chains
    holds its line against one with a weak edge) times its kind's factor; in the bottom-up
    pass only the vertices tied more strongly below than above move, the rest is pinned."""
    nr, param_chain, up_g, down_g = g.n_real, g.param_chain, g.up, g.down
    kind = [1 if param_chain[v] else 0 for v in range(nr)] + [2] * (g.n - nr)
    follow_up, follow_down, stiff, stiff2, below = [], [], [], [], []
    for v in range(g.n):
        k = kind[v]
        wt = _WEIGHT[k]
        a = [(u, wt[kind[u]]) for u in up_g[v] if wt[kind[u]]]
        b = [(u, wt[kind[u]]) for u in down_g[v] if wt[kind[u]]]
        tot = 1e-3
        top_a = top_b = 0.0
        for _, w in a:
            tot += w * w
            top_a = w if w > top_a else top_a
        for _, w in b:
            tot += w * w
            top_b = w if w > top_b else top_b
        st = tot * _STIFF[k]
        stiff.append(st)
        follow_up.append([] if k == 1 else a)           # parameters are placed bottom-up
        low = k == 1 or top_b > top_a
        below.append(low)
        follow_down.append(b if low else [])
        stiff2.append(st if low else st * PIN)
    return follow_up, follow_down, stiff, stiff2, below


def _wish(nb: list[tuple[int, float]], x: list[float], own: float) -> float:
    """Where a vertex wants to be: the weighted median of its neighbours' x. When the
    median is an interval (an exact weight tie) the vertex stays put if it is inside, which
    is just as good in L1 and keeps a bend in one place instead of smearing it along a chain.
    """
    k = len(nb)
    if k == 0:
        return own
    if k == 1:
        return x[nb[0][0]]
    if k == 2:
        (a, wa), (b, wb) = nb
        if wa != wb:
            return x[a] if wa > wb else x[b]
        lo, hi = (x[a], x[b]) if x[a] <= x[b] else (x[b], x[a])
        return lo if own < lo else hi if own > hi else own
    pts = sorted((x[u], w) for u, w in nb)
    half = sum(w for _, w in pts) / 2.0
    acc = 0.0
    for i, (xi, w) in enumerate(pts):
        acc += w
        if acc > half:
            return xi
        if acc == half:
            hi = pts[i + 1][0]
            return xi if own < xi else hi if own > hi else own
    return pts[-1][0]


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
    """Fit one layer to its vertices' wishes under its order and minimum gaps."""
    if len(lay) == 1:
        v = lay[0]
        x[v] = _wish(nbw[v], x, x[v])
        return
    z = [_wish(nbw[v], x, x[v]) - o for v, o in zip(lay, off)]
    if any(a > b for a, b in zip(z, z[1:])):
        z = _pav(z, [stiff[v] for v in lay])
    for v, o, zi in zip(lay, off, z):
        x[v] = zi + o


def _place_passes(g, layers, offs) -> list[float]:
    """Top-down, every vertex follows the median of its upper neighbours (chains come out
    straight: no smeared bends); then bottom-up, vertices tied more strongly below than
    above (parameter chains, the dequantize at the end of a skip edge) move next to their
    consumer while everything else is pinned."""
    x = [0.0] * g.n
    for lay, off in zip(layers, offs):
        mid = off[-1] / 2.0 if off else 0.0
        for v, o in zip(lay, off):
            x[v] = o - mid
    follow_up, follow_down, stiff, stiff2, below = _pass_inputs(g)
    for lay, off in zip(layers, offs):
        _place_layer(lay, off, x, follow_up, stiff)
    for lay, off in zip(reversed(layers), reversed(offs)):
        if any(below[v] for v in lay):
            _place_layer(lay, off, x, follow_down, stiff2)
    return x


def assign_x(g: LayeredGraph, layers: list[list[int]], width: list[float]) -> list[float]:
    offs = _gaps(layers, width, g.n_real)
    x = _place_passes(g, layers, offs)
    left = min((x[v] - width[v] / 2.0 for v in range(g.n)), default=0.0)
    shift = MARGIN - left
    return [xi + shift for xi in x]


def assign_y(layers: list[list[int]], height: list[float],
             rank_sep: float = RANK_SEP) -> tuple[list[float], list[float]]:
    """Top y and height of every layer row; nodes are centred vertically in their row."""
    tops, hs = [], []
    y = MARGIN
    for lay in layers:
        h = max((height[v] for v in lay), default=0.0)
        tops.append(y)
        hs.append(h)
        y += h + rank_sep
    return tops, hs

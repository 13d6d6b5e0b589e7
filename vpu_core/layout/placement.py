"""Coordinate assignment: x inside each layer, y per layer.

x comes from block coordinate descent over the layers (alternately downward and upward):
each vertex wants the weighted median of its neighbours' x (the L1 choice: a vertex lines
up exactly with its heaviest neighbour instead of averaging, which keeps chains straight),
and each layer is then fitted to those wishes under its order and minimum gaps exactly, as
a weighted isotonic regression (pool-adjacent-violators). Layers whose neighbours did not
move are skipped, so the sweeps cost little once the drawing has settled.
Edge weights follow dot's priority idea: segments of long edges (dummy-dummy) weigh most so
long edges run straight, and an op ignores its parameter inputs while parameter vertices
barely resist being pushed, so the data path stays a straight spine with weights beside it.
"""
from __future__ import annotations

from .layering import LayeredGraph
from .types import EDGE_SEP, MARGIN, NODE_SEP, RANK_SEP

W_SPINE = 4.0          # op -> op (not parameters): the data path wants to be straight
W_REAL = 1.0           # edges of parameter chains
W_MIXED = 2.0          # real vertex <-> bend point of a long edge
W_DUMMY = 8.0          # bend point <-> bend point: long edges run straight
SIDE_STIFFNESS = 0.05  # how strongly a parameter vertex resists the spine pushing it aside
OP_STIFFNESS = 4.0     # ... and an op resists, relative to a bend point of a long edge
SWEEPS = 10            # down/up sweeps at most; converged layers are skipped
EPS = 0.05             # px: a layer that moved less than this counts as settled


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


def _edge_weight(g: LayeredGraph, u: int, v: int) -> float:
    nr = g.n_real
    if u >= nr and v >= nr:
        return W_DUMMY
    if u >= nr or v >= nr:
        return W_MIXED
    return W_REAL if (g.side[u] or g.side[v]) else W_SPINE


def _neighbour_weights(g: LayeredGraph):
    """(neighbour, weight) lists of every vertex above, below and on both sides, and the
    stiffness of each vertex (total weight; ops hold, bend points give way, parameter
    vertices give way most)."""
    nr = g.n_real
    up, down, both, stiff = [], [], [], []
    for v in range(g.n):
        op = v < nr and not g.side[v]
        # an op is not pulled by its weights; they move to it
        a = [(u, _edge_weight(g, u, v)) for u in g.up[v] if not (op and g.side[u])]
        b = [(u, _edge_weight(g, u, v)) for u in g.down[v] if not (op and g.side[u])]
        up.append(a)
        down.append(b)
        both.append(a + b)
        # squared weights: a vertex on strong (spine, long-edge) chains holds its line
        # against one with a weak edge, e.g. the spine beats the last hop of a skip edge
        tot = max(sum(w * w for _, w in a + b), 1e-3)
        stiff.append(tot * (SIDE_STIFFNESS if g.side[v] else OP_STIFFNESS if op else 1.0))
    return up, down, both, stiff


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


def _place_layer(lay, off, x, nbw, stiff, only=None) -> bool:
    """Fit one layer to its vertices' wishes; True if some vertex moved noticeably.
    `only`: a vertex v with only[v] False keeps its x as its wish."""
    if len(lay) == 1:
        v = lay[0]
        d = _wish(nbw[v], x, x[v]) if only is None or only[v] else x[v]
        moved = abs(d - x[v]) > EPS
        x[v] = d
        return moved
    z = [(_wish(nbw[v], x, x[v]) if only is None or only[v] else x[v]) - o
         for v, o in zip(lay, off)]
    if any(a > b for a, b in zip(z, z[1:])):
        z = _pav(z, [stiff[v] for v in lay])
    moved = False
    for v, o, zi in zip(lay, off, z):
        xi = zi + o
        if abs(xi - x[v]) > EPS:
            moved = True
        x[v] = xi
    return moved


def _initial_x(g, layers, offs, up, down, stiff) -> list[float]:
    """Top-down, every op and bend point follows its upper neighbours (straight chains,
    nothing smeared); then bottom-up, parameter vertices move next to their consumer."""
    x = [0.0] * g.n
    for lay, off in zip(layers, offs):
        mid = off[-1] / 2.0 if off else 0.0
        for v, o in zip(lay, off):
            x[v] = o - mid
    main = [not s for s in g.side]
    for lay, off in zip(layers, offs):
        _place_layer(lay, off, x, up, stiff, main)
    for lay, off in zip(reversed(layers), reversed(offs)):
        _place_layer(lay, off, x, down, stiff, g.side)
    return x


def assign_x(g: LayeredGraph, layers: list[list[int]], width: list[float]) -> list[float]:
    offs = _gaps(layers, width, g.n_real)
    up, down, both, stiff = _neighbour_weights(g)
    x = _initial_x(g, layers, offs, up, down, stiff)
    nl = len(layers)
    moved_at = [1] * (nl + 2)                      # padded: index li+1 is layer li
    done_at = [0] * (nl + 2)
    t = 1
    for s in range(SWEEPS):
        rng = range(nl) if s % 2 == 0 else range(nl - 1, -1, -1)
        for li in rng:
            if max(moved_at[li], moved_at[li + 2]) <= done_at[li + 1]:
                continue                           # neighbours unchanged: still optimal
            t += 1
            done_at[li + 1] = t
            if _place_layer(layers[li], offs[li], x, both, stiff):
                moved_at[li + 1] = t
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

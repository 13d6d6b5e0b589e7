"""Crossing reduction: order the vertices inside each layer.

DFS initial order (the data path first, long edges to its right), then alternating
up/down barycenter sweeps, upward first (parameters get a small left bias so they land just
left of the spine vertex feeding the same consumer), then adjacent transpositions restricted
to layers that still touch a crossing. The best order seen is kept, a tie going to the later
one. Crossings are counted per pair of adjacent layers as inversions; on our routes this
matches `metrics.count_crossings` (geometric) except for pairs of edges sharing an end node,
which the geometric counter ignores.
Sweeps skip layers whose neighbour layer did not change, and stop after two sweeps without
improvement: on Q/DQ graphs they converge in 2-4 sweeps.
"""
from __future__ import annotations

import numpy as np

from .layering import LayeredGraph

PARAM_BIAS = -0.3       # parameters sort just left of a spine vertex with the same barycenter
MAX_SWEEPS = 8          # up+down pairs of barycenter sweeps at most
MAX_TRANSPOSE = 4       # transposition passes over the layers that still cross
TRANSPOSE_BUDGET = 200_000   # vertex visits per transposition run, at most (roughly)
NP_INVERSIONS = 400     # count inversions with numpy from this sequence length on


def initial_order(g: LayeredGraph) -> list[list[int]]:
    """Vertices per layer in DFS preorder from the sources (spine first, then parameters),
    which keeps each chain contiguous and starts the sweeps close to crossing-free."""
    layers: list[list[int]] = [[] for _ in range(g.n_layers)]
    seen = [False] * g.n
    roots = [v for v in range(g.n_real) if not g.up[v] and not g.param_chain[v]]
    roots += [v for v in range(g.n_real) if not g.up[v] and g.param_chain[v]]
    roots += list(range(g.n))          # anything unreachable from a source (defensive)
    nr = g.n_real
    # children: real vertices before bend points, so the data path continues on the left
    # and long (skip) edges start on its right; parameters end up left of the spine later
    down = [sorted(d, key=lambda w: w >= nr) if len(d) > 1 else d for d in g.down]
    for r in roots:
        if seen[r]:
            continue
        seen[r] = True
        stack = [r]
        while stack:
            v = stack.pop()
            layers[g.layer[v]].append(v)
            for w in reversed(down[v]):
                if not seen[w]:
                    seen[w] = True
                    stack.append(w)
    return layers


def _positions(layers: list[list[int]], n: int) -> list[int]:
    pos = [0] * n
    for lay in layers:
        for i, v in enumerate(lay):
            pos[v] = i
    return pos


def _sweep(layers, pos, nbrs, bias, indices, step, ver, memo) -> list[int]:
    """One barycenter sweep: reorder each layer in `indices` by its neighbours in `nbrs`
    (the layer at li + step). A layer whose own order and neighbour layer are unchanged
    since it was last sorted this way would sort the same: skipped. Returns changed layers.
    """
    changed = []
    for li in indices:
        lay = layers[li]
        if len(lay) < 2:
            continue
        stamp = (ver[li], ver[li + step])
        if memo.get(li) == stamp:
            continue
        keys = []
        for v in lay:
            nb = nbrs[v]
            if len(nb) == 1:
                keys.append(pos[nb[0]] + bias[v])
            elif nb:
                s = 0
                for u in nb:
                    s += pos[u]
                keys.append(s / len(nb) + bias[v])
            else:
                keys.append(pos[v])        # no neighbour on this side: keep its place
        if len(lay) == 2:                  # most layers: one comparison, no sort
            if keys[1] < keys[0]:
                a, b = lay
                layers[li] = [b, a]
                pos[b], pos[a] = 0, 1
                ver[li] += 1
                changed.append(li)
        else:
            idx = sorted(range(len(lay)), key=keys.__getitem__)
            if any(i != k for k, i in enumerate(idx)):
                new = [lay[i] for i in idx]
                layers[li] = new
                for i, v in enumerate(new):
                    pos[v] = i
                ver[li] += 1
                changed.append(li)
        memo[li] = (ver[li], ver[li + step])
    return changed


def _inversions(seq: list[int], size: int) -> int:
    """Pairs i < j with seq[i] > seq[j]."""
    m = len(seq)
    if m < 40:                     # typical narrow layer: the plain double loop is fastest
        c = 0
        for i in range(m):
            a = seq[i]
            for j in range(i + 1, m):
                if seq[j] < a:
                    c += 1
        return c
    if m >= NP_INVERSIONS:
        return _inversions_np(seq)
    tree = [0] * (size + 1)        # Fenwick tree: count earlier values greater than each one
    c = 0
    for k, a in enumerate(seq):
        i, le = a + 1, 0
        while i > 0:
            le += tree[i]
            i -= i & -i
        c += k - le
        i = a + 1
        while i <= size:
            tree[i] += 1
            i += i & -i
    return c


def _inversions_np(seq: list[int]) -> int:
    """Bottom-up merge count, one numpy pass per level: at block size b, every element of a
    right half is checked against its (already sorted) left half with one searchsorted."""
    a = np.asarray(seq, dtype=np.int64)
    m = len(a)
    size = 1 << (m - 1).bit_length()
    top = int(a.max()) + 1
    a = np.concatenate([a, np.full(size - m, top, dtype=np.int64)])   # padding: no inversions
    total, b = 0, 1
    while b < size:
        blocks = a.reshape(-1, 2 * b)
        off = (np.arange(len(blocks), dtype=np.int64) * (top + 1))[:, None]
        left = (blocks[:, :b] + off).ravel()          # rows stay apart after the offset
        right = (blocks[:, b:] + off).ravel()
        le = np.searchsorted(left, right, side="right") - np.repeat(np.arange(len(blocks)) * b, b)
        total += int((b - le).sum())
        a = np.sort(blocks, axis=1).ravel()
        b *= 2
    return total


def gap_crossings(layers: list[list[int]], pos: list[int], down: list[list[int]], li: int) -> int:
    """Crossings between layer li and li+1."""
    if len(layers[li]) < 2 or len(layers[li + 1]) < 2:
        return 0                           # all edges share their one end: no crossing
    seq: list[int] = []
    for u in layers[li]:
        d = down[u]
        if len(d) == 1:
            seq.append(pos[d[0]])
        elif d:
            seq.extend(sorted(pos[w] for w in d))
    return _inversions(seq, len(layers[li + 1]))


def all_gap_crossings(layers: list[list[int]], pos: list[int], down: list[list[int]]) -> list[int]:
    widths = [len(lay) for lay in layers]
    return [gap_crossings(layers, pos, down, i) if widths[i] > 1 and widths[i + 1] > 1 else 0
            for i in range(len(layers) - 1)]


def _pair_cost(a_nb, b_nb, pos) -> int:
    """Crossings among the edges of a and b (a left of b) towards one neighbour layer."""
    c = 0
    for x in a_nb:
        px = pos[x]
        for y in b_nb:
            if px > pos[y]:
                c += 1
    return c


def _transpose(layers, pos, g: LayeredGraph, gaps: list[int]) -> None:
    """Swap adjacent vertices while that lowers crossings, only in layers next to a gap
    that still has crossings (most of a Q/DQ graph is crossing-free after the sweeps)."""
    up, down = g.up, g.down
    nl = len(layers)
    todo = sorted({l for i, c in enumerate(gaps) if c for l in (i, i + 1)})
    # a budget of pair evaluations keeps dense, crossing-rich (non Q/DQ) graphs bounded
    passes = min(MAX_TRANSPOSE, max(1, TRANSPOSE_BUDGET // max(1, sum(len(layers[l]) for l in todo))))
    for _ in range(passes):
        improved = False
        for li in todo:
            lay = layers[li]
            for i in range(len(lay) - 1):
                a, b = lay[i], lay[i + 1]
                if len(up[a]) * len(up[b]) + len(down[a]) * len(down[b]) > 400:
                    continue               # hub vertices: too costly, rarely helps
                keep = swap = 0
                if li > 0:
                    keep += _pair_cost(up[a], up[b], pos)
                    swap += _pair_cost(up[b], up[a], pos)
                if li < nl - 1:
                    keep += _pair_cost(down[a], down[b], pos)
                    swap += _pair_cost(down[b], down[a], pos)
                if swap < keep:
                    lay[i], lay[i + 1] = b, a
                    pos[a], pos[b] = i + 1, i
                    improved = True
        if not improved:
            break


def order_layers(g: LayeredGraph) -> list[list[int]]:
    layers = initial_order(g)
    pos = _positions(layers, g.n)
    bias = [PARAM_BIAS if s else 0.0 for s in g.param_chain]
    nl = len(layers)
    gaps = all_gap_crossings(layers, pos, g.down)
    best, best_c, best_gaps = [lay[:] for lay in layers], sum(gaps), gaps[:]
    ver = [0] * nl
    memo_up: dict[int, tuple[int, int]] = {}
    memo_down: dict[int, tuple[int, int]] = {}
    stale = 0
    for it in range(2 * MAX_SWEEPS):
        if it % 2 == 1:
            changed = _sweep(layers, pos, g.up, bias, range(1, nl), -1, ver, memo_down)
        else:   # upward first: the DFS order has parameters last; consumers pull them left
            changed = _sweep(layers, pos, g.down, bias, range(nl - 2, -1, -1), 1, ver, memo_up)
        for li in {k for c_li in changed for k in (c_li - 1, c_li) if 0 <= k < nl - 1}:
            gaps[li] = gap_crossings(layers, pos, g.down, li)
        c = sum(gaps)
        if c <= best_c:       # a tie goes to the later order: parameters moved to the left
            stale = 0 if c < best_c else stale + 1
            best, best_c, best_gaps = [lay[:] for lay in layers], c, gaps[:]
        else:
            stale += 1
        if best_c == 0 or stale >= 2 or not changed:   # barycenter oscillates: keep best
            break
    layers, gaps = best, best_gaps
    pos = _positions(layers, g.n)
    if best_c:
        _transpose(layers, pos, g, gaps)
    return layers


def total_crossings(layers: list[list[int]], g: LayeredGraph) -> int:
    return sum(all_gap_crossings(layers, _positions(layers, g.n), g.down))

"""Layer assignment: cycle breaking, longest-path layering, then parameters, sources and
pass-through vertices (a skip edge's dequantize) sunk to just above their consumer, and
dummy vertices that split long edges into one-layer segments.

Everything works on integer vertex ids in plain Python lists: on the Q/DQ graphs we lay out,
layers are narrow (2-6 vertices) and numerous (thousands), so per-layer numpy calls would cost
more than they save.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from vpu_core.graph.model import GraphModel


@dataclass
class LayeredGraph:
    """A proper layered graph: every segment joins two adjacent layers.

    Vertices 0..n_real-1 are the model's nodes in model order; the rest are dummies.
    """
    n_real: int
    ids: list[str]                       # id of each real vertex
    layer: list[int]                     # layer of every vertex (real and dummy)
    up: list[list[int]]                  # neighbours one layer above
    down: list[list[int]]                # neighbours one layer below
    param_chain: list[bool]              # parameter vertices (and dummies of their edges)
    chains: dict[tuple[int, int], list[int]] = field(default_factory=dict)
    reversed_pairs: set[tuple[int, int]] = field(default_factory=set)  # model edges turned round
    n_layers: int = 0

    @property
    def n(self) -> int:
        return len(self.layer)

    def layers(self) -> list[list[int]]:
        out: list[list[int]] = [[] for _ in range(self.n_layers)]
        for v, l in enumerate(self.layer):
            out[l].append(v)
        return out


def _index_edges(model: GraphModel) -> tuple[dict[str, int], list[tuple[int, int]]]:
    """Distinct (src, dst) pairs between known nodes, self-loops dropped (routed separately)."""
    index = {n.id: i for i, n in enumerate(model.nodes)}
    seen: set[tuple[int, int]] = set()
    pairs: list[tuple[int, int]] = []
    for e in model.edges:
        u, v = index.get(e.src), index.get(e.dst)
        if u is None or v is None or u == v or (u, v) in seen:
            continue
        seen.add((u, v))
        pairs.append((u, v))
    return index, pairs


def _topo_order(n: int, succ: list[list[int]], indeg: list[int]) -> list[int]:
    """Kahn's algorithm in model order; returns fewer than n vertices if there is a cycle."""
    indeg = indeg[:]
    stack = [v for v in range(n - 1, -1, -1) if indeg[v] == 0]
    order: list[int] = []
    while stack:
        v = stack.pop()
        order.append(v)
        for w in reversed(succ[v]):
            indeg[w] -= 1
            if indeg[w] == 0:
                stack.append(w)
    return order


def _break_cycles(n: int, pairs: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """Back edges of an iterative DFS in model order. fx graphs are acyclic, so this is
    defensive only; reversing back edges makes any input layerable."""
    succ: list[list[int]] = [[] for _ in range(n)]
    for u, v in pairs:
        succ[u].append(v)
    state = [0] * n          # 0 new, 1 on stack, 2 done
    back: set[tuple[int, int]] = set()
    for root in range(n):
        if state[root]:
            continue
        state[root] = 1
        stack = [(root, 0)]
        while stack:
            v, i = stack[-1]
            if i < len(succ[v]):
                stack[-1] = (v, i + 1)
                w = succ[v][i]
                if state[w] == 1:
                    back.add((v, w))
                elif state[w] == 0:
                    state[w] = 1
                    stack.append((w, 0))
            else:
                state[v] = 2
                stack.pop()
    return back


def _main_preds(preds: list[int], param_chain: list[bool]) -> int:
    return sum(1 for u in preds if not param_chain[u])


def _adjacency(n: int, pairs: list[tuple[int, int]]):
    succ: list[list[int]] = [[] for _ in range(n)]
    pred: list[list[int]] = [[] for _ in range(n)]
    for u, v in pairs:
        succ[u].append(v)
        pred[v].append(u)
    return succ, pred


def _assign_layers(order: list[int], succ, pred, param_chain: list[bool]) -> list[int]:
    layer = [0] * len(order)
    for v in order:                                   # longest path from the sources
        lv = layer[v] + 1
        for w in succ[v]:
            if layer[w] < lv:
                layer[w] = lv
    # Parameters, plain sources and pass-through vertices (one successor, at most one
    # non-parameter input, e.g. the dequantize of a residual skip) sink to just above their
    # consumer: weights sit beside the op that uses them instead of piling up in layer 0,
    # and a Q/DQ node stays with the op it feeds (the long edge moves above it, same total
    # length). Moving a vertex down never breaks an edge above it; reverse topological
    # order moves whole chains.
    for v in reversed(order):
        sv = succ[v]
        if not sv:
            continue
        if param_chain[v] or not pred[v] or (len(sv) == 1 and _main_preds(pred[v], param_chain) <= 1):
            layer[v] = min(layer[w] for w in sv) - 1
    used = sorted(set(layer))                         # drop layers emptied by the move
    if len(used) == used[-1] + 1:
        return layer
    remap = {l: i for i, l in enumerate(used)}
    return [remap[l] for l in layer]


def _pin(layer: list[int], pins: dict[int, str]) -> list[int]:
    """Pinned vertices (a group's ports) go to a layer of their own: "top" above every other
    vertex, "bottom" below; emptied layers are dropped."""
    free = [l for v, l in enumerate(layer) if v not in pins]
    lo, hi = (min(free), max(free)) if free else (0, 0)
    for v, where in pins.items():
        layer[v] = lo - 1 if where == "top" else hi + 1
    used = sorted(set(layer))
    remap = {l: i for i, l in enumerate(used)}
    return [remap[l] for l in layer]


def build_layered(model: GraphModel, pins: dict[int, str] | None = None) -> LayeredGraph:
    """`pins`: vertex index -> "top" | "bottom" for vertices that must sit above / below all others."""
    index, pairs = _index_edges(model)
    n = len(model.nodes)
    param_chain = [bool(nd.is_param) for nd in model.nodes]
    succ, pred = _adjacency(n, pairs)
    order = _topo_order(n, succ, [len(p) for p in pred])
    back: set[tuple[int, int]] = set()
    if len(order) < n:                                 # a cycle: turn its back edges round
        back = _break_cycles(n, pairs)
        oriented, seen = [], set()
        for u, v in pairs:
            p = (v, u) if (u, v) in back else (u, v)
            if p not in seen:                          # u->v and v->u collapse to one
                seen.add(p)
                oriented.append(p)
        pairs = oriented
        succ, pred = _adjacency(n, pairs)
        order = _topo_order(n, succ, [len(p) for p in pred])
    layer = _assign_layers(order, succ, pred, param_chain) if n else []
    if pins and layer:
        layer = _pin(layer, pins)
    g = LayeredGraph(n_real=n, ids=[nd.id for nd in model.nodes], layer=layer,
                     up=[[] for _ in range(n)], down=[[] for _ in range(n)], param_chain=param_chain[:],
                     reversed_pairs=back)
    g.n_layers = (max(layer) + 1) if layer else 0
    for u, v in pairs:
        _add_chain(g, u, v)
    return g


def _add_chain(g: LayeredGraph, u: int, v: int) -> None:
    """Split u->v into one-layer segments through dummy vertices."""
    lu, lv = g.layer[u], g.layer[v]
    if lv == lu + 1:                                   # the common case: no dummy
        g.down[u].append(v)
        g.up[v].append(u)
        g.chains[(u, v)] = [u, v]
        return
    chain = [u]
    on_param_chain = g.param_chain[u]                  # a parameter's edge stays beside
    for l in range(lu + 1, lv):
        d = len(g.layer)
        g.layer.append(l)
        g.up.append([])
        g.down.append([])
        g.param_chain.append(on_param_chain)
        chain.append(d)
    chain.append(v)
    for a, b in zip(chain, chain[1:]):
        g.down[a].append(b)
        g.up[b].append(a)
    g.chains[(u, v)] = chain

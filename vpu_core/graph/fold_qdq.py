"""Folded Q/DQ ("Hide Q/DQ"): quantize → dequantize chains disappear into the edge they sit on.

A converted graph has about four Q/DQ nodes per real op. Folded, the edge from the producing op
to each consuming op carries what the chain said: the dtype the tensor travels in and its scale
(a number; the view writes 2^k where it is one), the violations found on the folded Q/DQ nodes,
and the boundary mark and bytes of any VPU/CPU boundary inside the chain. The node count drops to
the real ops (plus inputs, outputs and any unfolded parameters).

`meta["folded_into"]` keeps mapping every hidden node to the node that shows it — a quantize to
its producer, a dequantize to its consumer — so tables can still jump to a Q/DQ violation.
Pure Python on the GraphModel and the analysis' plain values.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from vpu_core.formatting import scale_text
from vpu_core.graph.model import GraphEdge, GraphModel

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis, TensorQParams


def fold_qdq(model: GraphModel, analysis: Analysis | None = None) -> GraphModel:
    hidden = {n.id for n in model.nodes if n.category == "qdq"}
    if not hidden:
        return model
    tensors: dict[str, TensorQParams] = {t.node: t for t in analysis.tensors} if analysis else {}
    by_id = {n.id: n for n in model.nodes}
    succ: dict[str, list[GraphEdge]] = {}
    for e in model.edges:
        succ.setdefault(e.src, []).append(e)
    edges: dict[tuple[str, str], GraphEdge] = {}
    into = dict(model.meta.get("folded_into", {}))
    for src in (n.id for n in model.nodes if n.id not in hidden):
        for first in succ.get(src, ()):
            for dst, chain, boundary, nbytes in _chains(first, succ, hidden):
                if dst is None:                      # the chain ends in nothing visible
                    continue
                edge = _folded_edge(src, dst, chain, boundary, nbytes, by_id, tensors)
                key = (src, dst)
                edges[key] = _merge(edges[key], edge, by_id) if key in edges else edge
                for q in chain:
                    into.setdefault(q, src if by_id[q].label == "quantize" else dst)
    nodes = tuple(n for n in model.nodes if n.id not in hidden)
    meta = {**model.meta, "folded_into": _resolve(into, {n.id for n in nodes}), "hide_qdq": True}
    metrics = {k: {i: v for i, v in vals.items() if i not in hidden} for k, vals in model.metrics.items()}
    return replace(model, nodes=nodes, edges=tuple(edges.values()), meta=meta, metrics=metrics)


scale_label = scale_text   # "2^-5" where the scale is a power of two (vpu_core.formatting)


def edge_text(edge: GraphEdge) -> str:
    """What a folded edge says: "int8 · 2^-5" (dtype and scale; per-channel without a scale)."""
    if not edge.folded:
        return ""
    scale = scale_label(edge.scale) if edge.scale is not None else "per-channel"
    return " · ".join(p for p in (edge.dtype, scale) if p)


def _chains(first: GraphEdge, succ: dict, hidden: set[str]):
    """(visible consumer, folded Q/DQ ids, boundary, bytes) of every path from `first` through
    Q/DQ nodes to a visible node."""
    stack: list[tuple[GraphEdge, tuple[str, ...], str | None, int]] = [(first, (), first.boundary, first.bytes)]
    while stack:
        edge, chain, boundary, nbytes = stack.pop()
        if edge.dst not in hidden:
            yield edge.dst, chain, boundary, nbytes
            continue
        chain = (*chain, edge.dst)
        outs = succ.get(edge.dst, ())
        if not outs:
            yield None, chain, boundary, nbytes
        for nxt in outs:
            stack.append((nxt, chain, boundary or nxt.boundary, nbytes + nxt.bytes))


def _folded_edge(src, dst, chain, boundary, nbytes, by_id, tensors) -> GraphEdge:
    if not chain:
        return GraphEdge(src, dst, boundary, nbytes)
    tensor = next((tensors[q] for q in chain if by_id[q].label == "quantize" and q in tensors),
                  next((tensors[q] for q in chain if q in tensors), None))
    scale = tensor.scales[0] if tensor is not None and len(tensor.scales) == 1 else None
    return GraphEdge(src, dst, boundary, nbytes, dtype=tensor.dtype if tensor else "",
                     scale=scale, violations=sum(by_id[q].violations for q in chain),
                     folded=chain)


def _merge(a: GraphEdge, b: GraphEdge, by_id) -> GraphEdge:
    """Two paths between the same pair of ops (e.g. two dequantizes of one quantize)."""
    folded = tuple(dict.fromkeys(a.folded + b.folded))
    return replace(a, boundary=a.boundary or b.boundary, bytes=max(a.bytes, b.bytes),
                   folded=folded, violations=sum(by_id[q].violations for q in folded),
                   dtype=a.dtype or b.dtype, scale=a.scale if a.scale is not None else b.scale)


def _resolve(into: dict[str, str], shown: set[str]) -> dict[str, str]:
    """Follow chains of folding (a parameter folded into a Q/DQ that was then folded) to a shown node."""
    out = {}
    for k, v in into.items():
        seen = 0
        while v not in shown and v in into and seen < 8:
            v, seen = into[v], seen + 1
        out[k] = v
    return out

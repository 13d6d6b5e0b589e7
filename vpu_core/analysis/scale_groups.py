"""Shared-scale groups: which tensors are forced to one scale (constraint 6, seen as a whole).

An add / cat / pooling op (the profile's shared-scale ops) wants its inputs and its output on one
scale. Ops chain: a residual add's output is the next block's input and the next add's skip, so
one requirement ties many tensors together. Union-find over every such op's input and output
tensors gives the groups; each group lists its member tensors with the scale each one actually
got. Under the VPU quantizer the scales of a group are equal (SharedQuantizationSpec); under
XNNPACK they differ, and the group shows them side by side.

A tensor is its quantize node (the dequantize it passes through is what the op reads); a
dequantize with no quantize in front (an int8 graph input) stands for itself.
"""
from __future__ import annotations

from torch.fx import Node

from vpu_core.analysis.qgraph import QGraph
from vpu_core.analysis.results import ScaleGroup, ScaleMember
from vpu_core.analysis.rules.shared_scale import shared_scale_ops, tensor_inputs
from vpu_core.qdq import is_dequantize, is_quantize


def _tensor_of(dq: Node) -> Node:
    src = dq.args[0] if dq.args else None
    return src if isinstance(src, Node) and is_quantize(src) else dq


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[Node, Node] = {}

    def find(self, x: Node) -> Node:
        self.parent.setdefault(x, x)
        root = x
        while self.parent[root] is not root:
            root = self.parent[root]
        while self.parent[x] is not root:           # path compression
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a: Node, b: Node) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            self.parent[rb] = ra


def scale_groups(g: QGraph) -> tuple[ScaleGroup, ...]:
    uf = _UnionFind()
    ops_of: dict[Node, list[Node]] = {}             # tensor -> shared-scale ops it touches
    for op, _ins, out in shared_scale_ops(g):
        tensors = [_tensor_of(a) for a in tensor_inputs(op) if is_dequantize(a)]
        if out is not None:
            tensors.append(out.node)
        for t in tensors:
            uf.union(tensors[0], t)
            ops_of.setdefault(t, []).append(op)
    groups: dict[Node, list[Node]] = {}
    for t in ops_of:                                # graph order of first appearance
        groups.setdefault(uf.find(t), []).append(t)
    order = {n: i for i, n in enumerate(g.nodes)}
    found: list[ScaleGroup] = []
    for members in groups.values():
        members.sort(key=order.__getitem__)
        ops = sorted({op for t in members for op in ops_of[t]}, key=order.__getitem__)
        rows = tuple(_member(g, t) for t in members)
        first = g.qp[members[0]]
        shared = all(g.qp[t].same_as(first) for t in members)
        found.append(ScaleGroup(len(found), tuple(o.name for o in ops), rows, shared))
    return tuple(found)


def _member(g: QGraph, t: Node) -> ScaleMember:
    qp = g.qp[t]
    src = t.args[0] if t.args and isinstance(t.args[0], Node) else None
    dqs = tuple(u.name for u in t.users if is_dequantize(u)) if is_quantize(t) else (t.name,)
    return ScaleMember(tensor=t.name, producer=src.name if src is not None else "",
                       scales=qp.scales, zero_points=qp.zero_points, dequantizes=dqs)

"""Multiply-accumulates per op, from the analysis' node shapes (no torch, works on a cached analysis).

The same counting as the partition economics (vpu_core.whatif.economics.op_macs), read from
NodeInfo (shape text and the argument references) instead of a live graph:
- convolution: output elements × prod(weight.shape[1:]); transposed: input elements × the same;
- linear: output elements × in_features; matmul / mm / bmm / addmm / baddbmm: output elements × K;
- scaled_dot_product_attention (transformers' attention): Q·Kᵀ and the weighted sum of V,
  query rows × key length × (E + E_v) — the economics count it as 0, but attention is where a
  transformer's CPU MACs are when its matmuls are fused into one op.
Every other op counts 0: a fleet's "CPU MACs" are the MAC-array work left on the CPU.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from vpu_core.profile import op_matches

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis, NodeInfo

_CONV = ("conv1d", "conv2d", "conv3d", "convolution")
_CONV_T = ("conv_transpose1d", "conv_transpose2d", "conv_transpose3d")
_MATMUL = ("matmul", "mm", "bmm", "addmm", "baddbmm")


@dataclass(frozen=True)
class MacBreakdown:
    total: int = 0
    vpu: int = 0
    cpu_by_node: dict = field(default_factory=dict)  # CPU node name -> its MACs (nodes with any)

    @property
    def cpu(self) -> int:
        return sum(self.cpu_by_node.values())

    @property
    def vpu_share(self) -> float | None:
        return self.vpu / self.total if self.total else None


def _shape(info: NodeInfo | None) -> tuple[int, ...] | None:
    text = (info.shape if info is not None else "").strip()
    if not (text.startswith("[") and text.endswith("]")):
        return None
    try:
        return tuple(int(d) for d in text[1:-1].split(",") if d.strip())
    except ValueError:        # a symbolic dimension: not countable
        return None


def _arg(a: Analysis, info: NodeInfo, index: int, name: str) -> NodeInfo | None:
    args = info.arguments
    found = next((x for x in args if x.name == name), None)
    if found is None and index < len(args):
        found = args[index]
    if found is None or not found.refs:
        return None
    return a.nodes.get(found.refs[0])


def node_macs(a: Analysis, info: NodeInfo) -> int:
    """Multiply-accumulates of one op node (0 for ops a MAC array does not run)."""
    out = _shape(info)
    if out is None or info.kind != "call_function":
        return 0
    name = info.op
    if op_matches(name, _CONV) or op_matches(name, _CONV_T):
        weight = _shape(_arg(a, info, 1, "weight"))
        transposed = op_matches(name, _CONV_T) or _transposed_flag(info)
        rows = _shape(_arg(a, info, 0, "input")) if transposed else out
        return math.prod(rows) * math.prod(weight[1:]) if weight and rows else 0
    if op_matches(name, ("linear",)):
        weight = _shape(_arg(a, info, 1, "weight"))
        return math.prod(out) * weight[-1] if weight else 0
    if op_matches(name, ("scaled_dot_product_attention",)):
        q, k, v = (_shape(_arg(a, info, i, n)) for i, n in enumerate(("query", "key", "value")))
        return math.prod(q[:-1]) * k[-2] * (q[-1] + v[-1]) if q and k and v else 0
    if op_matches(name, _MATMUL):
        first = _arg(a, info, 1, "mat1") if op_matches(name, ("addmm", "baddbmm")) else _arg(a, info, 0, "self")
        k = _shape(first)
        return math.prod(out) * k[-1] if k else 0
    return 0


def _transposed_flag(info: NodeInfo) -> bool:
    if not info.op.startswith("convolution"):
        return False
    found = next((x for x in info.arguments if x.name == "transposed"), None)
    return bool(found is not None and found.value)


def mac_breakdown(a: Analysis) -> MacBreakdown:
    """All MACs of the analysed graph, those in VPU subgraphs, and those of each CPU node."""
    assignment = a.partition.assignment
    cpu_nodes = {c.node for c in a.partition.cpu_nodes}
    total = vpu = 0
    by_node: dict[str, int] = {}
    for name, info in a.nodes.items():
        macs = node_macs(a, info)
        if not macs:
            continue
        total += macs
        if name in cpu_nodes:
            by_node[name] = macs
        elif assignment.get(name, "cpu") != "cpu":
            vpu += macs
    return MacBreakdown(total, vpu, by_node)

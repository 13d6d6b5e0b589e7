"""Partition economics: does each VPU subgraph pay for the bytes it moves across the boundary?

For every VPU subgraph: the bytes entering and leaving it (each tensor counted once per
subgraph, however many of its nodes read it) against the multiply-accumulates it keeps on the
VPU, computed from shapes:
- convolution: output elements × (input channels / groups) × kernel size (prod(weight.shape[1:]));
- transposed convolution: input elements × prod(weight.shape[1:]);
- linear: output elements × in_features; matmul / mm / bmm / addmm / baddbmm: output elements × K.
Everything else (relu, add, pooling, layout) counts 0 MAC: a subgraph of only those moves data
to the VPU for no multiply-accumulate at all.

A subgraph pays when bytes_in + bytes_out ≤ break_even_bytes_per_mac × MACs, the break-even
assumption of the hardware profile ([economics] in the TOML).
"""
from __future__ import annotations

import math

from torch.fx import Node

from vpu_core.analysis.partition import tensor_bytes
from vpu_core.analysis.qgraph import QGraph, is_op
from vpu_core.analysis.results import PartitionReport
from vpu_core.fx_utils import op_name
from vpu_core.profile import op_matches
from vpu_core.whatif.results import Economics, SubgraphEconomics

_CONV = ("conv1d", "conv2d", "conv3d", "convolution")
_CONV_T = ("conv_transpose1d", "conv_transpose2d", "conv_transpose3d")
_MATMUL = ("matmul", "mm", "bmm", "addmm", "baddbmm")


def _shape(g: QGraph, arg) -> tuple[int, ...] | None:
    """The output shape of a node (a symbolic dimension at its example value), None if unknown."""
    if not isinstance(arg, Node) or arg.name not in g.tensor_meta:
        return None
    return tensor_bytes(g.tensor_meta[arg.name])[1]


def op_macs(g: QGraph, node: Node) -> int:
    """Multiply-accumulates of one op from its shapes (0 for ops without a MAC array's work)."""
    name = op_name(node)
    out = _shape(g, node)
    if out is None:
        return 0
    if op_matches(name, _CONV) and len(node.args) > 1:
        if name.startswith("convolution") and len(node.args) > 6 and node.args[6]:
            return _transposed(g, node)
        weight = _shape(g, node.args[1])
        return math.prod(out) * math.prod(weight[1:]) if weight else 0
    if op_matches(name, _CONV_T) and len(node.args) > 1:
        return _transposed(g, node)
    if op_matches(name, ("linear",)) and len(node.args) > 1:
        weight = _shape(g, node.args[1])
        return math.prod(out) * weight[-1] if weight else 0
    if op_matches(name, _MATMUL):
        first = node.args[1] if op_matches(name, ("addmm", "baddbmm")) else node.args[0]
        a = _shape(g, first)
        return math.prod(out) * a[-1] if a else 0
    return 0


def _transposed(g: QGraph, node: Node) -> int:
    x, weight = _shape(g, node.args[0]), _shape(g, node.args[1])
    return math.prod(x) * math.prod(weight[1:]) if x and weight else 0


def subgraph_economics(g: QGraph, part: PartitionReport) -> Economics:
    """Boundary bytes against MACs for every VPU subgraph of `part` (a partition of `g`)."""
    bytes_in: dict[int, dict[str, int]] = {s.id: {} for s in part.subgraphs}
    bytes_out: dict[int, dict[str, int]] = {s.id: {} for s in part.subgraphs}
    for b in part.boundaries:
        if b.direction == "cpu->vpu":
            bytes_in[part.assignment[b.dst]][b.src] = b.bytes
        else:
            bytes_out[part.assignment[b.src]][b.src] = b.bytes
    rows = []
    for s in part.subgraphs:
        ops = [g.by_name[n] for n in s.nodes if is_op(g.by_name[n])]
        macs = sum(op_macs(g, n) for n in ops)
        moved_in, moved_out = sum(bytes_in[s.id].values()), sum(bytes_out[s.id].values())
        pays = moved_in + moved_out <= g.profile.break_even_bytes_per_mac * macs
        rows.append(SubgraphEconomics(s.id, len(ops), macs, moved_in, moved_out, pays,
                                      ops[0].name if ops else (s.nodes[0] if s.nodes else "")))
    return Economics(g.profile.break_even_bytes_per_mac, tuple(rows))

"""Multiply-accumulates of one op, from its shapes; and the run's headline numbers (`summary`).

MACs (0 for ops without a MAC array's work: relu, add, pooling, layout):
- convolution: output elements × (input channels / groups) × kernel size (prod(weight.shape[1:]));
- transposed convolution: input elements × prod(weight.shape[1:]);
- linear: output elements × in_features; addmm / mm / matmul / bmm / baddbmm (constant weight or
  two activations alike): output elements × K, the reduced dimension;
- scaled_dot_product_attention: Q·Kᵀ and the weighted sum of V, L·S·(E + Ev) per batch and head.
A matmul of two activations counts as the model's MACs wherever it runs (on the CPU by default).
"""
from __future__ import annotations

import math

from torch.fx import Node

from vpu_core.analysis.qgraph import QGraph, is_op
from vpu_core.analysis.results import PartitionReport, Summary
from vpu_core.fx_utils import op_name
from vpu_core.hardware.ops import ATTENTION_OPS as _ATTENTION
from vpu_core.hardware.ops import CONV_OPS as _CONV
from vpu_core.hardware.ops import CONV_TRANSPOSE_OPS as _CONV_T
from vpu_core.hardware.ops import MATMUL_OPS as _MATMUL
from vpu_core.hardware.ops import op_matches


def op_macs(g: QGraph, node: Node) -> int:
    """Multiply-accumulates of one op from its shapes (0 for ops without a MAC array's work)."""
    name = op_name(node)
    out = g.shape(node)
    if out is None:
        return 0
    if op_matches(name, _CONV) and len(node.args) > 1:
        if name.startswith("convolution") and len(node.args) > 6 and node.args[6]:
            return _transposed(g, node)
        weight = g.shape(node.args[1])
        return math.prod(out) * math.prod(weight[1:]) if weight else 0
    if op_matches(name, _CONV_T) and len(node.args) > 1:
        return _transposed(g, node)
    if op_matches(name, ("linear",)) and len(node.args) > 1:
        weight = g.shape(node.args[1])
        return math.prod(out) * weight[-1] if weight else 0
    if op_matches(name, _MATMUL):
        first = node.args[1] if op_matches(name, ("addmm", "baddbmm")) else node.args[0]
        a = g.shape(first)
        return math.prod(out) * a[-1] if a else 0
    if op_matches(name, _ATTENTION) and len(node.args) > 2:
        q, k, v = (g.shape(a) for a in node.args[:3])
        if not (q and k and v):
            return 0
        return math.prod(q[:-1]) * k[-2] * (q[-1] + v[-1])
    return 0


def _transposed(g: QGraph, node: Node) -> int:
    x, weight = g.shape(node.args[0]), g.shape(node.args[1])
    return math.prod(x) * math.prod(weight[1:]) if x and weight else 0


def summary(g: QGraph, part: PartitionReport) -> Summary:
    """MAC share on the VPU, weights quantized, CPU ops by cause (JSON `summary`)."""
    on_vpu = part.assignment
    total = vpu = weights = quantized = weighted_vpu = 0
    for node in g.nodes:
        if not is_op(node):
            continue
        macs = op_macs(g, node)
        placed = isinstance(on_vpu.get(node.name), int)
        total += macs
        vpu += macs if placed else 0
        kernel = g.kernel(node)
        if kernel.weight_of(node.args) is not None:
            weights += 1
            quantized += g.weight_dq(node) is not None
            weighted_vpu += placed
    return Summary(total, vpu, weights, quantized, weighted_vpu, part.cpu_ops_by_cause())

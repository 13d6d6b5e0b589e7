"""Multiply-accumulates of one op, from its shapes; and the run's headline numbers (`summary`).

MACs (0 for ops without a MAC array's work: relu, add, pooling, layout):
- convolution: output elements × (input channels / groups) × kernel size (prod(weight.shape[1:]));
- transposed convolution: input elements × prod(weight.shape[1:]);
- linear: output elements × in_features; addmm / mm / matmul / bmm / baddbmm / mv / addmv /
  dot / vdot (constant weight or two activations alike): output elements × K, the reduced
  dimension; addbmm (a sum of B matrix products): B·N·K·M, i.e. batch1's elements × M;
- bilinear (y_o = x1ᵀ·W_o·x2): output elements × in2 × (in1 + 1);
- einsum: contracted pairwise from the left, each step the product of the sizes of every index
  its two operands carry (output elements × contracted sizes); one operand (a sum, a trace) is 0;
- scaled_dot_product_attention: Q·Kᵀ and the weighted sum of V, L·S·(E + Ev) per batch and head;
- gru / lstm / rnn_tanh / rnn_relu (every layer and direction): each 2-D weight matrix of the
  op's parameter list (w_ih [G·H, I], w_hh [G·H, H], an LSTM's projection w_hr [P, H]; G = 3 gates
  for a GRU, 4 for an LSTM, 1 for an RNN) is applied once per time step and batch element:
  T·B × Σ rows·cols. T·B is the input's element count over its feature size (batch_first or not,
  batched or not; the packed `.data` form: its rows). The gates' elementwise products are not
  counted, as no activation function is.
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
from vpu_core.hardware.ops import EINSUM_OPS as _EINSUM
from vpu_core.hardware.ops import MATMUL_OPS as _MATMUL
from vpu_core.hardware.ops import RECURRENT_OPS as _RECURRENT
from vpu_core.hardware.ops import op_matches


def op_macs(g: QGraph, node: Node) -> int:
    """Multiply-accumulates of one op from its shapes (0 for ops without a MAC array's work)."""
    name = op_name(node)
    if op_matches(name, _RECURRENT):        # a tuple (output, hidden states): no shape of its own
        return _recurrent(g, node)
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
    if op_matches(name, ("addbmm",)) and len(node.args) > 2:
        b1, b2 = g.shape(node.args[1]), g.shape(node.args[2])
        return math.prod(b1) * b2[-1] if b1 and b2 else 0
    if op_matches(name, _MATMUL):
        first = node.args[1] if op_matches(name, ("addmm", "baddbmm", "addmv")) else node.args[0]
        a = g.shape(first)
        return math.prod(out) * a[-1] if a else 0
    if op_matches(name, ("bilinear",)) and len(node.args) > 2:
        weight = g.shape(node.args[2])
        return math.prod(out) * weight[2] * (weight[1] + 1) if weight and len(weight) == 3 else 0
    if op_matches(name, _EINSUM) and len(node.args) > 1:
        return _einsum(g, node)
    if op_matches(name, _ATTENTION) and len(node.args) > 2:
        q, k, v = (g.shape(a) for a in node.args[:3])
        if not (q and k and v):
            return 0
        return math.prod(q[:-1]) * k[-2] * (q[-1] + v[-1])
    return 0


def _recurrent(g: QGraph, node: Node) -> int:
    """T·B × Σ rows·cols of the 2-D weights in the parameter list (see the module docstring)."""
    packed = op_name(node).endswith(".data")        # gru.data(data, batch_sizes, hx, params, …)
    params = node.args[3] if packed else node.args[2] if len(node.args) > 2 else None
    x = g.shape(node.args[0]) if node.args else None
    if not x or not isinstance(params, (list, tuple)):
        return 0
    steps = x[0] if packed else math.prod(x[:-1])   # T·B, whichever order, batched or not
    shapes = [g.shape(p) for p in params if isinstance(p, Node)]
    return steps * sum(s[0] * s[1] for s in shapes if s and len(s) == 2)


def _einsum(g: QGraph, node: Node) -> int:
    """Pairwise from the left: each step multiplies over every index its two operands carry."""
    equation, operands = node.args[0], node.args[1]
    if not isinstance(equation, str) or not isinstance(operands, (list, tuple)) or len(operands) < 2 \
            or "..." in equation or "->" not in equation:
        return 0
    inputs, output = equation.replace(" ", "").split("->")
    terms = inputs.split(",")
    sizes: dict[str, int] = {}
    for term, operand in zip(terms, operands):
        shape = g.shape(operand) if isinstance(operand, Node) else None
        if not shape or len(shape) != len(term):
            return 0
        sizes.update(zip(term, (int(d) for d in shape)))
    total, left = 0, terms[0]
    for i, right in enumerate(terms[1:], start=1):
        total += math.prod(sizes[c] for c in set(left) | set(right))
        later = set(output).union(*terms[i + 1:])
        left = "".join(c for c in dict.fromkeys(left + right) if c in later)
    return total


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

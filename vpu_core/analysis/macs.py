"""Multiply-accumulates of one op, from its shapes; and the run's headline numbers (`summary`).

Each kernel spec declares its MAC count (vpu_core.hardware.kernels: conv2d.py, linear.py,
matmul.py, attention.py, recurrent.py, einsum.py, convolution.py); an op counts by the spec that
runs it under its own name, else by the kernel it is an alias of (conv1d as conv2d), and 0 when
neither has a multiply-accumulate array's work (relu, add, pooling, layout). A matmul of two
activations counts as the model's MACs wherever it runs (on the CPU by default).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from torch.fx import GraphModule, Node

from vpu_core.analysis.qgraph import QGraph, is_op
from vpu_core.analysis.results import PartitionReport, Summary
from vpu_core.fx_utils import op_name
from vpu_core.hardware.kernels import alias_of, spec_of
from vpu_core.hardware.nodes import NodeView

if TYPE_CHECKING:
    from vpu_core.hardware.profile import HardwareProfile


def op_macs(g: QGraph, node: Node) -> int:
    """Multiply-accumulates of one op from its shapes (0 for ops without a MAC array's work)."""
    name = op_name(node)
    spec = spec_of(name)
    if spec is None:
        alias = alias_of(name)
        spec = alias[0] if alias is not None else None
    if spec is None or spec.macs is None:
        return 0
    return spec.macs(NodeView(node, g.kernel(node), g.shape))


def node_macs(converted: GraphModule, profile: HardwareProfile) -> dict[str, int]:
    """Every op's multiply-accumulates in a converted graph (what a target's MAC share counts)."""
    g = QGraph(converted, profile)
    return {n.name: op_macs(g, n) for n in g.nodes if is_op(n)}


def summary(g: QGraph, part: PartitionReport) -> Summary:
    """MAC share on the VPU, weights quantized, CPU ops by cause (JSON `summary`)."""
    on_vpu = part.assignment
    total = vpu = weights = quantized = weighted_vpu = 0
    per_node: dict[str, int] = {}
    for node in g.nodes:
        if not is_op(node):
            continue
        macs = op_macs(g, node)
        if macs:
            per_node[node.name] = macs
        placed = isinstance(on_vpu.get(node.name), int)
        total += macs
        vpu += macs if placed else 0
        kernel = g.kernel(node)
        if kernel.weight_of(node.args) is not None:
            weights += 1
            quantized += g.weight_dq(node) is not None
            weighted_vpu += placed
    return Summary(total, vpu, weights, quantized, weighted_vpu, part.cpu_ops_by_cause(), per_node)

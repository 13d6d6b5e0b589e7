"""Recognising quantize / dequantize nodes in a converted graph."""
from __future__ import annotations

import torch
from torch.fx import Graph, Node

from vpu_core import quiet

quiet.import_torchao()  # registers torch.ops.quantized_decomposed

_qd = torch.ops.quantized_decomposed
QUANTIZE_OPS = {
    _qd.quantize_per_tensor.default, _qd.quantize_per_tensor.tensor, _qd.quantize_per_tensor.tensor2,
    _qd.quantize_per_channel.default,
}
DEQUANTIZE_OPS = {
    _qd.dequantize_per_tensor.default, _qd.dequantize_per_tensor.tensor, _qd.dequantize_per_tensor.tensor2,
    _qd.dequantize_per_channel.default,
}
PER_CHANNEL_OPS = {_qd.quantize_per_channel.default, _qd.dequantize_per_channel.default}


def is_quantize(node: Node) -> bool:
    return node.op == "call_function" and node.target in QUANTIZE_OPS


def is_dequantize(node: Node) -> bool:
    return node.op == "call_function" and node.target in DEQUANTIZE_OPS


def is_qdq(node: Node) -> bool:
    return is_quantize(node) or is_dequantize(node)


def is_qdq_graph(graph: Graph) -> bool:
    return any(is_qdq(n) for n in graph.nodes)

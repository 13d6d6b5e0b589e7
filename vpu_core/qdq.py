"""Recognising quantize / dequantize nodes in a converted graph.

By the op's name (namespace `quantized_decomposed`), not by comparing with torchao's op objects:
reading a float graph (the predicted partition shown while PT2E quantizes) must not import torchao,
which costs seconds (it pulls in torch._dynamo) and is only needed once prepare runs. A graph that
holds these ops was built by torchao or loaded after `quiet.import_torchao()`.
"""
from __future__ import annotations

from torch.fx import Graph, Node

_NAMESPACE = "quantized_decomposed"
_QUANTIZE = {"quantize_per_tensor": ("default", "tensor", "tensor2"), "quantize_per_channel": ("default",)}
_DEQUANTIZE = {"dequantize_per_tensor": ("default", "tensor", "tensor2"), "dequantize_per_channel": ("default",)}
_PER_CHANNEL = ("quantize_per_channel", "dequantize_per_channel")

_kinds: dict[object, str] = {}    # op target -> "q" | "dq" | "" (and "c" suffix: per channel)


def _kind(node: Node) -> str:
    if node.op != "call_function":
        return ""
    target = node.target
    try:
        return _kinds[target]
    except (KeyError, TypeError):
        pass
    kind = ""
    if getattr(target, "namespace", None) == _NAMESPACE:
        name, overload = getattr(target, "_opname", ""), getattr(target, "_overloadname", "")
        if overload in _QUANTIZE.get(name, ()):
            kind = "q"
        elif overload in _DEQUANTIZE.get(name, ()):
            kind = "dq"
        if kind and name in _PER_CHANNEL:
            kind += "c"
    try:
        _kinds[target] = kind
    except TypeError:              # an unhashable target: never a Q/DQ op
        pass
    return kind


def is_quantize(node: Node) -> bool:
    return _kind(node).startswith("q")


def is_dequantize(node: Node) -> bool:
    return _kind(node).startswith("dq")


def is_qdq(node: Node) -> bool:
    return _kind(node) != ""


def is_per_channel(node: Node) -> bool:
    """quantize_per_channel / dequantize_per_channel."""
    return _kind(node).endswith("c")


def is_qdq_graph(graph: Graph) -> bool:
    return any(is_qdq(n) for n in graph.nodes)

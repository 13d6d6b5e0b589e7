"""The op vocabulary (vpu_core.hardware.ops) applied to fx nodes: which kernel a node runs as.

`kernel_of(node)` works on any fx graph with shape metadata: the exported float graph (weights
are get_attr nodes) and the converted Q/DQ graph (weights are dequantizes of folded constants).
"""
from __future__ import annotations

from typing import Callable

from torch.fx import GraphModule, Node

from vpu_core.fx_utils import bound_args, op_name
from vpu_core.hardware.ops import ALIASES, LAYOUT_OPS, WEIGHTED_OPS, Kernel, listed, op_matches
from vpu_core.qdq import is_qdq

RankFn = Callable[[Node], "int | None"]


def is_constant(node: object) -> bool:
    """A value fixed when the program is built: a parameter / constant (get_attr), or quantize,
    dequantize and layout ops (a transpose, a view) of constants only."""
    if not isinstance(node, Node):
        return False
    if node.op == "get_attr":
        return True
    if node.op != "call_function" or not (is_qdq(node) or op_matches(op_name(node), LAYOUT_OPS)):
        return False
    inputs = node.all_input_nodes
    return bool(inputs) and all(is_constant(i) for i in inputs)


def kernel_of(node: Node, rank_of: RankFn | None = None) -> Kernel:
    """The kernel `node` runs as. `rank_of(value)` gives a value's number of dimensions (None
    when unknown), to tell a 2-D weight; by default it is read from the graph's metadata."""
    name = op_name(node)
    packet, _, overload = name.partition(".")
    if node.op != "call_function":
        return Kernel(name, name)
    if packet in WEIGHTED_OPS:
        bias = 2 if len(node.args) > 2 or "bias" in node.kwargs else None
        if packet in ALIASES:                                   # conv1d: a 1×k conv2d
            kernel, alias = ALIASES[packet]
            return Kernel(name, f"{kernel}.{overload}", alias, 0, 1, bias)
        return Kernel(name, name, "", 0, 1, bias)
    if packet in ALIASES:
        return _matmul_kernel(node, name, packet, rank_of or rank)
    return Kernel(name, name)


def _matmul_kernel(node: Node, name: str, packet: str, rank_of: RankFn) -> Kernel:
    a = bound_args(node)
    if packet == "addmm":
        if a.get("beta", 1) != 1 or a.get("alpha", 1) != 1:
            return Kernel(name, name)          # beta·bias + alpha·x·W: not what linear computes
        x, w, bias = 1, 2, 0
    else:
        x, w, bias = 0, 1, None
    weight = node.args[w] if len(node.args) > w else None
    if not (is_constant(weight) and rank_of(weight) == 2):
        return Kernel(name, name)              # two activations: a matmul, not a linear
    kernel, alias = ALIASES[packet]
    return Kernel(name, f"{kernel}.default", alias, x, w, bias, weight_axis=1)


def listed_nodes(gm: GraphModule, patterns: tuple[str, ...]) -> list[Node]:
    """The call_function nodes of `gm` whose op, or the kernel it runs as, is in `patterns`."""
    return [n for n in gm.graph.nodes if n.op == "call_function" and listed(kernel_of(n), patterns)]


def weighted_nodes(gm: GraphModule, patterns: tuple[str, ...]) -> list[Node]:
    """Listed conv / linear nodes (and aliases) whose weight is a node (what gets quantized)."""
    out = []
    for n in listed_nodes(gm, patterns):
        if isinstance(kernel_of(n).weight_of(n.args), Node):
            out.append(n)
    return out


def rank(node: Node) -> int | None:
    """Number of dimensions of a node's value, from its metadata (Q/DQ nodes of a converted
    graph carry none: they keep their input's), or of the tensor behind a get_attr."""
    val = node.meta.get("val")
    if hasattr(val, "dim"):
        return int(val.dim())
    if node.op == "get_attr":
        obj = node.graph.owning_module
        for part in str(node.target).split("."):
            obj = getattr(obj, part, None)
        return int(obj.dim()) if hasattr(obj, "dim") else None
    if is_qdq(node) and isinstance(node.args[0], Node):
        return rank(node.args[0])
    return None

"""The kernel specs (vpu_core.hardware.kernels) applied to fx nodes: which kernel a node runs as,
with its operands' positions in that call, and `NodeView`, the shapes-and-arguments view of a
call that the specs' quantities and MAC functions read.

`kernel_of(node)` works on any fx graph with shape metadata: the exported float graph (weights
are get_attr nodes) and the converted Q/DQ graph (weights are dequantizes of folded constants).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from torch.fx import GraphModule, Node

from vpu_core.fx_utils import bound_args, op_name
from vpu_core.hardware.kernels import alias_of, spec_of
from vpu_core.hardware.kernels.spec import Alias, Shape, WeightArgs, packet_of
from vpu_core.hardware.ops import LAYOUT_OPS, Kernel, listed, op_matches
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
    if node.op != "call_function":
        return Kernel(name, name)
    if packet_of(name) != name.partition(".")[0]:
        return Kernel(name, name)              # an in-place call is never read as another kernel
    found = alias_of(name)
    if found is not None and _aliased(node, found[1], rank_of or rank):
        runs_as, alias = found
        overload = alias.overload or name.partition(".")[2]
        return _bound(name, f"{runs_as.name}.{overload}", alias.text, alias.args, node)
    own = spec_of(name)
    if own is not None and own.args is not None:
        return _bound(name, name, "", own.args, node)
    return Kernel(name, name)


def _aliased(node: Node, alias: Alias, rank_of: RankFn) -> bool:
    """The alias' conditions hold: its scalars are 1 (beta·bias + alpha·x·W is no linear) and,
    where it needs one, its weight is a constant 2-D tensor (two activations: a matmul)."""
    if alias.unit_scalars:
        a = bound_args(node)
        if any(a.get(s, 1) != 1 for s in alias.unit_scalars):
            return False
    if not alias.constant_weight:
        return True
    w = alias.args.weight
    weight = node.args[w] if len(node.args) > w else None
    return is_constant(weight) and rank_of(weight) == 2


def _bound(op: str, name: str, alias: str, args: WeightArgs, node: Node) -> Kernel:
    bias = args.bias
    if bias is not None and args.bias_optional and not (len(node.args) > bias or "bias" in node.kwargs):
        bias = None
    return Kernel(op, name, alias, args.input, args.weight, bias, args.weight_axis)


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


@dataclass(frozen=True)
class NodeView:
    """One fx call as the kernel specs read it (vpu_core.hardware.kernels.spec.OpView): `shape_of`
    gives a value's shape (the analysis reads it from the graph's metadata)."""

    node: Node
    kernel: Kernel
    shape_of: Callable[[object], Shape | None]

    @property
    def op(self) -> str:
        return op_name(self.node)

    @property
    def args(self) -> tuple:
        return self.node.args

    @property
    def out(self) -> Shape | None:
        return self.shape_of(self.node)

    def shape(self, value: object) -> Shape | None:
        return self.shape_of(value) if isinstance(value, Node) else None

    def bound(self) -> Mapping[str, Any]:
        return bound_args(self.node)

"""A read-only view of a converted Q/DQ graph: qparams of every Q/DQ node, and which tensors they are.

Everything the rules, the requantization shifts and the statistics need is read from the graph
itself (node args and the GraphModule's attribute tensors), never from the quantizer, so the same
code reads a VPU graph, an XNNPACK graph or a Q/DQ program loaded from a .pt2 file.

Converted graphs fold weights into constants: a weight is `get_attr _frozen_param0` →
`dequantize_per_channel(_, get_attr _scale_0, get_attr _zero_point_0, …)`; the attribute tensors
are read from the GraphModule.
"""
from __future__ import annotations

from typing import Any

from dataclasses import dataclass
from functools import cached_property

import torch
from torch.fx import GraphModule, Node

from vpu_core.fx_utils import dtype_name, op_name
from vpu_core.profile import HardwareProfile, op_matches
from vpu_core.qdq import PER_CHANNEL_OPS, is_dequantize, is_qdq, is_quantize

# ATen ops whose args are (input, weight, bias, …): ATen semantics, not a hardware claim.
WEIGHTED_OPS = ("conv1d", "conv2d", "conv3d", "linear")


@dataclass(frozen=True)
class QParams:
    """Quantization parameters of one quantize / dequantize node."""

    node: Node
    per_channel: bool
    scales: tuple[float, ...]        # () when the scale is computed at run time (unreadable)
    zero_points: tuple[int, ...]
    axis: int | None
    quant_min: int
    quant_max: int
    dtype: torch.dtype

    @property
    def dtype_text(self) -> str:
        return dtype_name(self.dtype)

    def same_as(self, other: QParams) -> bool:
        return (self.scales == other.scales and self.zero_points == other.zero_points
                and self.dtype == other.dtype)


@dataclass(frozen=True)
class QTensor:
    """One quantized tensor: an activation (its quantize node) or a constant (its dequantize node)."""

    qp: QParams
    kind: str          # "activation" | "weight" | "bias"
    related: str       # producer op (activations) or consuming op (weights / bias)


def is_guard(node: Node) -> bool:
    """torch.export's `_guards_fn` call_module: a shape guard, not part of the model."""
    return node.op == "call_module" and str(node.target).startswith("_guards")


def is_getitem(node: Node) -> bool:
    return node.op == "call_function" and getattr(node.target, "__name__", "") == "getitem"


def is_op(node: Node) -> bool:
    """A computing node: call_function that is neither Q/DQ nor tuple indexing."""
    return node.op == "call_function" and not is_qdq(node) and not is_getitem(node)


def _bound_args(node: Node) -> dict:
    """Argument name -> value for an OpOverload call (positional and keyword)."""
    out = {}
    for i, arg in enumerate(node.target._schema.arguments):
        if i < len(node.args):
            out[arg.name] = node.args[i]
        elif arg.name in node.kwargs:
            out[arg.name] = node.kwargs[arg.name]
        elif arg.has_default_value():
            out[arg.name] = arg.default_value
    return out


class QGraph:
    """Parsed Q/DQ graph plus the hardware profile it is checked against."""

    def __init__(self, gm: GraphModule, profile: HardwareProfile) -> None:
        self.gm, self.profile = gm, profile
        self.nodes: list[Node] = list(gm.graph.nodes)
        self.by_name: dict[str, Node] = {n.name: n for n in self.nodes}
        self.qp: dict[Node, QParams] = {n: self._parse(n) for n in self.nodes if is_qdq(n)}

    # -- reading values ----------------------------------------------------------------------------
    def attr_value(self, node: Node) -> Any:
        """The tensor behind a get_attr node (None for anything else)."""
        if node.op != "get_attr":
            return None
        obj = self.gm
        for part in str(node.target).split("."):
            obj = getattr(obj, part, None)
        return obj

    def _value(self, arg):
        if isinstance(arg, Node):
            arg = self.attr_value(arg)
        if isinstance(arg, torch.Tensor):
            return arg.detach().flatten().tolist()
        return None if arg is None else [arg]

    def _parse(self, node: Node) -> QParams:
        a = _bound_args(node)
        per_channel = node.target in PER_CHANNEL_OPS
        scale_key = "scales" if per_channel else "scale"
        scales = self._value(a.get(scale_key)) or []
        zps = self._value(a.get("zero_points" if per_channel else "zero_point"))
        zps = [int(z) for z in zps] if zps is not None else [0] * len(scales)
        qmin, qmax = (self._value(a.get(k)) or [0] for k in ("quant_min", "quant_max"))
        return QParams(node, per_channel, tuple(float(s) for s in scales), tuple(zps),
                       a.get("axis") if per_channel else None, int(qmin[0]), int(qmax[0]), a["dtype"])

    # -- structure -----------------------------------------------------------------------------------
    @cached_property
    def constants(self) -> set[Node]:
        """get_attr nodes and the Q/DQ chains on them (folded weights and biases)."""
        out = set()
        for n in self.nodes:
            if n.op == "get_attr":
                out.add(n)
            elif is_qdq(n) and isinstance(n.args[0], Node) and n.args[0] in out:
                out.add(n)
        return out

    def dq_input(self, op: Node, index: int) -> QParams | None:
        """QParams of the dequantize feeding positional input `index` of `op` (None if not a DQ)."""
        arg = op.args[index] if index < len(op.args) else None
        return self.qp.get(arg) if isinstance(arg, Node) and is_dequantize(arg) else None

    def bias_arg(self, op: Node) -> object:
        if len(op.args) > 2:
            return op.args[2]
        return op.kwargs.get("bias")

    def fused_activation(self, op: Node) -> Node | None:
        """The relu / hardtanh directly consuming `op` alone (its fused activation, if any).

        In-place variants (relu_) count: only the output scale after the activation matters here.
        """
        if len(op.users) != 1:
            return None
        user = next(iter(op.users))
        if user.op != "call_function":
            return None
        packet, _, overload = op_name(user).partition(".")
        name = f"{packet.rstrip('_')}.{overload}"
        return user if op_matches(name, self.profile.fused_activations) else None

    def output_q(self, op: Node) -> QParams | None:
        """QParams of the quantize of `op`'s output, looking through a directly fused activation."""
        for node in (op, self.fused_activation(op)):
            if node is None:
                continue
            for user in node.users:
                if is_quantize(user):
                    return self.qp[user]
        return None

    @cached_property
    def weighted_ops(self) -> list[Node]:
        """conv / linear nodes whose weight is quantized (reaches them through a dequantize)."""
        return [n for n in self.nodes if n.op == "call_function" and op_matches(op_name(n), WEIGHTED_OPS)
                and self.dq_input(n, 1) is not None]

    @cached_property
    def tensors(self) -> list[QTensor]:
        """Every quantized tensor once: activations by their quantize node (or a DQ with no
        quantize in front, e.g. an int8 graph input), constants by their dequantize node."""
        out = []
        for node, qp in self.qp.items():
            src = node.args[0] if isinstance(node.args[0], Node) else None
            if node in self.constants:
                if is_dequantize(node):
                    out.append(self._constant_tensor(qp))
            elif is_quantize(node):
                out.append(QTensor(qp, "activation", src.name if src is not None else ""))
            elif src is None or not is_quantize(src):
                out.append(QTensor(qp, "activation", src.name if src is not None else ""))
        return out

    def _constant_tensor(self, qp: QParams) -> QTensor:
        for user in qp.node.users:
            if user.op == "call_function" and op_matches(op_name(user), WEIGHTED_OPS):
                if len(user.args) > 1 and user.args[1] is qp.node:
                    return QTensor(qp, "weight", user.name)
                if self.bias_arg(user) is qp.node:
                    return QTensor(qp, "bias", user.name)
        users = [u.name for u in qp.node.users]
        return QTensor(qp, "weight", users[0] if users else "")

    # -- shapes and dtypes ----------------------------------------------------------------------------
    @cached_property
    def tensor_meta(self) -> dict[str, tuple[tuple, torch.dtype | None]]:
        """node name -> (shape, dtype) of its output. Q/DQ nodes carry no meta in converted
        graphs: their shape is their input's, their dtype the quantized one (Q) or float (DQ)."""
        out: dict[str, tuple[tuple, torch.dtype | None]] = {}
        for n in self.nodes:
            val = n.meta.get("val")
            if isinstance(val, torch.Tensor):
                out[n.name] = (tuple(val.shape), val.dtype)
            elif n.op == "get_attr" and isinstance(self.attr_value(n), torch.Tensor):
                t = self.attr_value(n)
                out[n.name] = (tuple(t.shape), t.dtype)
            elif is_qdq(n) and isinstance(n.args[0], Node) and n.args[0].name in out:
                shape = out[n.args[0].name][0]
                dtype = self.qp[n].dtype if is_quantize(n) else n.kwargs.get("out_dtype") or torch.float32
                out[n.name] = (shape, dtype)
        return out

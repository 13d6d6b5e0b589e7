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
from typing import TYPE_CHECKING

import torch
from torch.fx import GraphModule, Node

from vpu_core.analysis.results import TensorKind
from vpu_core.fx_utils import bound_args, concrete_dim, dtype_name, op_name
from vpu_core.hardware.nodes import kernel_of
from vpu_core.hardware.ops import Kernel, listed, op_matches
from vpu_core.qdq import is_dequantize, is_per_channel, is_qdq, is_quantize

if TYPE_CHECKING:
    from vpu_core.hardware.profile import HardwareProfile


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
    kind: TensorKind
    related: str       # producer op (activations) or consuming op (weights / bias)


def is_guard(node: Node) -> bool:
    """torch.export's `_guards_fn` call_module: a shape guard, not part of the model."""
    return node.op == "call_module" and str(node.target).startswith("_guards")


def is_getitem(node: Node) -> bool:
    return node.op == "call_function" and getattr(node.target, "__name__", "") == "getitem"


def is_op(node: Node) -> bool:
    """A computing node: call_function that is neither Q/DQ nor tuple indexing."""
    return node.op == "call_function" and not is_qdq(node) and not is_getitem(node)


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
        a = bound_args(node)
        per_channel = is_per_channel(node)
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

    # -- kernels (vpu_core.hardware: aliases such as addmm with a constant weight = linear) --------
    @cached_property
    def kernels(self) -> dict[Node, Kernel]:
        return {n: kernel_of(n, self.rank) for n in self.nodes if n.op == "call_function"}

    def kernel(self, node: Node) -> Kernel:
        """The VPU kernel `node` runs as (its own op unless it is an alias)."""
        return self.kernels.get(node) or kernel_of(node, self.rank)

    def listed(self, node: Node, patterns: tuple[str, ...]) -> bool:
        """A profile list names `node`'s op or the kernel it runs as."""
        return node.op == "call_function" and listed(self.kernel(node), patterns)

    def rank(self, node: Node) -> int | None:
        meta = self.tensor_meta.get(node.name) if isinstance(node, Node) else None
        return len(meta[0]) if meta else None

    def shape(self, node: object) -> tuple[int, ...] | None:
        """The shape of a node's output (a symbolic dimension at its example value), or None."""
        meta = self.tensor_meta.get(node.name) if isinstance(node, Node) else None
        if meta is None:
            return None
        return tuple(concrete_dim(d) for d in meta[0])

    def input_dq(self, op: Node) -> QParams | None:
        """QParams of the dequantize feeding a weighted op's activation input."""
        k = self.kernel(op)
        return self.dq_input(op, k.input) if k.input is not None else None

    def weight_dq(self, op: Node) -> QParams | None:
        """QParams of the dequantize feeding a weighted op's weight."""
        k = self.kernel(op)
        return self.dq_input(op, k.weight) if k.weight is not None else None

    def weight_axis(self, op: Node) -> int:
        """The output-channel axis of a weighted op's weight (1 for the [in, out] weight of an
        addmm / mm / matmul alias, 0 for conv and linear)."""
        return self.kernel(op).weight_axis

    def bias_arg(self, op: Node) -> object:
        k = self.kernel(op)
        if not k.weighted or k.bias is None:
            return None
        if len(op.args) > k.bias:
            return op.args[k.bias]
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
        return user if op_matches(op_name(user), self.profile.fused_activations) else None

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
        """conv / linear nodes (and their aliases) whose weight is quantized (reaches them
        through a dequantize)."""
        return [n for n in self.nodes if n.op == "call_function" and self.kernel(n).weighted
                and self.weight_dq(n) is not None]

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
            k = self.kernel(user) if user.op == "call_function" else None
            if k is not None and k.weighted:
                if k.weight_of(user.args) is qp.node:
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

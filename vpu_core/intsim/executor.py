"""Runs a converted Q/DQ graph node by node: VPU nodes in integers, CPU nodes as the graph says.

Inside a VPU subgraph the values are IntValues end to end: a dequantize feeding the VPU is a
no-op (the VPU keeps the int8 tensor and knows its scale), an op computes in integers
(vpu_core.intsim.weighted / kernels) and a quantize after a VPU op is the requantization (shift,
round, saturate, clamp). A quantize of a float value coming from the CPU runs exactly as the graph
says (that is the CPU → VPU conversion), and a CPU node reading a VPU value gets what the graph
would hand it: the int8 tensor of a quantize, the float value of anything else.

Where a VPU op has no integer kernel (an op a user added to the profile's op list, an add of a
float constant), it runs in float on the dequantized inputs and is listed in `float_ops`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import torch
from torch.fx import Interpreter, Node
from torch.fx.node import map_arg

from vpu_core.analysis.qgraph import QGraph, is_getitem, is_op
from vpu_core.analysis.results import Placement
from vpu_core.fx_utils import op_name
from vpu_core.hardware.kernels import spec_of
from vpu_core.hardware.kernels.spec import IntKernel
from vpu_core.intsim import kernels, weighted
from vpu_core.intsim.arith import acc_range, saturate
from vpu_core.intsim.values import IntValue, NotInteger, log2_exact, map_values, quantized_value
from vpu_core.profile import HardwareProfile
from vpu_core.qdq import is_dequantize, is_quantize

# (executor, node, arguments with IntValues for tensors, keyword arguments) -> the op's value
KernelFn = Callable[["IntExecutor", Node, tuple, dict], Any]
# The integer arithmetic each kernel spec names (vpu_core.hardware.kernels: `int_kernel`).
IMPLEMENTATIONS: dict[IntKernel, KernelFn] = {
    "conv": weighted.conv, "linear": weighted.linear, "relu": kernels.relu, "hardtanh": kernels.hardtanh,
    "add": kernels.add, "cat": kernels.cat, "max_pool": kernels.max_pool, "avg_pool": kernels.avg_pool,
    "adaptive_avg_pool": kernels.adaptive_avg_pool, "layout": kernels.layout,
}


@dataclass(frozen=True)
class Settings:
    """The integer behaviour of the hardware, from the profile's [requant] section."""

    rounding: str = "round_half_up"
    accumulator_bits: int = 32
    avg_pool_divisor: str = "reciprocal"
    reciprocal_bits: int = 16

    @classmethod
    def of(cls, profile: HardwareProfile) -> Settings:
        return cls(profile.rounding, profile.accumulator_bits, profile.avg_pool_divisor,
                   profile.reciprocal_bits)


@dataclass(frozen=True)
class ConstInt:
    """A folded weight as the VPU stores it: int values, per-output-channel exponent and zero point."""

    q: torch.Tensor      # int64, output channels first
    exp: torch.Tensor    # int64 (C,)
    zp: torch.Tensor     # int64 (C,)
    max: int             # max |q|


@dataclass
class Record:
    saturated: int = 0
    clipped: int = 0
    window: int = 0
    flags: set = field(default_factory=set)


def kernel_of(node: Node, g: QGraph) -> KernelFn | None:
    """The integer kernel of `node`: the one its kernel spec names — its own op's, or for an alias
    (conv1d; addmm / mm / matmul with a constant weight) the kernel it runs as."""
    spec = g.kernel(node).spec if g.kernel(node).alias else spec_of(op_name(node))
    return IMPLEMENTATIONS[spec.int_kernel] if spec is not None and spec.int_kernel else None


def graph_value(node: Node, value: object) -> object:
    """What the Q/DQ graph itself holds for `node`: int storage after a quantize, else float."""
    if is_quantize(node):
        return map_values(value, lambda v: v.data.to(v.dtype))
    return map_values(value, IntValue.to_float)


class IntExecutor:
    """One integer pass. `read(node)` supplies the value of an input node (the pass's environment)."""

    def __init__(self, g: QGraph, assignment: Mapping[str, Placement], settings: Settings,
                 read: Callable[[Node], Any], consts: dict[Node, ConstInt] | None = None) -> None:
        self.g, self.assignment, self.settings, self.read = g, assignment, settings, read
        self.records: dict[str, Record] = {}
        self.float_ops: list[str] = []
        self.interp = Interpreter(g.gm)     # runs placeholders, attributes and CPU nodes
        # the integer weights, int64 (8 bytes a parameter): one dict for every pass over the graph
        # (both passes of a call, every call), not one copy each — ResNet-50 kept 0.4 GB per call
        self._consts: dict[Node, ConstInt] = {} if consts is None else consts

    def on_vpu(self, node: Node) -> bool:
        return self.assignment.get(node.name, "cpu") != "cpu"

    def run(self, node: Node) -> object:
        if node.op != "call_function" or not self.on_vpu(node):
            return self.graph_op(node)
        if is_quantize(node):
            return self._quantize(node)
        if is_dequantize(node):
            return self._dequantize(node)
        if is_getitem(node):
            return self.read(node.args[0])[node.args[1]]
        return self._op(node)

    def graph_op(self, node: Node) -> object:
        """Run `node` exactly as the graph says, on graph values of its inputs."""
        args, kwargs = map_arg((node.args, node.kwargs), lambda n: graph_value(n, self.read(n)))
        return getattr(self.interp, node.op)(node.target, args, kwargs)

    # -- the integer side -------------------------------------------------------------------------
    def _quantize(self, node: Node):
        value = self.read(node.args[0])
        qp = self.g.qp[node]
        if isinstance(value, IntValue):
            return kernels.requantize(self, node, value, qp)
        out = self.graph_op(node)                 # float from the CPU: convert as the graph does
        return quantized_value(out, qp.scales[0], qp.zero_points[0], qp.quant_min, qp.quant_max, qp.dtype)

    def _dequantize(self, node: Node):
        if node in self.g.constants:              # weights and biases: kernels read their ints
            return self.graph_op(node)
        value = self.read(node.args[0])
        if isinstance(value, IntValue):
            return value                           # the VPU keeps the int8 tensor and its scale
        qp = self.g.qp[node]                       # int8 arriving from the host (a graph input)
        return quantized_value(value, qp.scales[0], qp.zero_points[0], qp.quant_min, qp.quant_max, qp.dtype)

    def _op(self, node: Node):
        kernel = kernel_of(node, self.g)
        args, kwargs = map_arg((node.args, node.kwargs), self.read)
        if kernel is not None:
            try:
                return kernel(self, node, args, kwargs)
            except NotInteger:
                pass
        if is_op(node):
            self.float_ops.append(node.name)
        return self.graph_op(node)

    # -- services for the kernels -------------------------------------------------------------------
    def record(self, node: Node, clipped: int = 0, window: int = 0, flag: str | None = None) -> None:
        rec = self.records.setdefault(node.name, Record())
        rec.clipped += clipped
        rec.window = max(rec.window, window)
        if flag:
            rec.flags.add(flag)

    def accumulate(self, node: Node, acc: torch.Tensor) -> torch.Tensor:
        """The accumulator register: sums beyond the profile's width saturate (and are counted)."""
        lo, hi = acc_range(self.settings.accumulator_bits)
        acc, outside = saturate(acc, lo, hi)
        self.records.setdefault(node.name, Record()).saturated += outside
        return acc

    def constant_int(self, dq: Node, axis: int = 0) -> ConstInt:
        """The integer weight behind a dequantize of a folded constant, output channels first
        (`axis`: where they are stored; 1 for the [in, out] weight of an addmm / mm alias)."""
        if dq in self._consts:
            return self._consts[dq]
        if not (isinstance(dq, Node) and is_dequantize(dq) and dq in self.g.constants):
            raise NotInteger("weight is not a quantized constant")
        qp = self.g.qp[dq]
        q = self.g.attr_value(dq.args[0])
        if not isinstance(q, torch.Tensor) or q.is_floating_point():
            raise NotInteger("weight storage is not integer")
        if axis:
            q = q.movedim(axis, 0)
        channels = q.shape[0]
        exps = [log2_exact(s) for s in qp.scales]
        zps = list(qp.zero_points)
        if len(exps) == 1:
            exps, zps = exps * channels, zps * channels
        q = q.to(torch.int64)
        const = ConstInt(q, torch.tensor(exps, dtype=torch.int64), torch.tensor(zps, dtype=torch.int64),
                         int(q.abs().max()) if q.numel() else 0)
        self._consts[dq] = const
        return const

    def bias_int(self, op: Node) -> torch.Tensor | None:
        """The int32 bias of a conv / linear, per output channel (zero point removed)."""
        bias = self.g.bias_arg(op)
        if bias is None:
            return None
        if not (isinstance(bias, Node) and is_dequantize(bias) and bias in self.g.constants):
            raise NotInteger("bias is not an int32 constant")
        q = self.g.attr_value(bias.args[0])
        if not isinstance(q, torch.Tensor) or q.is_floating_point():
            raise NotInteger("bias storage is not integer")
        zps = torch.tensor(self.g.qp[bias].zero_points, dtype=torch.int64)
        return q.to(torch.int64).flatten() - zps

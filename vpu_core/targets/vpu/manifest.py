"""The VPU hand-off manifest: every VPU subgraph as a VPU compiler team would consume it.

Built from the converted Q/DQ graph and its analysis (the partition, the requant sites). Inside a
VPU subgraph values are int8 tensors: a quantize node defines one (its id is the quantize node's
name), its dequantizes only read it. Each op of the subgraph, in graph order, reads tensors and
writes the tensor its output quantize (after a fused relu / relu6) defines. Scales are powers of
two, stored as their exponent k (scale = 2^k); a requantization is then a right shift by
n = k_out − (k_in + k_w[c]) per output channel; an add / cat / pool input whose scale differs from
the output's is aligned by a shift of k_out − k_in. The schema is in docs/targets.md ("Export: the .pte and the VPU hand-off").
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import torch
from torch.fx import Node

from vpu_core.analysis.nodes import plain_value
from vpu_core.analysis.qgraph import QGraph, QParams, is_getitem, is_op
from vpu_core.analysis.requant import pool_window
from vpu_core.analysis.results import Analysis
from vpu_core.fx_utils import bound_args, dtype_name, op_name
from vpu_core.formatting import is_pow2
from vpu_core.qdq import is_dequantize, is_quantize

if TYPE_CHECKING:
    from vpu_core.hardware.kernels.spec import IntKernel
    from vpu_core.pipeline import QuantizedModel

FORMAT, VERSION = "vpu-inspector-handoff", 1
WEIGHTS_FILE = "weights.npz"
# The hand-off kernel of each integer implementation a kernel spec names (KernelSpec.int_kernel,
# vpu_core.hardware.kernels); conv and the poolings are named from their spec and arguments below.
_HANDOFF: dict[IntKernel, str] = {"linear": "fc_s8", "add": "add_s8", "cat": "concat_s8", "relu": "relu_s8",
                                  "hardtanh": "relu6_s8"}
_ACTIVATION_SUFFIX: tuple[IntKernel, ...] = ("conv", "linear", "add")   # kernels that fuse one
_SCHEMA_ARGS = {"stride", "padding", "dilation", "groups", "kernel_size", "ceil_mode", "output_size",
                "count_include_pad", "divisor_override", "dim", "start_dim", "end_dim", "size", "shape",
                "dims", "min_val", "max_val", "alpha"}


def build_manifest(qm: QuantizedModel, a: Analysis) -> tuple[dict, dict[str, np.ndarray]]:
    """(manifest, arrays for the .npz) of a VPU-quantized model and its analysis."""
    g = QGraph(qm.converted, qm.profile)
    builder = _Builder(g, a)
    subgraphs = [builder.subgraph(s.id, [g.by_name[n] for n in s.nodes]) for s in a.partition.subgraphs]
    manifest = {
        "format": FORMAT, "version": VERSION, "model": a.model, "profile": a.partition.profile,
        "weights_file": WEIGHTS_FILE,
        "requant": {"rounding": qm.profile.rounding, "accumulator_bits": qm.profile.accumulator_bits,
                    "avg_pool_divisor": qm.profile.avg_pool_divisor,
                    "reciprocal_bits": qm.profile.reciprocal_bits},
        "inputs": [{"name": i.name, "shape": list(i.shape), "dtype": i.dtype} for i in a.inputs],
        "subgraphs": subgraphs,
        "cpu_nodes": [{"node": c.node, "op": c.op, "reason": c.reason} for c in a.partition.cpu_nodes],
        "transfer_bytes": a.partition.transfer_bytes,
    }
    return manifest, builder.arrays


class _Builder:
    def __init__(self, g: QGraph, a: Analysis) -> None:
        self.g, self.a = g, a
        self.arrays: dict[str, np.ndarray] = {}
        self.requant = {s.node: s for s in a.requant}

    def subgraph(self, sid: int, nodes: list[Node]) -> dict:
        tensors: dict[str, dict] = {}
        ops_nodes = [n for n in nodes if is_op(n) and not is_getitem(n)]
        fused = {self.g.fused_activation(n) for n in ops_nodes} - {None}   # part of their op's kernel
        ops = [self.op(n, tensors) for n in ops_nodes if n not in fused]
        boundaries = [{"src": b.src, "dst": b.dst, "direction": b.direction, "shape": list(b.shape),
                       "dtype": b.dtype, "bytes": b.bytes} for b in self.a.partition.boundaries
                      if self.a.partition.assignment.get(b.src) == sid or self.a.partition.assignment.get(b.dst) == sid]
        produced = {op["output"] for op in ops}
        return {"id": sid, "ops": ops, "tensors": list(tensors.values()),
                "inputs": [t for t in tensors if t not in produced],
                "outputs": [t for t in produced if self._leaves(t, sid)],
                "boundaries": boundaries}

    # -- tensors ---------------------------------------------------------------------------------
    def tensor(self, node: Node, tensors: dict) -> str:
        """The id of the tensor an op reads through `node` (registering it)."""
        if is_dequantize(node) and isinstance(node.args[0], Node) and is_quantize(node.args[0]):
            node = node.args[0]
        if node.name not in tensors:
            tensors[node.name] = self._tensor_entry(node)
        return node.name

    def _tensor_entry(self, node: Node) -> dict:
        shape, dtype = self.g.tensor_meta.get(node.name, ((), None))
        entry = {"id": node.name, "shape": [int(d) for d in shape],
                 "dtype": dtype_name(dtype) if dtype is not None else "float32"}
        qp = self.g.qp.get(node)
        if qp is not None and qp.scales:
            entry.update(_scale_fields(qp))
        entry["bytes"] = int(math.prod(entry["shape"]) * _itemsize(entry["dtype"]))
        return entry

    def _leaves(self, tensor: str, sid: int) -> bool:
        """A tensor leaves the subgraph: a reader on the CPU or another subgraph, or a graph output."""
        readers: list[Node] = []
        for user in self.g.by_name[tensor].users:
            readers += list(user.users) if is_dequantize(user) else [user]
        return any(r.op == "output" or self.a.partition.assignment.get(r.name) != sid for r in readers)

    # -- ops -------------------------------------------------------------------------------------
    def op(self, node: Node, tensors: dict) -> dict:
        act = self.g.fused_activation(node)
        weighted = node in self.g.weighted_ops
        kernel = self.g.kernel(node)          # operand positions from its spec: addmm(bias, x, W)
        operands = [node.args[kernel.input]] if weighted and kernel.input is not None else _flat(node.args)
        data = [a for a in operands if isinstance(a, Node)]
        entry: dict = {"node": node.name, "op": op_name(node), "kernel": "", "activation": _activation(act),
                       "inputs": [self.tensor(a, tensors) for a in data],
                       "output": self.tensor(self._output(node, act), tensors),
                       "args": self._args(node)}
        k_out = _log2(tensors[entry["output"]])
        if weighted:
            entry.update(self._weighted(node, entry, tensors))
        else:
            k_ins = [k for k in (_log2(tensors[t]) for t in entry["inputs"]) if k is not None]
            if k_out is not None and k_ins and len(k_ins) == len(entry["inputs"]):
                entry["input_shifts"] = [k_out - k for k in k_ins]
            if kernel.spec is not None and kernel.spec.averages:
                entry["window"] = pool_window(self.g, node)
            site = self.requant.get(node.name)
            if site is not None and site.shifts is not None:
                entry["requant_shift"] = list(site.shifts)
        entry["kernel"] = kernel_name(node, entry, self.g)
        return entry

    def _output(self, node: Node, act: Node | None) -> Node:
        for source in (act, node):
            if source is None:
                continue
            q = next((u for u in source.users if is_quantize(u)), None)
            if q is not None:
                return q
        return act or node

    def _weighted(self, node: Node, entry: dict, tensors: dict) -> dict:
        w_dq, bias = node.args[self.g.kernel(node).weight], self.g.bias_arg(node)
        out: dict = {"weight": self._constant(node, w_dq, "weight")}
        if isinstance(bias, Node) and is_dequantize(bias):
            out["bias"] = self._constant(node, bias, "bias")
        k_in, k_out = _log2(tensors[entry["inputs"][0]]), _log2(tensors[entry["output"]])
        k_w = out["weight"].get("scale_log2")
        if k_in is not None and k_out is not None and k_w is not None:
            out["requant_shift"] = [k_out - (k_in + k) for k in k_w]
        return out

    def _constant(self, op: Node, dq: Node, kind: str) -> dict:
        qp = self.g.qp[dq]
        value = self.g.attr_value(dq.args[0])
        array = value.detach().cpu().numpy() if isinstance(value, torch.Tensor) else np.asarray(value)
        key = f"{op.name}.{kind}"
        self.arrays[key] = array
        entry = {"npz": key, "shape": list(array.shape), "dtype": str(array.dtype)}
        entry.update(_scale_fields(qp, per_channel=True))
        return entry

    def _args(self, node: Node) -> dict:
        """The op's attributes by schema name, defaults included (stride, padding, groups, …)."""
        if not hasattr(node.target, "_schema"):
            return {}
        return {k: _jsonable(plain_value(v)) for k, v in bound_args(node).items()
                if k in _SCHEMA_ARGS and not isinstance(v, Node)}


def kernel_name(node: Node, entry: dict, g: QGraph) -> str:
    """The VPU kernel an op runs as: "conv2d_s8", "dwconv2d_s8_relu", "fc_s8", "add_s8", … read
    from the kernel spec it runs as (an addmm with a constant weight is linear's: "fc_s8")."""
    kernel = g.kernel(node)
    spec = kernel.spec
    what = spec.int_kernel if spec is not None else None
    suffix = {"relu": "_relu", "relu6": "_relu6"}.get(entry["activation"] or "", "") \
        if what in _ACTIVATION_SUFFIX else ""
    if spec is None or what is None:
        return f"float:{op_name(node).split('.')[0]}"      # listed in the profile, no integer kernel
    if what == "conv":
        groups = int(entry["args"].get("groups", 1) or 1)
        channels = entry["weight"]["shape"][0] if "weight" in entry else 0
        kind = "dw" + spec.name if groups > 1 and groups == channels else ("group_" + spec.name if groups > 1 else spec.name)
        return f"{kind}_s8{suffix}"
    if what in ("avg_pool", "adaptive_avg_pool"):
        window = entry.get("window", 1)
        how = "shift" if window & (window - 1) == 0 else g.profile.avg_pool_divisor
        return f"avgpool2d_s8_{how}"
    if what == "max_pool":
        return f"{spec.name.replace('_', '')}_s8"          # maxpool2d_s8, maxpool1d_s8
    if what == "layout":
        return "reshape" if spec.name == "view" else "layout"   # views / copies, slices, splits
    return _HANDOFF[what] + suffix


def _scale_fields(qp: QParams, per_channel: bool = False) -> dict:
    scales = list(qp.scales)
    exact = all(is_pow2(s) for s in scales)
    log2 = [round(math.log2(s)) for s in scales] if exact else None
    out: dict = {"scale": scales if per_channel else scales[0],
                 "zero_point": list(qp.zero_points) if per_channel else qp.zero_points[0]}
    if log2 is not None:
        out["scale_log2"] = log2 if per_channel else log2[0]
        out["frac_bits"] = [-k for k in log2] if per_channel else -log2[0]
    if per_channel:
        out["axis"] = qp.axis if qp.per_channel else None
    return out


def _log2(tensor: dict) -> int | None:
    return tensor.get("scale_log2")


def _activation(act: Node | None) -> str | None:
    if act is None:
        return None
    return "relu6" if op_name(act).startswith("hardtanh") else op_name(act).split(".")[0].rstrip("_")


def _itemsize(dtype: str) -> int:
    return {"int8": 1, "uint8": 1, "int16": 2, "int32": 4, "int64": 8, "float16": 2, "bfloat16": 2,
            "bool": 1}.get(dtype, 4)


def _flat(args) -> list:
    out = []
    for a in args:
        out.extend(_flat(a) if isinstance(a, (list, tuple)) else [a])
    return out


def _jsonable(value):
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value

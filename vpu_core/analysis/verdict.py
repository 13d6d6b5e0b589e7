"""Would this op run on the VPU, and if not, why? Decided from the op, its dtypes and its shapes only.

No quantization parameter is read, so the same verdict holds on the exported float graph (before
any quantizer ran: `predict(gm, profile)`) and on the converted Q/DQ graph (the partition adds one
cause of its own there: an op the quantizer left in float). A call_function op is a VPU
candidate unless, in this order:

1. it writes an integer / bool tensor                      cause "dtype"
2. neither its op nor the kernel it runs as is listed      cause "op_list"
   (aliases, vpu_core.hardware.ops: conv1d = 1×k conv2d, addmm / mm / matmul with a constant
   2-D weight = linear)
3. it reads an integer / bool tensor                       cause "dtype"
4. a limit of its kernel's [op.NAME] table fails           cause "limit"
5. otherwise only [memory] sram_bytes fails                cause "memory"
   (4 and 5: every failing limit is listed, in vpu_core.hardware.limits.LIMITS order; the
   quantities are read by the kernel's spec, vpu_core.hardware.kernels)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Literal

import torch
from torch.fx import GraphModule, Node

from vpu_core.analysis.qgraph import QGraph, is_op
from vpu_core.analysis.results import LimitFailure, VpuCause
from vpu_core.fx_utils import concrete_dim, dtype_name, node_dtypes, non_float_tensor
from vpu_core.hardware.limit_keys import SRAM, failure_text
from vpu_core.hardware.nodes import NodeView
from vpu_core.hardware.ops import Kernel, is_layout, listed, op_matches

if TYPE_CHECKING:
    from vpu_core.hardware.profile import HardwareProfile

INT_REASON = "the VPU computes int8-quantized float activations only"


@dataclass(frozen=True)
class Verdict:
    on_vpu: bool
    cause: VpuCause | Literal[""] = ""  # "" on the VPU
    reason: str = ""                   # one sentence ("" on the VPU)
    kernel: Kernel | None = None
    limits: tuple[LimitFailure, ...] = ()


DtypesFn = Callable[[Node], "list[torch.dtype]"]


def dtype_lookup(g: QGraph) -> DtypesFn:
    """Output dtypes of a node (Q/DQ nodes of a converted graph carry no meta of their own)."""
    def dtypes_of(node: Node) -> list[torch.dtype]:
        meta = g.tensor_meta.get(node.name)
        return [meta[1]] if meta and meta[1] is not None else node_dtypes(node)
    return dtypes_of


def op_verdict(g: QGraph, node: Node, dtypes_of: DtypesFn | None = None) -> Verdict:
    """The verdict on one call_function op of `g` under `g.profile` (see the module docstring)."""
    profile, kernel = g.profile, g.kernel(node)
    name = kernel.op + (f", run as the VPU's {kernel.packet} kernel," if kernel.alias else "")
    bad = non_float_tensor(node, dtypes_of or dtype_lookup(g))
    if bad is not None and bad[0] == "output":
        return Verdict(False, "dtype", f"{_kind(bad[1])} tensor op: {kernel.op} produces "
                       f"{dtype_name(bad[1])}; {INT_REASON}", kernel)
    if not listed(kernel, profile.vpu_ops):
        return Verdict(False, "op_list", f"{kernel.op} is not in the VPU op list (profile {profile.name})",
                       kernel)
    if bad is not None:
        return Verdict(False, "dtype", f"{_kind(bad[1])} tensor op: {kernel.op} reads "
                       f"{dtype_name(bad[1])} '{bad[0]}'; {INT_REASON}", kernel)
    failures = limit_failures(g, node, kernel)
    if failures:
        what = "VPU limit" if failures[0].cause == "limit" else "VPU memory"
        sentences = "; ".join(f.sentence for f in failures)
        return Verdict(False, failures[0].cause, f"{name} exceeds the {what} of profile "
                       f"{profile.name}: {sentences}", kernel, failures)
    return Verdict(True, kernel=kernel)


def _kind(dtype: torch.dtype) -> str:
    return "bool" if dtype == torch.bool else "integer"


def limit_failures(g: QGraph, node: Node, kernel: Kernel | None = None) -> tuple[LimitFailure, ...]:
    """Every limit of the profile `node` breaks: its kernel's keys in their declared order, then
    the memory limit (the fixed order of hardware.limits.LIMITS)."""
    profile = g.profile
    if not profile.limits:
        return ()
    kernel = kernel or g.kernel(node)
    spec = kernel.spec
    own = spec.limits if spec is not None else ()
    keys = [k for k in (*own, SRAM) if k.id in profile.limits]
    if not keys:
        return ()
    quantities = limit_quantities(g, node, kernel)
    out = []
    for key in keys:
        found = failure_text(key, quantities, profile.limits[key.id])
        if found is not None:
            out.append(LimitFailure(key.id, found[0], profile.limits[key.id], found[1]))
    return tuple(out)


# -- the quantities of an op ---------------------------------------------------------------------

def limit_quantities(g: QGraph, node: Node, kernel: Kernel | None = None) -> dict:
    """The quantities the limits bound, read from `node`'s shapes and arguments by its kernel's
    spec (None: unknown), and its SRAM bytes when the profile limits them."""
    kernel = kernel or g.kernel(node)
    spec = kernel.spec
    out: dict = {}
    if spec is not None and spec.quantities is not None and spec.limits:
        out.update(spec.quantities(NodeView(node, kernel, g.shape)))
    if SRAM.id in g.profile.limits:
        out["sram_bytes"] = sram_bytes(g, node, kernel)
    return out


def sram_bytes(g: QGraph, node: Node, kernel: Kernel | None = None) -> int | None:
    """The op's int8 bytes: every tensor it reads (activations and weights, each once; a conv /
    linear bias not counted) plus its floating-point outputs, at 1 byte per element. None for the
    ops the memory limit does not check: layout-only ops and the profile's fused activations."""
    kernel = kernel or g.kernel(node)
    if is_layout(kernel.op) or op_matches(kernel.op, g.profile.fused_activations):
        return None
    bias = g.bias_arg(node) if kernel.weighted else None
    total = 0
    for src in node.all_input_nodes:
        if src is bias:
            continue
        shape = g.shape(src)
        if shape is not None:
            total += math.prod(shape)
    return total + _output_elements(node)


def _output_elements(node: Node) -> int:
    val = node.meta.get("val")
    values = val if isinstance(val, (list, tuple)) else [val]
    return sum(math.prod(concrete_dim(d) for d in v.shape) for v in values
               if isinstance(v, torch.Tensor) and v.dtype.is_floating_point)


# -- the float graph (before quantization) -------------------------------------------------------

def predict(gm: GraphModule, profile: HardwareProfile) -> dict[str, Verdict]:
    """The verdict on every op of a graph, e.g. the exported float graph before any quantizer
    ran (what the partition will decide, except for ops a quantizer then leaves in float)."""
    return {n.name: v for n, v in op_verdicts(QGraph(gm, profile)).items()}


def op_verdicts(g: QGraph) -> dict[Node, Verdict]:
    """The verdict on every op of `g`, keyed by node, in graph order (`predict` on a QGraph
    already built)."""
    dtypes_of = dtype_lookup(g)
    return {n: op_verdict(g, n, dtypes_of) for n in g.nodes if is_op(n)}

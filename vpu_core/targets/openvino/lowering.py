"""Lower a converted Q/DQ graph with ExecuTorch's OpenVINO backend, and read where each node runs.

    lowering = lower_for_openvino(qm)      # OpenvinoLowering: the .pte and the placement

    torch.export.export(qm.converted) → to_edge_transform_and_lower(OpenvinoPartitioner(device CPU))
                                      → placement read (below) → to_executorch() → .pte bytes

The one lowering of the target: its verdict reads the placement, `--run` runs the bytes and
`export` writes them, so the three never disagree. The placement is read before emitting
(emitting rewrites the edge program) and is plain names, so the lowering can be kept whole.

Placement: every lowered call_function node is traced back to the converted-graph node it
descends from (its `from_node` provenance: vpu_core.targets.xnnpack.provenance.origin, as the
XNNPACK and Arm verdicts do). A converted node is in delegate k when anything lowered from it runs
inside the k-th delegate, on the CPU when what was lowered from it runs outside every delegate.
Why OpenvinoPartitioner left a lowered op out is asked of the same support table it reads
(OpenVINO's PyTorch frontend, `OperatorSupport`, plus the partitioner's own extensions): an op
outside it has no conversion in OpenVINO; an op inside it was left out by the capability-based
partitioner (e.g. a graph-input copy that belongs to no partition).
"""
from __future__ import annotations

import contextlib
import io
import time
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import torch
from torch.fx import GraphModule, Node

from vpu_core import quiet
from vpu_core.analysis.qgraph import is_getitem
from vpu_core.errors import InspectorError, short_reason
from vpu_core.targets.xnnpack.provenance import is_delegate_call, origin
from vpu_core.targets.openvino import no_telemetry, signal_stack_kept

no_telemetry()     # before openvino or nncf is imported (see there)

if TYPE_CHECKING:
    from vpu_core.pipeline import QuantizedModel

DEVICE = "CPU"


@dataclass(frozen=True)
class LeftOut:
    """A lowered op OpenvinoPartitioner left to ExecuTorch's portable kernels."""

    lowered_op: str          # "aten.erfinv.default" (the edge op's name)
    supported: bool          # in OpenVINO's support table (then the partitioner left it out)


@dataclass
class OpenvinoLowering:
    """The converted graph lowered for OpenVINO (core-internal: the emitted bytes and plain names)."""

    buffer: bytes                                   # the .pte
    delegated: dict[str, int]                       # converted node -> delegate index (program order)
    on_cpu: dict[str, list[LeftOut]]                # converted node -> its lowered ops outside every delegate
    counts: dict[str, int]
    inputs: list[dict] = field(default_factory=list)   # name, shape, dtype of each graph input
    seconds: float = 0.0


def lower_for_openvino(qm: QuantizedModel) -> OpenvinoLowering:
    """`qm.converted` exported and lowered with OpenvinoPartitioner (device CPU), its placement
    read and its program emitted; an InspectorError (one sentence) when ExecuTorch cannot."""
    from executorch.backends.openvino.partitioner import OpenvinoPartitioner
    from executorch.exir import to_edge_transform_and_lower
    from executorch.exir.backend.backend_details import CompileSpec

    start = time.perf_counter()
    gm = qm.converted
    printed = io.StringIO()
    try:
        # the partitioner prints every op it does not support; OpenVINO's frontend logs its conversions
        with quiet.torch_chatter(), contextlib.redirect_stdout(printed), signal_stack_kept():
            exported = torch.export.export(gm, tuple(qm.example_inputs), strict=False)
            partitioner = OpenvinoPartitioner([CompileSpec("device", DEVICE.encode())])
            edge = to_edge_transform_and_lower(exported, partitioner=[partitioner])
            top = edge.exported_program().graph_module
            delegated, on_cpu, counts = _place(top, gm)
            program = edge.to_executorch()
    except Exception as exc:  # ExecuTorch and OpenVINO raise many types; the user gets one line
        raise InspectorError(f"ExecuTorch could not lower the program for OpenVINO: {short_reason(exc)}",
                             traceback.format_exc() + printed.getvalue()) from None
    inputs = [{"name": n.name, "shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch.")}
              for n, t in zip((n for n in gm.graph.nodes if n.op == "placeholder"), qm.example_inputs)]
    return OpenvinoLowering(bytes(program.buffer), delegated, on_cpu, counts, inputs, time.perf_counter() - start)


def _place(top: GraphModule, exported: GraphModule) -> tuple[dict[str, int], dict[str, list[LeftOut]], dict[str, int]]:
    names = {n.name for n in exported.graph.nodes}
    gid = id(exported.graph)
    supported = _support_table()
    delegated: dict[str, int] = {}
    inside = 0
    calls = [n for n in top.graph.nodes if is_delegate_call(n)]
    for k, call in enumerate(calls):
        sub = getattr(top, call.args[0].target).original_module.graph_module
        for n in sub.graph.nodes:
            if n.op != "call_function":
                continue
            inside += 1
            found = origin(n, gid, names)
            if found is not None:
                delegated.setdefault(found, k)
    on_cpu: dict[str, list[LeftOut]] = {}
    outside = 0
    for n in top.graph.nodes:
        if n.op != "call_function" or is_delegate_call(n):
            continue
        if is_getitem(n) and isinstance(n.args[0], Node) and is_delegate_call(n.args[0]):
            continue            # unpacking a delegate's outputs, not a kernel
        outside += 1
        found = origin(n, gid, names)
        if found is not None:
            op = _op_type(n)
            on_cpu.setdefault(found, []).append(LeftOut(op, f"torch.ops.{op}" in supported))
    return delegated, on_cpu, {"delegated_subgraphs": len(calls), "delegated_nodes": inside,
                               "non_delegated_nodes": outside}


def _op_type(node: Node) -> str:
    """The op's name as OpenvinoOperatorsSupport spells it ("aten.convolution.default")."""
    return node.target if isinstance(node.target, str) else getattr(node.target, "__name__", str(node.target))


def _support_table() -> set[str]:
    """The ops OpenvinoPartitioner delegates: OpenVINO's frontend table and its own extensions."""
    from executorch.backends.openvino.partitioner import OpenvinoOperatorsSupport
    from openvino.frontend.pytorch.torchdynamo.op_support import OperatorSupport

    return set(OperatorSupport([])._support_dict) | set(OpenvinoOperatorsSupport.extended_support_dict)

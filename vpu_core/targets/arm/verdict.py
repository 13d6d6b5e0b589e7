"""The Arm backend's verdict, node by node, on the converted graph: from the FINAL lowered program.

    report = arm_verdict(qm, lowering)     # PartitionReport, source = the target's name

Which node runs where is read from the lowered program itself, never from the partitioner's
rejections: a node is in delegate k when anything lowered from it runs inside the k-th delegate
(program order), on the CPU when what was lowered from it runs outside every delegate. So a node
the partitioner's checks refused but that a later check or pass still delegated (a U55 max pool
with stride 4, which MaxPool2dSupported refuses and DecomposableLargeStrideMaxPool2dForU55Supported
takes) is delegated, and counted in `overruled`. Lowered nodes are traced back to the converted
graph through their `from_node` provenance (vpu_core.targets.xnnpack.provenance.origin), the way the
XNNPACK delegation does.

Every op left on the CPU says why, with the Arm backend's own sentence (WhyNoPartitionReporter,
recorded by recording.RecordingReporter) and, as data, the check that refused it (`detail`
"check") and the cause (results.ARM_CAUSES) that check stands for. An op the quantizer left in
float also carries the quantizer's reason when it recorded one (EthosUQuantizer's report of the
patterns it rejected: node.meta[FLOAT_REASON_KEY]).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from torch.fx import GraphModule, Node

from vpu_core.targets.xnnpack.provenance import origin as _origin
from vpu_core.analysis.extreme import FLOAT_REASON_KEY
from vpu_core.analysis.qgraph import QGraph, is_getitem, is_op
from vpu_core.analysis.results import CpuNode, PartitionReport, Placement
from vpu_core.fx_utils import op_name
from vpu_core.qdq import is_qdq
from vpu_core.targets.xnnpack.provenance import is_delegate_call
from vpu_core.targets.arm.recording import SUPPORT_LISTS, Rejection
from vpu_core.targets.arm.results import ArmCause
from vpu_core.targets.verdicts import placement_report

if TYPE_CHECKING:
    from vpu_core.pipeline import QuantizedModel
    from vpu_core.targets.arm.lowering import ArmLowering

# The cause each of the Arm backend's checks stands for (a registered per-operator check —
# AvgPool2dSupported, ConvolutionSupported, … — is "limit": the op is supported, not these
# arguments; a check not listed here is "unsupported").
CAUSE_OF_CHECK: dict[str, ArmCause] = {
    "CheckArmQuantized": "float", "CheckProperQuantization": "float",
    "EthosUPartitioner": "float", "TOSAPartitioner": "float",   # first node of a partition reading a float
    "CheckDtypeInputsAndOutputs": "dtype", "CheckInt64InputsAndOutputs": "dtype",
    "EthosU55DtypeSupport": "dtype", "EthosU55CastCheck": "dtype", "CheckMixedFloatingInputs": "dtype",
    "CheckFPComparisonInputs": "dtype",
    "SymbolicShapeSupportCheck": "shape", "CheckResolvedTensorShapes": "shape",
    "RankCheck": "limit", "EthosU55ResizeCheck": "limit", "EthosU55ReverseCheck": "limit",
    "EthosU55UnfoldCopyCheck": "limit",
    "reject_partition": "partition",
    SUPPORT_LISTS: "unsupported", "EthosU55NotSupported": "unsupported",
    "CheckKnownUnsupportedTOSASemantics": "unsupported",
}


@dataclass(frozen=True)
class ProgramPlacement:
    """Where the lowered program runs each converted-graph node (names of qm.converted)."""

    delegated: dict[str, int]            # node -> delegate index (program order)
    on_cpu: dict[str, list[Node]]        # node -> its lowered nodes outside every delegate
    counts: dict[str, int]


def place(top: GraphModule, exported: GraphModule, names: set[str]) -> ProgramPlacement:
    """`top`: the lowered program's graph; `exported`: the graph that was exported (its id ties
    the provenance chains to it); `names`: the converted graph's node names."""
    gid = id(exported.graph)
    delegated: dict[str, int] = {}
    on_cpu: dict[str, list[Node]] = {}
    inside = 0
    calls = [n for n in top.graph.nodes if is_delegate_call(n)]
    for k, call in enumerate(calls):
        sub = getattr(top, call.args[0].target).original_module.graph_module
        for n in sub.graph.nodes:
            origin = _origin(n, gid, names) if n.op == "call_function" else None
            inside += n.op == "call_function"
            if origin is not None:
                delegated.setdefault(origin, k)
    outside = 0
    for n in top.graph.nodes:
        if n.op != "call_function" or is_delegate_call(n):
            continue
        if is_getitem(n) and isinstance(n.args[0], Node) and is_delegate_call(n.args[0]):
            continue            # unpacking a delegate's outputs, not a kernel
        outside += 1
        origin = _origin(n, gid, names)
        if origin is not None:
            on_cpu.setdefault(origin, []).append(n)
    counts = {"delegated_subgraphs": len(calls), "delegated_nodes": inside, "non_delegated_nodes": outside}
    return ProgramPlacement(delegated, on_cpu, counts)


def arm_verdict(qm: QuantizedModel, lowering: ArmLowering) -> PartitionReport:
    g = QGraph(qm.converted, qm.profile)
    names = {n.name for n in g.nodes}
    where = place(lowering.lowered_module(), lowering.prepared.gm, names)
    # Q/DQ nodes too, where the program runs them: an INT-only delegate ends in its quantize and
    # starts after its dequantize; the CPU runs the quantize entering it and the dequantize leaving.
    placed: dict[str, Placement] = {n: k for n, k in where.delegated.items() if _placeable(g.by_name[n])}
    for name in where.on_cpu:
        if name not in placed and _placeable(g.by_name[name]):
            placed[name] = "cpu"
    reasons = _reasons(lowering.rejections, id(lowering.prepared.gm.graph), names, g)
    title = lowering.config.title

    kept = lowering.prepared.kept_on_cpu

    def cpu_node(node: Node) -> CpuNode:
        if node.name in kept:        # an op the backend cannot take from this quantizer (graph_prep)
            return CpuNode(node.name, op_name(node), f"not delegated to {title}: {kept[node.name]}",
                           cause="unsupported", detail=(("check", "graph_prep"), ("sentence", kept[node.name])))
        return _cpu_node(node, title, reasons.get(node.name), node.name in where.on_cpu, qm.quantizer)

    ops = sorted({op_name(g.by_name[n]) for n, k in placed.items() if isinstance(k, int) and is_op(g.by_name[n])})
    counts = {**where.counts, "overruled": sum(1 for n in reasons if n in where.delegated)}
    return placement_report(g, placed, cpu_node, source=lowering.config.name,
                            profile=_judge(lowering), ops=tuple(ops), lowered_counts=counts)


def _placeable(node: Node) -> bool:
    """Ops and activation Q/DQ nodes (a constant's dequantize follows the op that reads it)."""
    if is_op(node):
        return True
    return is_qdq(node) and not (node.args and isinstance(node.args[0], Node) and node.args[0].op == "get_attr")


def _judge(lowering: ArmLowering) -> str:
    return "EthosUPartitioner" if lowering.config.uses_vela else "TOSAPartitioner"


def _reasons(rejections: list[Rejection], gid: int, names: set[str], g: QGraph) -> dict[str, Rejection]:
    """Converted node -> the first rejection of what was lowered from it, a compute op's first
    (a Q/DQ node's refusal says less about the op than the op's own)."""
    found: dict[str, list[Rejection]] = {}
    for r in rejections:
        origin = _origin(r.node, gid, names)
        if origin is not None:
            found.setdefault(origin, []).append(r)
    out = {}
    for name, rs in found.items():
        compute = [r for r in rs if not is_qdq(r.node)]
        out[name] = (compute or rs)[0]
    return out


def cause_of(rejection: Rejection) -> ArmCause:
    if rejection.check in CAUSE_OF_CHECK:
        return CAUSE_OF_CHECK[rejection.check]
    return "limit" if rejection.op_check else "unsupported"


def _cpu_node(node: Node, title: str, rejection: Rejection | None, lowered: bool, quantizer: str) -> CpuNode:
    op = op_name(node)
    if rejection is None:
        if not lowered:
            return CpuNode(node.name, op, f"not delegated to {title}: removed or folded while lowering",
                           cause="removed")
        return CpuNode(node.name, op, f"not delegated to {title}: no check refused it, yet the lowered "
                       "program runs it on the CPU", cause="left_out")
    cause = cause_of(rejection)
    reason = f"not delegated to {title}: {rejection.sentence}"
    quantizer_reason = node.meta.get(FLOAT_REASON_KEY)
    if cause == "float" and isinstance(quantizer_reason, str):
        reason += f" ({quantizer} quantizer: {quantizer_reason})"
    detail = (("check", rejection.check), ("sentence", rejection.sentence),
              ("lowered_op", op_name(rejection.node)), ("lowered_node", rejection.node.name))
    return CpuNode(node.name, op, reason, cause=cause, detail=detail)

"""The OpenVINO verdict, node by node, on the converted graph: from the lowered program.

    report = openvino_verdict(qm, lowering)     # PartitionReport, source "openvino"

Where each node runs is lowering.py's placement (read from the lowered program, traced back to
our node names). Every op left on the CPU says why, as data (`cause`, `detail`):

    unsupported   OpenVINO's PyTorch frontend has no conversion for what it was lowered to
                  (`detail` "lowered_ops"); OpenvinoPartitioner leaves such ops to ExecuTorch's
                  portable kernels
    left_out      every op it was lowered to is convertible, yet the partitioner (a capability-based
                  one: connected groups of supported ops) placed it in no delegate
    removed       nothing lowered from it is left: folded or removed while lowering (not a CPU op
                  the program runs, kept apart so a count of CPU ops can leave it out)
    float         an op kept in float on request (--keep-float: NNCF's ignored scope), with the
                  quantizer's reason beside OpenVINO's
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from torch.fx import Node

from vpu_core.analysis.extreme import FLOAT_REASON_KEY
from vpu_core.analysis.qgraph import QGraph, is_op
from vpu_core.analysis.results import CpuNode, PartitionReport, Placement
from vpu_core.fx_utils import op_name
from vpu_core.qdq import is_qdq
from vpu_core.targets.verdicts import placement_report

if TYPE_CHECKING:
    from vpu_core.pipeline import QuantizedModel
    from vpu_core.targets.openvino.lowering import OpenvinoLowering

JUDGE = "OpenvinoPartitioner (device CPU)"


def openvino_verdict(qm: QuantizedModel, lowering: OpenvinoLowering) -> PartitionReport:
    g = QGraph(qm.converted, qm.profile)
    # ops and activation Q/DQ where the program runs them; a constant's dequantize follows its op
    placed: dict[str, Placement] = {n: k for n, k in lowering.delegated.items() if _placeable(g.by_name[n])}
    for name in lowering.on_cpu:
        if name not in placed and _placeable(g.by_name[name]):
            placed[name] = "cpu"
    ops = sorted({op_name(g.by_name[n]) for n, k in placed.items() if isinstance(k, int) and is_op(g.by_name[n])})
    return placement_report(g, placed, lambda node: cpu_node(node, lowering), source="openvino", profile=JUDGE,
                            ops=tuple(ops), lowered_counts=lowering.counts)


def _placeable(node: Node) -> bool:
    if is_op(node):
        return True
    return is_qdq(node) and not (node.args and isinstance(node.args[0], Node) and node.args[0].op == "get_attr")


def cpu_node(node: Node, lowering: OpenvinoLowering) -> CpuNode:
    """Why OpenVINO left `node` (an op of the converted graph) on the CPU."""
    op = op_name(node)
    lowered = lowering.on_cpu.get(node.name)
    kept = node.meta.get(FLOAT_REASON_KEY)
    if lowered is None:
        return CpuNode(node.name, op, "not delegated to OpenVINO: removed or folded while lowering", cause="removed")
    missing = tuple(dict.fromkeys(x.lowered_op for x in lowered if not x.supported))
    all_ops = tuple(dict.fromkeys(x.lowered_op for x in lowered))
    if isinstance(kept, str) and kept:
        return CpuNode(node.name, op, f"not delegated to OpenVINO: left in float ({kept})", cause="float",
                       detail=(("lowered_ops", all_ops),))
    if missing:
        return CpuNode(node.name, op, f"not delegated to OpenVINO: its PyTorch frontend has no conversion for "
                       f"{', '.join(missing)}, so OpenvinoPartitioner leaves it to ExecuTorch's portable kernels",
                       cause="unsupported", detail=(("lowered_ops", missing), ("check", "OperatorSupport")))
    return CpuNode(node.name, op, f"not delegated to OpenVINO: {', '.join(all_ops)} can be converted, but "
                   "OpenvinoPartitioner placed it in no partition", cause="left_out",
                   detail=(("lowered_ops", all_ops), ("check", "CapabilityBasedPartitioner")))

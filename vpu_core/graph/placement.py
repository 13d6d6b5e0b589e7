"""Where one node runs, and why, under the partition a graph is coloured by.

The status bar, the node panel's summary and its per-node decision all read the same
PartitionReport (`partition_report(analysis, source, delegation, targets)`), so their numbers agree
whichever target's verdict (the VPU's, XNNPACK's, an Arm target's) is shown.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from vpu_core.config import SIMULATED
from vpu_core.graph.build import partition_report

if TYPE_CHECKING:
    from collections.abc import Mapping

    from vpu_core.analysis.results import Analysis, PartitionReport
    from vpu_core.targets.results import TargetResult

__all__ = ["NodePlacement", "partition_report", "placement"]


# Where one node runs, as the node panel says it: inside a subgraph / delegate, on the CPU, on the
# host (graph inputs and outputs), or with the op that reads it (a parameter).
RunsWhere = Literal["vpu", "cpu", "host", "consumer"]


@dataclass(frozen=True)
class NodePlacement:
    """Where one node runs and why (analysis.results.Placement is the partition's own id or "cpu")."""

    runs_on: RunsWhere
    subgraph: int | None = None
    reason: str = ""           # why it is there (empty for a node inside a partition)
    removed: bool = False      # "cpu" as the verdict lists it, yet folded away while lowering:
                               # no op runs for it (never counted as a CPU op)


def placement(analysis: Analysis, node: str, source: str = SIMULATED,
              delegation: PartitionReport | None = None,
              targets: Mapping[str, TargetResult] | None = None) -> NodePlacement:
    part = partition_report(analysis, source, delegation, targets)
    info = analysis.nodes.get(node)
    cpu = next((c for c in part.cpu_nodes if c.node == node), None)
    if cpu is not None:
        return NodePlacement("cpu", reason=cpu.reason, removed=cpu.cause == "removed")
    assigned = part.assignment.get(node)
    if isinstance(assigned, int) and not isinstance(assigned, bool):
        return NodePlacement("vpu", assigned)
    if info is None:
        return NodePlacement("host", reason="not partitioned")
    if info.kind == "placeholder":
        return NodePlacement("host", reason="graph input: produced by the host")
    if info.kind == "output":
        return NodePlacement("host", reason="graph output: read by the host")
    if info.kind == "get_attr":
        return NodePlacement("consumer", reason="a parameter: loaded with the op that reads it")
    if info.qparams is not None:
        unit = {"xnnpack": "an XNNPACK partition", "simulated": "a VPU partition"}.get(part.source, "an NPU partition")
        return NodePlacement("cpu", reason=f"a quantize / dequantize outside {unit}: it runs where its "
                                       "neighbours run (not an op: no kernel needed)")
    return NodePlacement("cpu", reason="not an op of the model (no kernel needed)")

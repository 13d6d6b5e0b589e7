"""The Ethos-U program's time in one table: Vela's NPU partitions beside the CPU side measured here.

    split = arm_split(analysis.nodes, verdict, estimate, runtime)      # ArmSplit

Torch-free: it reads the analysis' node table (inputs, outputs, op of every node), the target's
verdict (where each node runs), its Vela estimate and the run of the CPU side (cpu_cost.py):

    CPU islands   connected groups of the CPU side's nodes (the ops the verdict leaves on the
                  CPU and the Q/DQ between them) holding at least one op, each with the sum of its
                  nodes' measured µs
    hand-offs     a quantize the CPU runs for a delegate's input, a dequantize it runs on a
                  delegate's output (INT-only delegates exchange integer tensors)
    NPU           each partition's inference time at the system configuration's clock (Vela)
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:
    from vpu_core.analysis.results import NodeInfo, PartitionReport, Placement
    from vpu_core.targets.arm.results import VelaEstimate
    from vpu_core.targets.results import RuntimeReport


@dataclass(frozen=True)
class CpuIsland:
    """A connected group of ops an Arm target leaves on the CPU, measured here (cpu_cost)."""

    index: int
    nodes: tuple[str, ...]           # its ops, graph order
    ops: tuple[str, ...]             # their op names, once each
    us: float                        # measured: its ops and the Q/DQ between them, per inference


@dataclass(frozen=True)
class ArmSplit:
    """The Ethos-U program's time, one table: NPU partitions (Vela's estimate) and CPU side (measured)."""

    npu_us: tuple[tuple[int, float], ...]     # (partition, µs at the system configuration's clock)
    islands: tuple[CpuIsland, ...]
    handoff_nodes: tuple[str, ...]   # quantize into / dequantize out of each delegate, run by the CPU
    handoff_us: float
    cpu_runtime: str                 # "executorch 1.5.1" (portable kernels, this CPU)
    threads: int
    label: str                       # the estimate's label ("Vela 5.1.0 estimate (…)")

    @property
    def npu_total_us(self) -> float:
        return sum(us for _, us in self.npu_us)

    @property
    def cpu_total_us(self) -> float:
        return sum(i.us for i in self.islands) + self.handoff_us

    @property
    def total_us(self) -> float:
        return self.npu_total_us + self.cpu_total_us

    def text_lines(self) -> list[str]:
        from vpu_core.targets.arm.report_text import split_lines

        return split_lines(self)

    def to_json(self) -> dict:
        return {"label": self.label, "cpu_runtime": self.cpu_runtime, "threads": self.threads,
                "npu_us": self.npu_total_us, "cpu_us": self.cpu_total_us, "total_us": self.total_us,
                "npu": [{"partition": i, "us": us, "estimate": True} for i, us in self.npu_us],
                "cpu_islands": [{"island": i.index, "us": i.us, "nodes": list(i.nodes), "ops": list(i.ops),
                                 "measured": True} for i in self.islands],
                "handoffs": {"us": self.handoff_us, "nodes": list(self.handoff_nodes), "measured": True}}


def arm_split(nodes: Mapping[str, NodeInfo], verdict: PartitionReport, estimate: VelaEstimate | None,
              runtime: RuntimeReport) -> ArmSplit:
    us = runtime.op_us()
    where = verdict.assignment
    islands: list[CpuIsland] = []
    for members in _islands(nodes, where):
        ops = [n for n in members if is_op_info(nodes[n])]
        islands.append(CpuIsland(len(islands), tuple(ops), tuple(sorted({nodes[n].op for n in ops})),
                                 sum(us.get(n, 0.0) for n in members)))
    handoffs = tuple(n for n, info in nodes.items() if _hands_over(info, where))
    npu = tuple((p.index, p.inference_ms * 1e3) for p in estimate.partitions) if estimate else ()
    return ArmSplit(npu_us=npu, islands=tuple(islands), handoff_nodes=handoffs,
                    handoff_us=sum(us.get(n, 0.0) for n in handoffs), cpu_runtime=runtime.runtime,
                    threads=runtime.threads, label=estimate.label if estimate else "")


def qdq_kind(info: NodeInfo) -> str:
    """"q", "dq" or "" (by op name, as vpu_core.qdq reads a graph)."""
    op = info.op.removeprefix("quantized_decomposed.")
    return "q" if op.startswith("quantize_per") else "dq" if op.startswith("dequantize_per") else ""


def is_op_info(info: NodeInfo) -> bool:
    """A computing node of the analysis' node table (not Q/DQ, not tuple indexing)."""
    return info.kind == "call_function" and not qdq_kind(info) and info.op != "getitem"


def _islands(nodes: Mapping[str, NodeInfo], where: Mapping[str, Placement]) -> list[list[str]]:
    """Connected groups of the CPU side's nodes (hand-offs, graph inputs and output apart) that
    hold an op, in graph order."""
    order = {n: i for i, n in enumerate(nodes)}
    inside = {n for n, info in nodes.items() if where.get(n) == "cpu" and info.kind == "call_function"
              and not _hands_over(info, where)}
    seen: set[str] = set()
    out = []
    for start in sorted(inside, key=order.__getitem__):
        if start in seen:
            continue
        found, todo = [], [start]
        seen.add(start)
        while todo:
            n = todo.pop()
            found.append(n)
            for m in (*nodes[n].inputs, *nodes[n].outputs):
                if m in inside and m not in seen:
                    seen.add(m)
                    todo.append(m)
        if any(is_op_info(nodes[n]) for n in found):
            out.append(sorted(found, key=order.__getitem__))
    return out


def _hands_over(info: NodeInfo, where: Mapping[str, Placement]) -> bool:
    """A quantize the CPU runs for a delegate's input, or a dequantize it runs on a delegate's output."""
    if where.get(info.name) != "cpu":
        return False
    kind = qdq_kind(info)
    if kind == "q":
        return any(isinstance(where.get(u), int) for u in info.outputs)
    if kind == "dq":
        return any(isinstance(where.get(i), int) for i in info.inputs)
    return False

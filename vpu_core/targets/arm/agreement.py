"""Our own profile held to the real one: where the VPU's verdict under a profile (edge_npu) and a
real Arm target's verdict (ethos-u55-128) place the same op differently, and why each says so.

    a = agreement(analysis.nodes, vpu_partition, arm_verdict)      # Agreement
    a.agree_share, a.too_optimistic, a.too_pessimistic

Torch-free: both verdicts are PartitionReports of one converted graph (the same node names).
Only ops are compared (Q/DQ nodes and constants follow their ops in both). An op is "on the
accelerator" in a verdict when it is in one of its subgraphs.

    too optimistic   the profile puts the op on the VPU, the real backend leaves it on the CPU:
                     the real backend's check and sentence say why
    too pessimistic  the profile leaves the op on the CPU (its cause and failing limit), the real
                     backend delegates it
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

from vpu_core.targets.arm.split import is_op_info

if TYPE_CHECKING:
    from vpu_core.analysis.results import NodeInfo, PartitionReport


@dataclass(frozen=True)
class Disagreement:
    node: str
    op: str
    profile_says: str        # "vpu" or the profile's CPU cause ("limit: conv2d.stride_max", "op_list")
    target_says: str         # "delegated" or the target's check and sentence


@dataclass(frozen=True)
class Agreement:
    ops: int
    agreed: int
    too_optimistic: tuple[Disagreement, ...]
    too_pessimistic: tuple[Disagreement, ...]

    @property
    def agree_share(self) -> float:
        return self.agreed / self.ops if self.ops else 1.0

    def by_reason(self) -> dict[str, int]:
        """"op: what the side that refused says" -> ops, over both kinds of disagreement."""
        out: dict[str, int] = {}
        for d in self.too_optimistic:
            key = f"{d.op}: {d.target_says}"
            out[key] = out.get(key, 0) + 1
        for d in self.too_pessimistic:
            key = f"{d.op}: {d.profile_says}"
            out[key] = out.get(key, 0) + 1
        return dict(sorted(out.items(), key=lambda kv: -kv[1]))


def agreement(nodes: Mapping[str, NodeInfo], profile: PartitionReport, target: PartitionReport) -> Agreement:
    ops = [n for n, info in nodes.items() if is_op_info(info)]
    why_profile = {c.node: c for c in profile.cpu_nodes}
    why_target = {c.node: c for c in target.cpu_nodes}
    optimistic, pessimistic = [], []
    for n in ops:
        on_vpu = isinstance(profile.assignment.get(n), int)
        delegated = isinstance(target.assignment.get(n), int)
        if on_vpu and not delegated:
            c = why_target.get(n)
            says = f"{dict(c.detail).get('check', c.cause)}: {dict(c.detail).get('sentence', c.reason)}" if c else "CPU"
            optimistic.append(Disagreement(n, nodes[n].op, "vpu", says))
        elif delegated and not on_vpu:
            p = why_profile.get(n)
            says = (f"{p.cause}: {p.limit}" if p and p.limit else p.cause if p else "cpu")
            pessimistic.append(Disagreement(n, nodes[n].op, says, "delegated"))
    agreed = len(ops) - len(optimistic) - len(pessimistic)
    return Agreement(len(ops), agreed, tuple(optimistic), tuple(pessimistic))

"""Our own profile held to a real backend: where the VPU's verdict under a profile (edge_npu) and
a real target's verdict (ethos-u55-128) place the same op of one converted graph differently, and
what each side says about it.

    a = model_agreement(model, analysis.nodes, macs, analysis.partition, target_result)   # ModelAgreement
    a.share, a.mac_share, a.differences
    total = Agreement(profile, target, quantizer, (a, b, ...))                          # over models

Torch-free: both verdicts are PartitionReports of the same converted graph (the same node names);
`macs` is every op's multiply-accumulates (vpu_core.analysis.macs.node_macs). What is compared:

    the ops the quantizer quantized   a computing node (not Q/DQ, not tuple indexing) that reads a
                                      dequantized tensor or writes one that is quantized; the
                                      headline share and the MAC share are over these
    every other op                    counted apart (int64 index arithmetic, bool masks, float
                                      islands): both sides usually leave them on the CPU
    ops the target folded away        neither side: the lowered program has no op for them

An op is on the accelerator in a verdict when it is in one of its subgraphs. A difference says
each side's reason as data: the profile's CPU cause and its first failing limit
("limit", "avg_pool2d.stride_max"), the target's cause, the check that refused it and its sentence.
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Mapping

from vpu_core.targets.arm.split import is_op_info, qdq_kind

if TYPE_CHECKING:
    from vpu_core.analysis.results import CpuCause, NodeInfo, PartitionReport

Direction = Literal["profile_only", "target_only"]
DIRECTIONS: tuple[Direction, ...] = ("profile_only", "target_only")
# profile_only: the profile puts the op on the VPU, the real backend leaves it on the CPU (the
#               profile is too optimistic: the target's check and sentence say why)
# target_only:  the real backend delegates the op, the profile leaves it on the CPU (too
#               pessimistic: the profile's cause and failing limit say why)


@dataclass(frozen=True)
class Difference:
    node: str
    op: str                    # "avg_pool2d.default"
    direction: Direction
    macs: int
    quantized: bool            # an op the quantizer quantized (what the shares count)
    profile_cause: CpuCause | Literal[""]   # the profile's CPU cause ("limit", "op_list", …); "" on the VPU
    profile_limit: str         # its first failing limit ("avg_pool2d.stride_max") or ""
    profile_reason: str
    target_cause: CpuCause | Literal[""]    # the target's CPU cause ("limit", "unsupported", …); "" delegated
    target_check: str          # the check that refused it ("AvgPool2dSupported") or ""
    target_reason: str         # its sentence

    @property
    def profile_says(self) -> str:
        if not self.profile_cause:
            return "on the VPU"
        return f"{self.profile_cause}: {self.profile_limit}" if self.profile_limit else self.profile_cause

    @property
    def target_says(self) -> str:
        if not self.target_cause:
            return "delegated"
        return f"{self.target_cause}: {self.target_check}" if self.target_check else self.target_cause


@dataclass(frozen=True)
class ModelAgreement:
    model: str
    ops: int                   # quantized ops compared
    agreed: int
    macs: int                  # their multiply-accumulates
    macs_agreed: int
    other_ops: int             # ops the quantizer left unquantized, compared too (not in the shares)
    other_agreed: int
    folded: int                # ops the target folded away (not compared)
    differences: tuple[Difference, ...]
    subgraphs: tuple[int, int] = (0, 0)   # (profile's VPU subgraphs, target's partitions)

    @property
    def share(self) -> float:
        return self.agreed / self.ops if self.ops else 1.0

    @property
    def mac_share(self) -> float:
        return self.macs_agreed / self.macs if self.macs else 1.0


@dataclass(frozen=True)
class Group:
    """Differences alike: one direction, one op, the same cause (and limit / check) on each side."""

    direction: Direction
    op: str
    profile_says: str
    target_says: str
    count: int
    macs: int
    quantized: int             # how many of them count in the shares
    models: tuple[str, ...]
    example: str               # the refusing side's sentence, for one of them


@dataclass(frozen=True)
class Agreement:
    profile: str
    target: str
    quantizer: str
    models: tuple[ModelAgreement, ...]

    @property
    def ops(self) -> int:
        return sum(m.ops for m in self.models)

    @property
    def agreed(self) -> int:
        return sum(m.agreed for m in self.models)

    @property
    def share(self) -> float:
        return self.agreed / self.ops if self.ops else 1.0

    @property
    def mac_share(self) -> float:
        macs = sum(m.macs for m in self.models)
        return sum(m.macs_agreed for m in self.models) / macs if macs else 1.0

    def groups(self) -> tuple[Group, ...]:
        """Every kind of difference over all models, the most ops first."""
        found: dict[tuple[Direction, str, str, str], list[tuple[str, Difference]]] = defaultdict(list)
        for m in self.models:
            for d in m.differences:
                found[(d.direction, d.op, d.profile_says, d.target_says)].append((m.model, d))
        out = []
        for (direction, op, profile_says, target_says), items in found.items():
            first = items[0][1]
            example = first.target_reason if direction == "profile_only" else first.profile_reason
            out.append(Group(direction, op, profile_says, target_says, len(items), sum(d.macs for _, d in items),
                             sum(d.quantized for _, d in items), tuple(dict.fromkeys(m for m, _ in items)), example))
        return tuple(sorted(out, key=lambda g: (DIRECTIONS.index(g.direction), -g.count, -g.macs, g.op)))

    def by_cause(self, direction: Direction) -> dict[str, int]:
        """The refusing side's cause (with its limit or check) -> ops, for one direction."""
        counts: dict[str, int] = defaultdict(int)
        for g in self.groups():
            if g.direction == direction:
                counts[g.target_says if direction == "profile_only" else g.profile_says] += g.count
        return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def is_quantized(info: NodeInfo, nodes: Mapping[str, NodeInfo]) -> bool:
    """An op the quantizer quantized: it reads a dequantized tensor or its output is quantized."""
    return (any(i in nodes and qdq_kind(nodes[i]) == "dq" for i in info.inputs)
            or any(o in nodes and qdq_kind(nodes[o]) == "q" for o in info.outputs))


def model_agreement(model: str, nodes: Mapping[str, NodeInfo], macs: Mapping[str, int],
                    profile: PartitionReport, target: PartitionReport) -> ModelAgreement:
    why_profile = {c.node: c for c in profile.cpu_nodes}
    why_target = {c.node: c for c in target.cpu_nodes}
    counts = {"ops": 0, "agreed": 0, "macs": 0, "macs_agreed": 0, "other_ops": 0, "other_agreed": 0, "folded": 0}
    differences = []
    for name, info in nodes.items():
        if not is_op_info(info):
            continue
        t = why_target.get(name)
        if t is not None and t.cause == "removed":
            counts["folded"] += 1
            continue
        quantized = is_quantized(info, nodes)
        on_vpu = isinstance(profile.assignment.get(name), int)
        delegated = isinstance(target.assignment.get(name), int)
        m = int(macs.get(name, 0))
        same = on_vpu == delegated
        if quantized:
            counts["ops"] += 1
            counts["agreed"] += same
            counts["macs"] += m
            counts["macs_agreed"] += m if same else 0
        else:
            counts["other_ops"] += 1
            counts["other_agreed"] += same
        if same:
            continue
        p = why_profile.get(name)
        detail = dict(t.detail) if t is not None else {}
        differences.append(Difference(
            name, info.op, "profile_only" if on_vpu else "target_only", m, quantized,
            profile_cause="" if on_vpu or p is None else p.cause, profile_limit=(p.limit or "") if p else "",
            profile_reason="" if on_vpu or p is None else p.reason,
            target_cause="" if delegated or t is None else t.cause, target_check=str(detail.get("check", "")),
            target_reason="" if delegated or t is None else str(detail.get("sentence", t.reason))))
    return ModelAgreement(model, differences=tuple(differences),
                          subgraphs=(len(profile.subgraphs), len(target.subgraphs)), **counts)



def model_to_json(m: ModelAgreement) -> dict:
    return {**{k: v for k, v in dataclasses.asdict(m).items() if k != "differences"},
            "share": m.share, "mac_share": m.mac_share,
            "differences": [dataclasses.asdict(d) for d in m.differences]}


def model_from_json(data: Mapping) -> ModelAgreement:
    fields = {f.name for f in dataclasses.fields(ModelAgreement)}
    values = {k: v for k, v in data.items() if k in fields}
    values["subgraphs"] = tuple(values.get("subgraphs", (0, 0)))
    values["differences"] = tuple(Difference(**d) for d in data.get("differences", ()))
    return ModelAgreement(**values)


def agreement_to_json(a: Agreement) -> dict:
    """JSON of `vpu-inspector agree --format json`."""
    return {"profile": a.profile, "target": a.target, "quantizer": a.quantizer,
            "ops": a.ops, "agreed": a.agreed, "share": a.share, "mac_share": a.mac_share,
            "by_cause": {d: a.by_cause(d) for d in DIRECTIONS},
            "groups": [dataclasses.asdict(g) for g in a.groups()],
            "models": [model_to_json(m) for m in a.models]}

"""Repeated blocks: the 30 decoder layers of an LLM folded into one template "×N".

    blocks = repeated_blocks(analysis)      # tuple[RepeatedBlocks, ...], outermost sets only
    blocks[0].template                      # "model.layers.* (LlamaDecoderLayer)"
    blocks[0].folded                        # members that are the template (same verdict)
    blocks[0].deviating                     # the others, each with what deviates

A set is the sibling module calls (same parent, same class) whose ops (Q/DQ left out) are the
same sequence: the structure. Among those, the template's verdict is the majority one, position
by position; a member deviates when an op sits on the CPU where the template's is on the VPU (or
back), when its ops are cut into partitions differently, when an output scale is ≥ 16× off the
members' median at the same position, when its worst layer SQNR is ≥ 10 dB below the members'
median, when it breaks a rule a different number of times, or when its structure differs (a
sibling of the same class with other ops). Per-member figures count what lies in the member, so
their sums add up to the graph's: MACs of its ops, its CPU ops (the partition's CPU nodes), the
VPU subgraphs that begin in it (a subgraph is counted in the block holding its first node).
Nested sets (the attention inside every layer) are not reported: their outer set says it.
Pure Python, no torch.
"""
from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vpu_core.analysis.hierarchy import ModuleGroup, ModuleTree, module_tree

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis

_QDQ = "quantized_decomposed."
SCALE_OUTLIER = 16.0          # an output scale this many times off the members' median
SQNR_WORSE_DB = 10.0          # a worst layer SQNR this far below the members' median


@dataclass(frozen=True)
class BlockMember:
    module: str                 # the module call's path (ModuleGroup.path)
    macs: int                   # multiply-accumulates of its ops
    cpu_ops: int                # its ops on the CPU (the partition's CPU nodes)
    partitions: int             # VPU subgraphs that begin in it
    sqnr_db: float | None       # its worst layer SQNR (None: no SQNR measured)


@dataclass(frozen=True)
class Deviation:
    module: str
    differs: tuple[str, ...]    # one sentence each: "CPU op mul_7 (mul.Tensor): …"


@dataclass(frozen=True)
class RepeatedBlocks:
    template: str                        # "model.layers.* (LlamaDecoderLayer)"
    cls: str
    ops: int                             # ops per member (the structure's length)
    members: tuple[BlockMember, ...]     # every member, in graph order (deviating ones too)
    deviating: tuple[Deviation, ...]

    @property
    def folded(self) -> int:
        """Members shown as the template: same structure, same verdict."""
        return len(self.members) - len(self.deviating)


def repeated_blocks(a: Analysis, tree: ModuleTree | None = None) -> tuple[RepeatedBlocks, ...]:
    """Every outermost set of repeated blocks of `a`, in graph order."""
    tree = tree or module_tree(a)
    view = _View(a)
    out: list[RepeatedBlocks] = []
    inside: set[str] = set()                    # groups within a reported member
    for parent in (None, *tree.groups):
        if parent is not None and parent in inside:
            continue
        kids = tree.groups[parent].children if parent is not None else tree.top_level()
        by_cls: dict[str, list[ModuleGroup]] = {}
        for path in kids:
            by_cls.setdefault(tree.groups[path].cls, []).append(tree.groups[path])
        for groups in by_cls.values():
            found = _blocks(view, groups)
            if found is not None:
                out.append(found)
                inside.update(p for g in groups for p in _descendants(tree, g.path))
    return tuple(sorted(out, key=lambda r: view.order.get(_first_node(tree, r), 0)))


def _descendants(tree: ModuleTree, path: str) -> list[str]:
    out, todo = [], [path]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += tree.groups[p].children
    return out


def _first_node(tree: ModuleTree, r: RepeatedBlocks) -> str:
    nodes = tree.groups[r.members[0].module].nodes
    return nodes[0] if nodes else ""


class _View:
    """What the fold reads of an Analysis, indexed once."""

    def __init__(self, a: Analysis) -> None:
        self.a = a
        self.order = {name: i for i, name in enumerate(a.nodes)}
        part = a.partition
        self.cpu = {c.node: c for c in part.cpu_nodes}
        self.subgraph = {n: s.id for s in part.subgraphs for n in s.nodes}
        self.starts = {min(s.nodes, key=lambda n: self.order.get(n, 0)): s.id for s in part.subgraphs if s.nodes}
        self.scale = {t.consumer: t.scales[0] for t in a.tensors
                      if t.kind == "activation" and t.consumer and t.scales}
        self.rules: dict[str, Counter] = {}
        for v in a.violations:
            self.rules.setdefault(v.node, Counter())[v.rule] += 1

    def ops(self, g: ModuleGroup) -> list[str]:
        nodes = self.a.nodes
        return [n for n in g.nodes if nodes[n].kind == "call_function" and not nodes[n].op.startswith(_QDQ)]

    def member(self, g: ModuleGroup) -> BlockMember:
        macs = self.a.summary.node_macs if self.a.summary is not None else {}
        sqnr = [self.a.layer_sqnr[n] for n in g.nodes if self.a.layer_sqnr.get(n) is not None]
        return BlockMember(g.path, sum(macs.get(n, 0) for n in g.nodes), sum(1 for n in g.nodes if n in self.cpu),
                           sum(1 for n in g.nodes if n in self.starts), min(sqnr) if sqnr else None)

    def placements(self, ops: list[str]) -> tuple[str, ...]:
        """Each op's place: "cpu", or its subgraph numbered by first appearance in the block."""
        local: dict[int, int] = {}
        out = []
        for n in ops:
            sid = self.subgraph.get(n)
            if n in self.cpu or sid is None:
                out.append("cpu")
            else:
                out.append(f"vpu{local.setdefault(sid, len(local))}")
        return tuple(out)

    def rule_counts(self, g: ModuleGroup) -> Counter:
        total: Counter = Counter()
        for n in g.nodes:
            total.update(self.rules.get(n, {}))
        return total


def _blocks(view: _View, groups: list[ModuleGroup]) -> RepeatedBlocks | None:
    """The set of `groups` (siblings of one class), or None when fewer than two share a structure."""
    if len(groups) < 2:
        return None
    ops = {g.path: view.ops(g) for g in groups}
    shapes = {p: tuple(view.a.nodes[n].op for n in o) for p, o in ops.items()}
    structure, count = Counter(shapes.values()).most_common(1)[0]
    if count < 2 or len(structure) < 2:          # a single Linear repeated is no block
        return None
    same = [g for g in groups if shapes[g.path] == structure]
    members = tuple(view.member(g) for g in groups)
    differs = _verdicts(view, same, ops, {m.module: m for m in members})
    for g in groups:
        if shapes[g.path] != structure:
            differs[g.path] = [f"structure: {len(shapes[g.path])} ops, the template {len(structure)}"]
    deviating = tuple(Deviation(g.path, tuple(differs[g.path])) for g in groups if differs.get(g.path))
    return RepeatedBlocks(_template(groups), groups[0].cls, len(structure), members, deviating)


def _template(groups: list[ModuleGroup]) -> str:
    """The members' paths with the part that varies as "*": "model.layers.* (LlamaDecoderLayer)"."""
    parts = [g.path.split(".") for g in groups]
    if len({len(p) for p in parts}) == 1:
        path = ".".join(p[0] if len(set(p)) == 1 else "*" for p in zip(*parts))
    else:
        path = groups[0].path + " …"
    return f"{path} ({groups[0].cls})" if groups[0].cls else path


def _verdicts(view: _View, same: list[ModuleGroup], ops: dict[str, list[str]],
              members: dict[str, BlockMember]) -> dict[str, list[str]]:
    """What deviates in each member of one structure from the majority verdict."""
    places = {g.path: view.placements(ops[g.path]) for g in same}
    cuts = Counter(places.values()).most_common(1)[0][0]
    n_ops = len(cuts)
    majority_cpu = [Counter(places[g.path][i] == "cpu" for g in same).most_common(1)[0][0] for i in range(n_ops)]
    scales = [[view.scale.get(ops[g.path][i]) for g in same] for i in range(n_ops)]
    medians = [_median([s for s in col if s]) for col in scales]
    sqnr_median = _median([members[g.path].sqnr_db for g in same if members[g.path].sqnr_db is not None])
    rules = {g.path: view.rule_counts(g) for g in same}
    rule_ids = {r for c in rules.values() for r in c}
    rule_majority = {r: Counter(c[r] for c in rules.values()).most_common(1)[0][0] for r in rule_ids}
    out: dict[str, list[str]] = {}
    for g in same:
        mine, found = ops[g.path], []
        for i, n in enumerate(mine):
            on_cpu = places[g.path][i] == "cpu"
            if on_cpu and not majority_cpu[i]:
                reason = view.cpu[n].reason if n in view.cpu else "not in a VPU subgraph"
                found.append(f"CPU op {n} ({view.a.nodes[n].op}): {reason}")
            elif not on_cpu and majority_cpu[i]:
                found.append(f"on the VPU: {n} ({view.a.nodes[n].op}), on the CPU in the template")
        if not any(s.startswith(("CPU op", "on the VPU")) for s in found) and places[g.path] != cuts:
            found.append(f"partition cut: {_count(places[g.path])} subgraph(s), the template {_count(cuts)}")
        found += _scale_outliers(view, mine, medians)
        sqnr = members[g.path].sqnr_db
        if sqnr is not None and sqnr_median is not None and sqnr < sqnr_median - SQNR_WORSE_DB:
            found.append(f"worse SQNR: {sqnr:.1f} dB, the template's {sqnr_median:.1f} dB")
        for r in sorted(rule_ids):
            if rules[g.path][r] != rule_majority[r]:
                found.append(f"rule {r}: {rules[g.path][r]} violation(s), the template {rule_majority[r]}")
        if found:
            out[g.path] = found
    return out


def _median(values: list) -> float | None:
    return float(statistics.median(values)) if values else None


def _count(places: tuple[str, ...]) -> int:
    return len({p for p in places if p != "cpu"})


def _scale_outliers(view: _View, ops: list[str], medians: list[float | None]) -> list[str]:
    out = []
    for n, median in zip(ops, medians):
        scale = view.scale.get(n)
        if not scale or not median:
            continue
        ratio = scale / median
        if ratio >= SCALE_OUTLIER or ratio <= 1 / SCALE_OUTLIER:
            out.append(f"scale outlier: {n} ({view.a.nodes[n].op}) scale {scale:.3g}, "
                       f"{ratio:.3g}× the template's {median:.3g}")
    return out

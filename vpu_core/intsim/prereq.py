"""Can the VPU partitions of this graph run in integers at all? If not, which rule prevents it.

Integer simulation models a shift-only VPU. It handles zero points (through the zero-point
expansion) and differing power-of-two scales (through shifts), but it cannot requantize without
a power-of-two scale, cannot add a float bias in an integer accumulator, and keeps one scale per
activation tensor. Each rule that the simulation needs says so on itself (`int_sim_need`, and its
`int_sim_blocker` names what is in the way at a node: vpu_core.analysis.rules); the first broken
one, in rule order, is the one sentence the user sees. Only nodes of VPU subgraphs are looked at:
the CPU runs in float anyway.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from vpu_core.analysis.qgraph import QGraph
from vpu_core.analysis.results import Placement
from vpu_core.analysis.rules import RULES


@dataclass(frozen=True)
class Refusal:
    rule: str
    node: str
    sentence: str


def refusal(g: QGraph, assignment: Mapping[str, Placement]) -> Refusal | None:
    needed = [rule for rule in RULES if rule.int_sim_blocker is not None]
    found: dict[str, tuple[str, str]] = {}     # rule id -> its first node in graph order, detail
    for node in g.nodes:
        if assignment.get(node.name, "cpu") == "cpu" or node.op != "call_function":
            continue
        for rule in needed:
            blocker = rule.int_sim_blocker
            detail = blocker(g, node) if blocker is not None and rule.id not in found else ""
            if detail:
                found[rule.id] = (node.name, detail)
    for rule in needed:
        if rule.id in found:
            name, detail = found[rule.id]
            sentence = (f"Integer simulation needs {rule.info.int_sim_need}: rule {rule.id} "
                        f"({rule.info.title}) does not hold at {name} ({detail}).")
            return Refusal(rule.id, name, sentence)
    return None

"""A rule unit and the registry of them. One module per rule declares everything about it: its
RuleInfo (stable id — also its profile switch constraints.<id> —, constraint number, title, short
label, hardware reason, what-if name and verb, what integer simulation needs of it), its check on
the Q/DQ graph, what the VPU quantizer stops doing when a profile switches it off (`relaxes`), why
the integer simulation cannot run a VPU node while it is broken (`int_sim_blocker`), and, for the
what-if, why switching it off cannot change a given model (read from the float graph as the
quantizer sees it). Adding a rule is one module plus its tests, and its module in the registry
list (rules/__init__): the profile's [constraints] keys, the quantizer, the ablation, the integer
simulation's refusal, the profile editor, the reports and the window all read it from here."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterator

from vpu_core.analysis.qgraph import QGraph
from vpu_core.analysis.results import RuleInfo, Violation
from vpu_core.analysis.rules.quantizer_choices import QuantizerKnob

if TYPE_CHECKING:
    from torch.fx import GraphModule, Node

    from vpu_core.hardware.profile import HardwareProfile

CheckFn = Callable[[QGraph], list[Violation]]
# (float graph as the quantizer annotates it, profile) -> why relaxing the rule cannot change it ("": it can)
RelevanceFn = Callable[["GraphModule", "HardwareProfile"], str]
# (Q/DQ graph, a call_function node of a VPU subgraph) -> why integer arithmetic cannot run it
# while the rule is broken there ("": nothing in the way)
BlockerFn = Callable[[QGraph, "Node"], str]


@dataclass(frozen=True)
class Rule:
    info: RuleInfo
    check: CheckFn
    cannot_matter: RelevanceFn | None = None   # None: relaxing it may always change the model
    relaxes: tuple[QuantizerKnob, ...] = ()    # the quantizer's switches it turns off when relaxed
    int_sim_blocker: BlockerFn | None = None   # None: the integer simulation does not need it

    @property
    def id(self) -> str:
        return self.info.id

    def violation(self, node: str, message: str, **values: object) -> Violation:
        return Violation(self.info.id, node, message, tuple(values.items()))


class RuleRegistry:
    """Rules by stable id, in constraint order. Registering an id twice is a programming error."""

    def __init__(self) -> None:
        self._rules: dict[str, Rule] = {}

    def register(self, rule: Rule) -> Rule:
        if rule.id in self._rules:
            raise ValueError(f"duplicate rule id '{rule.id}'")
        self._rules[rule.id] = rule
        return rule

    def __iter__(self) -> Iterator[Rule]:
        return iter(sorted(self._rules.values(), key=lambda r: (r.info.constraint, r.id)))

    def __len__(self) -> int:
        return len(self._rules)

    def __contains__(self, rule_id: str) -> bool:
        return rule_id in self._rules

    def get(self, rule_id: str) -> Rule:
        return self._rules[rule_id]

    def infos(self) -> tuple[RuleInfo, ...]:
        return tuple(r.info for r in self)

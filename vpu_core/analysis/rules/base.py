"""A rule unit (id, title, constraint, hardware reason, check function) and the registry of them."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator

from vpu_core.analysis.qgraph import QGraph
from vpu_core.analysis.results import RuleInfo, Violation

CheckFn = Callable[[QGraph], list[Violation]]


@dataclass(frozen=True)
class Rule:
    info: RuleInfo
    check: CheckFn

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

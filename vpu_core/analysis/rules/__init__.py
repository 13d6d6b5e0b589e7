"""check_vpu: the seven hardware rules (constraints 2–8 of docs/spec.md), one unit per rule, in a registry.

Each rule module defines `RULE` (a `Rule`: RuleInfo with stable id, title, constraint number and
hardware reason, plus a check function reading only the Q/DQ graph). Rules switched off in the
hardware profile are reported with enabled=False and are not run.
"""
from __future__ import annotations

from vpu_core.analysis.qgraph import QGraph
from vpu_core.analysis.results import RuleResult, Violation
from vpu_core.analysis.rules import (
    act_per_tensor_symmetric, bias_int32, fused_relu, pow2_scale, shared_scale, static_shape,
    weight_per_channel_symmetric,
)
from vpu_core.analysis.rules.base import Rule, RuleRegistry

RULES = RuleRegistry()
for _module in (act_per_tensor_symmetric, weight_per_channel_symmetric, pow2_scale, bias_int32,
                shared_scale, fused_relu, static_shape):
    RULES.register(_module.RULE)


def check_vpu(g: QGraph) -> tuple[tuple[RuleResult, ...], tuple[Violation, ...]]:
    results, violations = [], []
    for rule in RULES:
        enabled = g.profile.enabled(rule.id)
        found = rule.check(g) if enabled else []
        results.append(RuleResult(rule.info, enabled, len(found)))
        violations.extend(found)
    return tuple(results), tuple(violations)


__all__ = ["RULES", "Rule", "RuleRegistry", "check_vpu"]

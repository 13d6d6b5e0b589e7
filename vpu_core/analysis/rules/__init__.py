"""check_vpu: the seven hardware rules (constraints 2–8 of docs/spec.md), one unit per rule, in a registry.

Each rule module defines `RULE` (a `Rule`, vpu_core.analysis.rules.base: RuleInfo with stable id,
title, constraint number and hardware reason, a check function reading only the Q/DQ graph, and
what the quantizer and the integer simulation need of it). Rules switched off in the hardware
profile are reported with enabled=False and are not run; `quantizer_choices(profile)` is what the
VPU quantizer does under that profile.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from vpu_core.analysis.qgraph import QGraph
from vpu_core.analysis.results import RuleResult, Violation
from vpu_core.analysis.rules import (
    act_per_tensor_symmetric, bias_int32, fused_relu, pow2_scale, shared_scale, static_shape,
    weight_per_channel_symmetric,
)
from vpu_core.analysis.rules.base import Rule, RuleRegistry
from vpu_core.analysis.rules.quantizer_choices import QuantizerChoices
from vpu_core.hardware.constraints import RULE_IDS

if TYPE_CHECKING:
    from vpu_core.hardware.profile import HardwareProfile

RULES = RuleRegistry()
for _module in (act_per_tensor_symmetric, weight_per_channel_symmetric, pow2_scale, bias_int32,
                shared_scale, fused_relu, static_shape):
    RULES.register(_module.RULE)
if tuple(r.id for r in RULES) != RULE_IDS:      # profiles name the rules without importing torch
    raise ImportError(f"the rule registry's ids {[r.id for r in RULES]} differ from vpu_core.hardware.constraints.RULE_IDS "
                      f"{list(RULE_IDS)}: name a new rule there too, in constraint order")


def check_vpu(g: QGraph) -> tuple[tuple[RuleResult, ...], tuple[Violation, ...]]:
    results, violations = [], []
    for rule in RULES:
        enabled = g.profile.enabled(rule.id)
        found = rule.check(g) if enabled else []
        results.append(RuleResult(rule.info, enabled, len(found)))
        violations.extend(found)
    return tuple(results), tuple(violations)


def quantizer_choices(profile: HardwareProfile) -> QuantizerChoices:
    """What the VPU quantizer does under `profile`: every switch on, less those that the rules the
    profile switches off relax."""
    choices = QuantizerChoices()
    for rule in RULES:
        if not profile.enabled(rule.id):
            choices = choices.relaxed(rule.relaxes)
    return choices


__all__ = ["RULES", "QuantizerChoices", "Rule", "RuleRegistry", "check_vpu", "quantizer_choices"]

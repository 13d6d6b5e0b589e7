"""The smallest set of fixes that reaches a goal SQNR, and its accuracy vs NPU-share curve.

Greedy over the predicted fixes: best gain per VPU MAC share given up first (a fix that costs no
share first of all, then by gain), each added to the set only if it gains on its own, the set
re-quantized for real after every addition (fixes do not add up: two layers kept in float may
share a boundary, a layer's error may be the one the next inherits). It stops when the goal is
reached or no fix is left. Each step is a point of the curve: SQNR against the VPU's MAC share.
"""
from __future__ import annotations

from vpu_core.config import RunConfig
from vpu_core.progress import NO_CONTEXT, RunContext
from vpu_core.sensitivity.options import with_fix
from vpu_core.sensitivity.predict import Predictor
from vpu_core.sensitivity.results import Fix, Outcome, SearchResult, SearchStep

MAX_STEPS = 8


def smallest_set(predictor: Predictor, baseline: Outcome, fixes: list[Fix], goal_db: float,
                 ctx: RunContext = NO_CONTEXT) -> SearchResult:
    steps = [SearchStep((), baseline)]
    if baseline.sqnr_db is not None and baseline.sqnr_db >= goal_db:
        return SearchResult(goal_db, True, tuple(steps), "the model reaches it without a fix")
    order = _order([f for f in fixes if (f.gain_db or 0.0) > 0.0], baseline)
    config, applied, seen = predictor.qm.config, list[str](), set[tuple[str, ...]]()
    for i, fix in enumerate(order[:MAX_STEPS]):
        ctx.report("search", i / max(min(len(order), MAX_STEPS), 1))
        if fix.args in seen or _conflicts(config, fix):
            continue
        seen.add(fix.args)
        config = with_fix(config, fix)
        applied.extend(fix.args)
        outcome = predictor.outcome(config)
        steps.append(SearchStep(tuple(applied), outcome))
        if outcome.sqnr_db is not None and outcome.sqnr_db >= goal_db:
            return SearchResult(goal_db, True, tuple(steps))
    why = "no fix gains" if not order else f"the {len(steps) - 1} fix(es) tried together stay below it"
    return SearchResult(goal_db, False, tuple(steps), why)


def _order(fixes: list[Fix], baseline: Outcome) -> list[Fix]:
    def key(f: Fix) -> tuple:
        lost = max(baseline.vpu_mac_share - f.predicted.vpu_mac_share, 0.0)
        return (lost > 1e-9, -(f.gain_db or 0.0) / max(lost, 1e-6) if lost > 1e-9 else -(f.gain_db or 0.0))
    return sorted(fixes, key=key)


def _conflicts(config: RunConfig, fix: Fix) -> bool:
    """The fix changes an op the set keeps in float already (or keeps one it changes otherwise)."""
    changed = {n for n in (*config.per_channel, *config.wide_activations, *(n for n, _ in config.observers))}
    if fix.change == "keep_float":
        return bool(changed & set(fix.nodes)) or set(fix.nodes) <= set(config.keep_float)
    return bool(set(config.keep_float) & set(fix.nodes))

"""A stage diff (vpu_core.stagediff.results.StageDiff) as text lines and as JSON ("stages")."""
from __future__ import annotations

import math
from typing import Any

from vpu_core.stagediff.results import StageDiff, StageValue


def stages_to_json(diff: StageDiff) -> dict[str, Any]:
    """The "stages" object of `check --stages --format json` and `diff --format json` (docs/spec.md)."""
    coverage = None
    if diff.runtime_coverage is not None:
        ops, total, operators, all_operators = diff.runtime_coverage
        coverage = {"ops": ops, "delegated_ops": total, "operators": operators, "all_operators": all_operators}
    return {
        "names": list(diff.names),
        "matched": {t: round(f, 4) for t, f in diff.matched},
        "nodes": [{"node": n.node, "module": n.module, "op": n.op, "boundary": n.boundary,
                   "values": {stage: _value(v) for stage, v in n.values}} for n in diff.nodes],
        "first_divergent": {t: {"node": d.node, "module": d.module, "op": d.op, "why": d.why, "boundary": d.boundary}
                            for t, d in diff.first_divergent},
        "unmatched": [{"node": u.node, "stage": u.stage, "why": u.why} for u in diff.unmatched],
        "calls": diff.calls, "runtime_coverage": coverage, "notes": list(diff.notes),
        "seconds": round(diff.seconds, 2),
    }


def _value(v: StageValue) -> dict[str, Any]:
    return {"sqnr_db": _round(v.sqnr_db, 2), "cosine": _round(v.cosine, 6), "max_abs_lsb": _round(v.max_abs_lsb, 2),
            "added_db": _round(v.added_db, 2), "added_lsb": _round(v.added_lsb, 2),
            "step_ratio": _round(v.step_ratio, 2), "placement": v.placement}


def _round(x: float | None, digits: int) -> float | None:
    return None if x is None or not math.isfinite(x) else round(x, digits)


def stages_lines(diff: StageDiff, limit: int | None = None) -> list[str]:
    """The text report: the stages, what was matched, the first divergent op of each transition,
    a row per node (at most `limit`, the divergent ones kept) and what was not matched."""
    later = diff.names[1:]
    lines = [f"Stages: {' → '.join(diff.names)}  ({diff.calls} held-aside call(s), {diff.seconds:.1f} s)"]
    lines.append("Matched: " + " · ".join(f"{t} {f:.0%} of the later stage's ops" for t, f in diff.matched))
    if diff.runtime_coverage is not None:
        ops, total, operators, all_operators = diff.runtime_coverage
        lines.append(f"Runtime values from inside the delegates: {ops} of {total} delegated ops; "
                     f"{operators} of {all_operators} XNNPACK operators (the other ops are fused into one)")
    lines += [f"note: {n}" for n in diff.notes]
    lines.append("First divergent op:")
    first = {}
    for t, d in diff.first_divergent:
        if d.node is None:
            lines.append(f"  {t}: none ({d.why})")
        else:
            first[d.node] = t
            lines.append(f"  {t}: {d.node} ({d.module or 'top level'} · {d.op}): {d.why}")
    header = f"{'node':<24} {'module':<26} {'op':<18}" + "".join(f" {s[:9] + ' SQNR':>14} {'added':>7} {'Δ LSB':>6}" for s in later)
    lines += ["", header + "  where"]
    nodes = list(diff.nodes)
    if limit is not None and len(nodes) > limit:
        keep = set(first) | {n.node for n in nodes[:limit]}
        nodes = [n for n in nodes if n.node in keep]
    for n in nodes:
        values = dict(n.values)
        cells = "".join(_cells(values.get(s)) for s in later)
        where = ", ".join(dict.fromkeys(v.placement for v in values.values() if v.placement))
        mark = f"  ◀ first divergent {first[n.node]}" if n.node in first else ""
        mark += "  (partition boundary)" if n.boundary else ""
        lines.append(f"{n.node[:24]:<24} {n.module[-26:]:<26} {n.op[:18]:<18}{cells}  {where}{mark}")
    if len(nodes) < len(diff.nodes):
        lines.append(f"… {len(diff.nodes) - len(nodes)} more node(s): --format json has them all")
    if diff.unmatched:
        lines += ["", f"Not matched ({len(diff.unmatched)}):"]
        lines += [f"  {u.node} ({u.stage}): {u.why}" for u in diff.unmatched]
    return lines


def _cells(v: StageValue | None) -> str:
    if v is None:
        return f" {'—':>14} {'':>7} {'':>6}"
    sqnr = "=" if v.sqnr_db is None else f"{v.sqnr_db:.1f} dB"
    added = "—" if v.added_db is None else f"{v.added_db:.1f}"
    lsb = "" if v.added_lsb is None else f"{v.added_lsb:.0f}"
    return f" {sqnr:>14} {added:>7} {lsb:>6}"

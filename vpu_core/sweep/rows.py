"""One summary row per run (SPEC: `sweep` summary rows), read from the run's `check --format json`.

Fields of SPEC.md: model, quantizer, profile, status ("ok" | "error" | "timeout"), reason,
vpu_mac_share, cpu_ops, cpu_ops_by_cause, subgraphs, rules_broken [rule ids], sqnr_db, seconds.
Added (never renamed): violations, cpu_ops_by_op, macs {total, vpu, cpu}, blockers (what keeps
CPU nodes off the VPU: op or limit -> nodes, MACs, cause), op_candidates (the run's next-kernel
ranking), spec (the model as given), profile_path, json / html (paths
in the sweep folder), key (the run's content key), cached (read from an earlier sweep).

The verdict fields come straight from the check JSON, so they equal a single `check` run's by
construction: rules_broken = rules with violations, cpu_ops = len(partition.cpu_nodes),
subgraphs = len(partition.subgraphs). The JSON's `summary` (vpu_mac_share, cpu_ops_by_cause) and
each CPU node's `cause` are used when present; older check JSON without them gets the same
numbers derived here (MACs from shapes, the cause from the reason text).
"""
from __future__ import annotations

from vpu_core.sweep.macs import MacBreakdown

STATUSES = ("ok", "error", "timeout")
SPEC_FIELDS = ("model", "quantizer", "profile", "status", "reason", "vpu_mac_share", "cpu_ops",
               "cpu_ops_by_cause", "subgraphs", "rules_broken", "sqnr_db", "seconds")


def cause_of(cpu_node: dict) -> str:
    """A CPU node's cause: the JSON's own when present, else read from its reason."""
    cause = cpu_node.get("cause")
    if cause:
        return str(cause)
    reason = str(cpu_node.get("reason", ""))
    if "tensor op:" in reason:
        return "dtype"
    if "float" in reason and "left in" in reason:
        return "float"
    return "op_list"


def verdict_fields(check: dict) -> dict:
    """The fields of a row that are the check's verdict (what `summary equality` compares)."""
    part = check["partition"]
    by_cause: dict[str, int] = {}
    by_op: dict[str, int] = {}
    for c in part["cpu_nodes"]:
        cause = cause_of(c)
        by_cause[cause] = by_cause.get(cause, 0) + 1
        by_op[c["op"]] = by_op.get(c["op"], 0) + 1
    summary = check.get("summary") or {}
    if isinstance(summary.get("cpu_ops_by_cause"), dict):     # the check's own, exactly (zeros too)
        by_cause = {k: int(v) for k, v in summary["cpu_ops_by_cause"].items()}
    return {
        "cpu_ops": len(part["cpu_nodes"]),
        "cpu_ops_by_cause": dict(sorted(by_cause.items())),
        "cpu_ops_by_op": dict(sorted(by_op.items(), key=lambda kv: (-kv[1], kv[0]))),
        "subgraphs": len(part["subgraphs"]),
        "rules_broken": [r["id"] for r in check["rules"] if r["violations"]],
        "violations": len(check["violations"]),
        "sqnr_db": check.get("sqnr_db"),
    }


def ok_row(base: dict, check: dict, macs: MacBreakdown | None, seconds: float) -> dict:
    """The row of a run that produced its check JSON."""
    summary = check.get("summary") or {}
    share = summary.get("vpu_mac_share")       # the check's own figure when it has one
    if share is None and macs is not None:
        share = _round(macs.vpu_share)
    row = {**base, "status": "ok", "reason": "", "vpu_mac_share": share,
           **verdict_fields(check), "seconds": round(seconds, 2)}
    row["macs"] = {"total": macs.total, "vpu": macs.vpu, "cpu": macs.cpu} if macs else None
    row["blockers"] = blockers(check, macs.cpu_by_node if macs else {})
    row["op_candidates"] = [
        {k: c.get(k) for k in ("op", "kind", "limit", "from", "to", "bytes_saved", "subgraphs_merged",
                               "cpu_nodes_left", "nodes_moved") if k in c}
        for c in check.get("op_candidates", [])]
    return _ordered(row)


def blocker_key(cpu_node: dict) -> str | None:
    """What keeps a CPU node off the VPU, as a fleet can count it: its op (not in the op list),
    the failing limit ("conv2d.kernel_max"), or "memory.sram_bytes"; None for nodes that are not
    VPU work at all (integer / bool index arithmetic) or that the quantizer left in float."""
    cause = cause_of(cpu_node)
    if cause == "op_list":
        return cpu_node["op"]
    if cause == "limit":
        return str(cpu_node.get("limit") or f"{cpu_node['op']} (limit)")
    if cause == "memory":
        return str(cpu_node.get("limit") or "memory.sram_bytes")
    return None


def blockers(check: dict, macs_by_node: dict) -> dict:
    """{blocker: {"nodes": n, "macs": CPU MACs of those nodes, "cause": cause}}, most MACs first."""
    out: dict[str, dict] = {}
    for c in check["partition"]["cpu_nodes"]:
        key = blocker_key(c)
        if key is None:
            continue
        entry = out.setdefault(key, {"nodes": 0, "macs": 0, "cause": cause_of(c)})
        entry["nodes"] += 1
        entry["macs"] += int(macs_by_node.get(c["node"], 0))
    return dict(sorted(out.items(), key=lambda kv: (-kv[1]["macs"], -kv[1]["nodes"], kv[0])))


def failed_row(base: dict, status: str, reason: str, seconds: float) -> dict:
    """The row of a run that crashed, timed out or raised: why, in one line."""
    assert status in ("error", "timeout")
    reason = " ".join(str(reason).split())
    row = {**base, "json": None, "html": None, "status": status, "reason": reason[:300], "vpu_mac_share": None, "cpu_ops": None,
           "cpu_ops_by_cause": {}, "subgraphs": None, "rules_broken": [], "sqnr_db": None,
           "seconds": round(seconds, 2), "violations": None, "cpu_ops_by_op": {}, "macs": None,
           "blockers": {}, "op_candidates": []}
    return _ordered(row)


def _round(x: float | None) -> float | None:
    return None if x is None else round(float(x), 4)


def _ordered(row: dict) -> dict:
    """SPEC fields first, in SPEC order, then the rest."""
    return {**{k: row.get(k) for k in SPEC_FIELDS}, **{k: v for k, v in row.items() if k not in SPEC_FIELDS}}

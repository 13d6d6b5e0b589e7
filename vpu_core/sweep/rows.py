"""One summary row per run (docs/spec.md, "The fleet: sweep"), read from the run's `check --format json`.

The specified fields, first and in this order: model, quantizer, profile, status ("ok" | "error" | "timeout"), reason,
vpu_mac_share, cpu_ops, cpu_ops_by_cause, subgraphs, rules_broken [rule ids], sqnr_db, seconds.
Added (never renamed): violations, cpu_ops_by_op, macs {total, vpu, cpu}, blockers (what keeps
CPU nodes off the VPU: op or limit -> nodes, MACs, cause), op_candidates (the run's next-kernel
ranking), spec (the model as given), profile_path, json / html (paths
in the sweep folder), key (the run's content key), cached (read from an earlier sweep).

The verdict fields come straight from the check JSON, so they equal a single `check` run's by
construction: rules_broken = rules with violations, cpu_ops = len(partition.cpu_nodes),
subgraphs = len(partition.subgraphs), vpu_mac_share / cpu_ops_by_cause / macs from its `summary`,
each blocker's cause and MACs from its CPU nodes' `cause` and `macs` (one MAC counter in the
project: vpu_core.analysis.macs).
"""
from __future__ import annotations

STATUSES = ("ok", "error", "timeout")
SPEC_FIELDS = ("model", "quantizer", "profile", "status", "reason", "vpu_mac_share", "cpu_ops",
               "cpu_ops_by_cause", "subgraphs", "rules_broken", "sqnr_db", "seconds")


def cause_of(cpu_node: dict) -> str:
    """A CPU node's cause, as the check JSON gives it (partition.cpu_nodes[].cause)."""
    return str(cpu_node.get("cause") or "op_list")


def verdict_fields(check: dict) -> dict:
    """The fields of a row that are the check's verdict (what `summary equality` compares)."""
    part = check["partition"]
    by_op: dict[str, int] = {}
    for c in part["cpu_nodes"]:
        by_op[c["op"]] = by_op.get(c["op"], 0) + 1
    summary = check.get("summary") or {}
    by_cause = {k: int(v) for k, v in (summary.get("cpu_ops_by_cause") or {}).items()}   # zeros too
    return {
        "cpu_ops": len(part["cpu_nodes"]),
        "cpu_ops_by_cause": dict(sorted(by_cause.items())),
        "cpu_ops_by_op": dict(sorted(by_op.items(), key=lambda kv: (-kv[1], kv[0]))),
        "subgraphs": len(part["subgraphs"]),
        "rules_broken": [r["id"] for r in check["rules"] if r["violations"]],
        "violations": len(check["violations"]),
        "sqnr_db": check.get("sqnr_db"),
    }


def ok_row(base: dict, check: dict, seconds: float) -> dict:
    """The row of a run that produced its check JSON."""
    summary = check.get("summary") or {}
    row = {**base, "status": "ok", "reason": "", "vpu_mac_share": summary.get("vpu_mac_share"),
           **verdict_fields(check), "seconds": round(seconds, 2)}
    total, vpu = summary.get("macs_total"), summary.get("macs_vpu")
    row["macs"] = {"total": total, "vpu": vpu, "cpu": total - vpu} if total is not None and vpu is not None \
        else None
    row["blockers"] = blockers(check)
    row["op_candidates"] = [
        {k: c.get(k) for k in ("op", "kind", "limit", "from", "to", "bytes_saved", "subgraphs_merged",
                               "cpu_nodes_left", "nodes_moved", "macs_moved") if k in c}
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


def blockers(check: dict) -> dict:
    """{blocker: {"nodes": n, "macs": CPU MACs of those nodes, "cause": cause}}, most MACs first."""
    out: dict[str, dict] = {}
    for c in check["partition"]["cpu_nodes"]:
        key = blocker_key(c)
        if key is None:
            continue
        entry = out.setdefault(key, {"nodes": 0, "macs": 0, "cause": cause_of(c)})
        entry["nodes"] += 1
        entry["macs"] += int(c.get("macs") or 0)
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


def _ordered(row: dict) -> dict:
    """The specified fields first, in their order (SPEC_FIELDS), then the rest."""
    return {**{k: row.get(k) for k in SPEC_FIELDS}, **{k: v for k, v in row.items() if k not in SPEC_FIELDS}}

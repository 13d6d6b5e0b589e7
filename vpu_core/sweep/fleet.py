"""Fleet aggregates over many runs: what blocks the most models, which kernel unblocks the most.

Per profile, each model counts once: its row under the sweep's first quantizer that ran (the
VPU quantizer when it was swept: what the VPU would be given), else its next.

- blockers: an op outside the op list, a failing per-op limit or the SRAM bound (rows' `blockers`)
  → models it keeps off the VPU, their CPU nodes, and the share of those models' CPU MACs that
  are its own nodes' ("layer_norm blocks 41 models, 38 % of their CPU MACs"; ops without
  multiply-accumulates, like layer_norm, block by the boundaries they cut, not by MACs).
- next kernels: the runs' op candidates (each CPU op added alone to the op list, re-partitioned;
  with per-op limits also each limit relaxed to a bound) summed over the models: what each really
  moves — nodes and MACs moved to the VPU (the candidate's own `macs_moved`: an attention that
  reads a bool mask stays on the CPU when its op is added, and moves nothing), boundary bytes
  saved, subgraphs merged —, ranked by MACs then bytes. A candidate that moves no node in a model
  does not count for that model.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Blocker:
    key: str                 # op name or limit ("conv2d.kernel_max")
    cause: str
    models: tuple[str, ...]
    nodes: int
    macs: int                # its CPU nodes' MACs, summed over those models
    models_cpu_macs: int     # all CPU MACs of those models

    @property
    def share_of_their_cpu_macs(self) -> float | None:
        return self.macs / self.models_cpu_macs if self.models_cpu_macs else None


@dataclass(frozen=True)
class KernelCandidate:
    op: str
    models: tuple[str, ...]
    macs_moved: int
    bytes_saved: int
    subgraphs_merged: int
    nodes_moved: int


def model_rows(rows: list[dict], profile: str, quantizers: tuple[str, ...]) -> dict[str, dict]:
    """One ok row per model under `profile`: the first quantizer (plan order) that ran."""
    out: dict[str, dict] = {}
    for q in quantizers:
        for row in rows:
            if row["profile"] == profile and row["quantizer"] == q and row["status"] == "ok":
                out.setdefault(row["model"], row)
    return out


def blockers(rows: list[dict], profile: str, quantizers: tuple[str, ...]) -> list[Blocker]:
    per_model = model_rows(rows, profile, quantizers)
    found: dict[str, dict] = {}
    for model, row in per_model.items():
        for key, b in (row.get("blockers") or {}).items():
            entry = found.setdefault(key, {"cause": b.get("cause", ""), "models": [], "nodes": 0, "macs": 0,
                                           "their": 0})
            entry["models"].append(model)
            entry["nodes"] += int(b.get("nodes", 0))
            entry["macs"] += int(b.get("macs", 0))
            entry["their"] += int((row.get("macs") or {}).get("cpu") or 0)
    out = [Blocker(k, e["cause"], tuple(e["models"]), e["nodes"], e["macs"], e["their"])
           for k, e in found.items()]
    return sorted(out, key=lambda b: (-len(b.models), -b.macs, -b.nodes, b.key))


def next_kernels(rows: list[dict], profile: str, quantizers: tuple[str, ...]) -> list[KernelCandidate]:
    per_model = model_rows(rows, profile, quantizers)
    found: dict[str, dict] = {}
    for model, row in per_model.items():
        for c in row.get("op_candidates") or []:
            if not c.get("nodes_moved"):        # on the CPU for another reason (its dtypes): no gain
                continue
            key = candidate_key(c)
            e = found.setdefault(key, {"models": [], "macs": 0, "bytes": 0, "merged": 0, "moved": 0})
            e["models"].append(model)
            e["macs"] += int(c.get("macs_moved") or 0)
            e["bytes"] += int(c.get("bytes_saved") or 0)
            e["merged"] += int(c.get("subgraphs_merged") or 0)
            e["moved"] += int(c.get("nodes_moved") or 0)
    out = [KernelCandidate(k, tuple(e["models"]), e["macs"], e["bytes"], e["merged"], e["moved"])
           for k, e in found.items()]
    return sorted(out, key=lambda c: (-c.macs_moved, -c.bytes_saved, -len(c.models), c.op))


def candidate_key(c: dict) -> str:
    """An op to add ("silu.default"), or a limit relaxed to a bound ("conv2d.kernel_max → [5, 5]":
    different bounds are different proposals)."""
    if c.get("limit"):
        return f"{c['limit']} → {c.get('to')}" if c.get("to") is not None else str(c["limit"])
    return str(c.get("op"))


def fleet_json(rows: list[dict], profiles: tuple[str, ...], quantizers: tuple[str, ...]) -> dict:
    """summary.json's "fleet": per profile, the blockers and the next kernels."""
    out = {}
    for p in profiles:
        out[p] = {
            "models": len(model_rows(rows, p, quantizers)),
            "blockers": [{"blocker": b.key, "cause": b.cause, "models": len(b.models), "nodes": b.nodes,
                          "cpu_macs": b.macs, "share_of_their_cpu_macs": _r(b.share_of_their_cpu_macs),
                          "model_names": list(b.models)} for b in blockers(rows, p, quantizers)],
            "next_kernels": [{"op": c.op, "models": len(c.models), "macs_moved": c.macs_moved,
                              "bytes_saved": c.bytes_saved, "subgraphs_merged": c.subgraphs_merged,
                              "nodes_moved": c.nodes_moved} for c in next_kernels(rows, p, quantizers)],
        }
    return out


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)

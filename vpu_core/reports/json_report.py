"""`check --format json`: the Analysis and what is attached to it (vpu_core.inspection.Attached),
flattened into the stable schema of docs/spec.md (add keys, never rename)."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

import math

from vpu_core.analysis.results import Analysis, CpuNode, NodeInfo, PartitionReport, Summary
from vpu_core.inspection import NOTHING_ATTACHED, Attached
from vpu_core.stages import JSON_TIMING_KEYS

if TYPE_CHECKING:
    from vpu_core.inspection import Inspection
    from vpu_core.reports.headline import TargetHeadline
    from vpu_core.targets.results import RuntimeReport, TargetResult
    from vpu_core.whatif.results import AblationReport, Economics, OpCandidate

# 2: the primary target leads (`primary_target`, `summary.target` …, `targets[*].cpu_nodes` without
# the ops folded away while lowering, which moved to `removed_nodes`); every key of 1 is kept.
SCHEMA_VERSION = 2


def analysis_to_json(a: Analysis, attached: Attached = NOTHING_ATTACHED) -> dict:
    """`a` and `attached` in one object: the attached results at their keys beside the analysis'
    (op_candidates, economics; int_sim, runtime, timing when there)."""
    out = {
        "schema": SCHEMA_VERSION,
        "model": a.model,
        "quantizer": a.quantizer,
        "already_quantized": a.already_quantized,     # a program file: `quantizer` is its record
        "dynamic_batch": a.dynamic_batch,
        "inputs": [{"name": i.name, "shape": list(i.shape), "dtype": i.dtype,
                    "dynamic_dims": list(i.dynamic_dims)} for i in a.inputs],
        "rules": [{"id": r.rule.id, "title": r.rule.title, "reason": r.rule.reason,
                   "violations": r.violations, "enabled": r.enabled, "constraint": r.rule.constraint}
                  for r in a.rules],
        "violations": [{"rule": v.rule, "node": v.node, "message": v.message,
                        "values": dict(v.values)} for v in a.violations],
        "partition": partition_to_json(a.partition),
        "requant": [{"node": s.node, "shifts": list(s.shifts) if s.shifts is not None else None,
                     "exact": s.exact, "nearest_shifts": list(s.nearest_shifts),
                     "max_rel_error": s.max_rel_error, "out_of_range": s.out_of_range}
                    for s in a.requant],
        "tensors": [{"node": t.node, "kind": t.kind, "dtype": t.dtype, "scales": list(t.scales),
                     "zero_points": list(t.zero_points), "consumer": t.consumer,
                     "float_scales": list(t.float_scales)} for t in a.tensors],
        "sqnr_db": a.sqnr_db,
        "sqnr_reason": a.sqnr_reason or None,   # why sqnr_db is null
        "sqnr_samples": a.accuracy_samples,     # samples the SQNR figures (end to end, per layer) rest on
        "layer_sqnr_db": dict(a.layer_sqnr),
        "graph": {"nodes": [{"name": n.name, "op": n.op, "target": n.target} for n in a.nodes.values()],
                  "edges": [list(e) for e in a.edges]},
        "xnnpack_delegation": partition_to_json(attached.delegation) if attached.delegation else None,
        "timings_s": {k: round(float(a.timings_s.get(k, 0.0)), 4) for k in JSON_TIMING_KEYS},
        "groups": groups_to_json(a),
        "repeated_blocks": repeated_blocks_to_json(a),
        "shared_scales": [{"id": g.id, "ops": list(g.ops), "shared": g.shared,
                           "members": [{"tensor": m.tensor, "producer": m.producer,
                                        "scales": list(m.scales), "zero_points": list(m.zero_points)}
                                       for m in g.members]} for g in a.scale_groups],
        "op_candidates": op_candidates_to_json(attached.op_candidates),
        "economics": economics_to_json(attached.economics),
        "summary": summary_to_json(a.summary),
        "notes": [{"kind": n.kind, "node": n.node or None, "message": n.message,
                   "values": {k: x for k, x in n.values}} for n in a.notes],
    }
    if attached.int_sim is not None:                                # check --int-sim
        from vpu_core.reports.int_sim import int_sim_to_json

        out["int_sim"] = int_sim_to_json(attached.int_sim)
    if attached.runtime is not None:                                # check --run
        from vpu_core.reports.runtime import runtime_to_json

        out["runtime"] = runtime_to_json(attached.runtime)
    if attached.timing is not None:
        from vpu_core.reports.timing import timing_to_json

        out["timing"] = timing_to_json(attached.timing)
    return finite(out)


def inspection_to_json(inspection: Inspection, runs: Mapping[str, RuntimeReport] | None = None) -> dict:
    """What `check --format json` prints (and a sweep saves per run): the analysis and what is
    attached, the primary target (the first judged, else the VPU) and its `summary`, and every
    judged target with its run (`runs`, check --run)."""
    from vpu_core.reports.headline import primary_result

    a = inspection.analysis
    primary = primary_result(inspection)
    return {**analysis_to_json(a, inspection.attached), "primary_target": primary.target,
            "summary": primary_summary_to_json(a, primary),
            "targets": targets_to_json(inspection.targets, runs, a.nodes, a)}


def targets_to_json(results: Mapping[str, TargetResult], runs: Mapping[str, RuntimeReport] | None = None,
                    nodes: Mapping[str, NodeInfo] | None = None, analysis: Analysis | None = None) -> dict:
    """`targets`: each target asked for (vpu_core.targets), by name: its CPU nodes with their
    cause (and what the target said, `detail`, when it says more), its number of subgraphs, its
    estimate (null when it has no cost model); with `check --run`, each target's `run` (the
    `runtime` object of its run, or the sentence saying why it cannot run here) and, for an
    estimate that places a measured CPU side beside itself (Ethos-U), the `split` in time. With
    `analysis`, each entry also has its headline (headline_to_json: partitions, cpu_ops, mac_share,
    ok, verdict). `timings_s`: its stages this run (a lowering's to_edge, tosa, vela, …), `from_cache`
    whether it was read from the cache instead."""
    from vpu_core.reports.headline import headline_of

    out = {}
    for name, r in results.items():
        entry = {"title": r.title, "subgraphs": len(r.verdict.subgraphs),
                 "cpu_nodes": [_target_cpu_node(c) for c in r.verdict.fallback_nodes],
                 "removed_nodes": [_target_cpu_node(c) for c in r.verdict.removed_nodes],
                 "estimate": estimate_to_json(r.estimate),
                 # seconds by stage of what this run did to judge it ({} when read from the cache)
                 "timings_s": {} if r.cached else {k: round(v, 4) for k, v in r.timings_s.items()},
                 "from_cache": r.cached}
        if analysis is not None:
            entry.update(headline_to_json(headline_of(r, analysis)))
        run = (runs or {}).get(name)
        if run is not None:
            from vpu_core.reports.runtime import runtime_to_json

            entry["run"] = runtime_to_json(run)
            split = target_split(r, run, nodes or {})
            if split is not None:
                entry["split"] = split.to_json()
        out[name] = entry
    return finite(out)


def target_split(r: TargetResult, run: RuntimeReport, nodes: Mapping[str, NodeInfo]) -> Any:
    """The target's estimate beside its measured CPU side (an estimate's `split`), or None."""
    split = getattr(r.estimate, "split", None)
    return split(nodes, r.verdict, run) if callable(split) and run.ops else None


def _target_cpu_node(c: Any) -> dict:
    out = {"node": c.node, "op": c.op, "reason": c.reason, "cause": c.cause}
    if c.detail:
        out["detail"] = dict(c.detail)
    return out


def estimate_to_json(e: Any) -> dict | None:
    """A target's estimate by its common face (vpu_core.targets.protocol.Estimate), and its own
    fields when it has more to say (`to_json`: Vela's totals, partitions and per-node figures,
    whose `per_node` then holds each node's figures instead of the one number)."""
    if e is None:
        return None
    common = {"unit": e.unit, "total": e.total, "label": e.label, "per_node": e.per_node()}
    own = getattr(e, "to_json", None)
    return {**common, **own()} if callable(own) else common


def finite(x: Any) -> Any:
    """`x` with every inf / NaN float (a scale of a tensor holding a mask constant, anywhere in
    the report) replaced by null: JSON has no Infinity, and every consumer must parse the output."""
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [finite(v) for v in x]
    return x


def headline_to_json(h: TargetHeadline) -> dict:
    """A target's verdict on the whole model (docs/spec.md, "Summary numbers"): the primary's is
    the JSON `summary`'s `target` … `verdict`, every target's is in its `targets` entry."""
    return {"target": h.target, "accelerator": h.accelerator, "partitions": h.partitions,
            "cpu_ops": h.cpu_ops, "removed_ops": h.removed_ops, "rule_violations": h.rule_violations,
            "mac_share": h.mac_share, "macs_on_target": h.macs_on, "ok": h.ok, "verdict": h.sentence()}


def primary_summary_to_json(a: Analysis, primary: TargetResult) -> dict:
    """`summary`: the primary target's headline beside the VPU's numbers of schema 1 (kept)."""
    from vpu_core.reports.headline import headline_of

    return {**(summary_to_json(a.summary) or {}), **headline_to_json(headline_of(primary, a))}


def summary_to_json(s: Summary | None) -> dict | None:
    """The headline numbers (docs/spec.md, "Summary numbers"): MAC share on the VPU, weights quantized, CPU ops by cause."""
    if s is None:
        return None
    return {"vpu_mac_share": s.vpu_mac_share, "weights_quantized": s.weights_quantized,
            "weights_total": s.weights_total, "cpu_ops_by_cause": dict(s.cpu_ops_by_cause),
            "macs_total": s.macs_total, "macs_vpu": s.macs_vpu, "weighted_ops_on_vpu": s.weighted_on_vpu}


def groups_to_json(a: Analysis) -> list[dict]:
    """The module hierarchy: one entry per module call, parents before children; `nodes` are
    the graph nodes directly or transitively inside (Q/DQ with the op they quantize for)."""
    from vpu_core.analysis.hierarchy import module_tree

    tree = module_tree(a)
    ordered = []

    def visit(path: str) -> None:
        g = tree.groups[path]
        ordered.append({"path": g.path, "class": g.cls, "parent": g.parent, "nodes": list(g.nodes)})
        for child in g.children:
            visit(child)

    for top in tree.top_level():
        visit(top)
    return ordered


def repeated_blocks_to_json(a: Analysis) -> list[dict]:
    """Sets of repeated blocks (vpu_core.analysis.repeated): the template, every member with its
    figures (their sums are the graph's), and the members that deviate with what deviates."""
    from vpu_core.analysis.repeated import repeated_blocks

    return [{"template": r.template, "class": r.cls, "ops": r.ops, "folded": r.folded,
             "members": [{"module": m.module, "macs": m.macs, "cpu_ops": m.cpu_ops,
                          "partitions": m.partitions, "sqnr_db": m.sqnr_db} for m in r.members],
             "deviating": [{"module": d.module, "differs": list(d.differs)} for d in r.deviating]}
            for r in repeated_blocks(a)]


def op_candidates_to_json(candidates: tuple[OpCandidate, ...]) -> list[dict]:
    return [{"op": c.op, "subgraphs_merged": c.subgraphs_merged, "bytes_saved": c.bytes_saved,
             "cpu_nodes_left": c.cpu_nodes_left, "nodes_moved": c.nodes_moved,
             "new_subgraphs": c.new_subgraphs, "subgraphs_after": c.subgraphs_after,
             "transfer_bytes_after": c.transfer_bytes_after, "kind": c.kind,
             "limit": c.limit or None, "from": c.bound_from, "to": c.bound_to,
             "macs_moved": c.macs_moved}
            for c in candidates]


def economics_to_json(e: Economics | None) -> dict | None:
    if e is None:
        return None
    return {"break_even_bytes_per_mac": e.break_even_bytes_per_mac,
            "subgraphs": [{"subgraph": s.subgraph, "ops": s.ops, "macs": s.macs, "bytes_in": s.bytes_in,
                           "bytes_out": s.bytes_out, "bytes_per_mac": s.bytes_per_mac,
                           "pays": s.pays} for s in e.subgraphs]}


def ablation_to_json(report: AblationReport) -> list[dict]:
    """`check --ablate`: one entry per rule id (vpu_core.whatif.results.AblationReport)."""
    return finite([{"constraint": e.constraint, "number": e.number, "title": e.title,
                    "sqnr_db": e.sqnr_db, "delta_db": e.delta_db,
                    "delta_se_db": e.delta_se_db, "within_noise": e.within_noise,
                    "layers": [{"node": g.node, "delta_db": g.delta_db} for g in e.layers],
                    "violations": e.violations, "violations_by_rule": dict(e.violations_by_rule),
                    "partition": {"subgraphs": e.subgraphs, "cpu_nodes": e.cpu_nodes,
                                  "transfer_bytes": e.transfer_bytes},
                    "reason": e.reason or None, "seconds": round(e.seconds, 3)} for e in report.entries])


def partition_to_json(p: PartitionReport) -> dict:
    return {
        "profile": p.profile, "source": p.source, "vpu_ops": list(p.vpu_ops),
        "subgraphs": [{"id": s.id, "nodes": list(s.nodes)} for s in p.subgraphs],
        "cpu_nodes": [cpu_node_to_json(c) for c in p.fallback_nodes],
        "removed_nodes": [cpu_node_to_json(c) for c in p.removed_nodes],
        "boundaries": [{"src": b.src, "dst": b.dst, "direction": b.direction, "bytes": b.bytes,
                        "shape": list(b.shape), "dtype": b.dtype} for b in p.boundaries],
        "transfer_bytes": p.transfer_bytes,
        "aliases": [{"node": n, "runs_as": text} for n, text in p.aliases.items()],
    }


def cpu_node_to_json(c: CpuNode) -> dict:
    """One CPU op: why (`cause`), and for a limit the first failing one with its offending value
    and bound (`limit`, `value`, `bound`) plus all failing limits in order (`limits`)."""
    first = c.limits[0] if c.limits else None
    return {"node": c.node, "op": c.op, "reason": c.reason, "cause": c.cause,
            "limit": first.limit if first else None,
            "value": first.value if first else None,
            "bound": first.bound if first else None,
            "limits": [{"limit": f.limit, "value": f.value, "bound": f.bound,
                        "text": f.text} for f in c.limits],
            "runs_as": c.runs_as or None, "macs": c.macs,
            "detail": dict(c.detail)}

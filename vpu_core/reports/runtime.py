"""A run on ExecuTorch's runtime in the reports: the JSON object of `check --run` and the text lines.

JSON (docs/spec.md, "A run on this CPU"; keys that say what was run and how included):
  "runtime": {"backend": "xnnpack", "latency_ms": {"median", "p10", "p90", "runs", …} | null,
              "sqnr_vs_float_db": float|null, "sqnr_vs_qdq_db": float|null,
              "ops": [{"node", "us", "kernels", "delegate"}], "delegates": [...], "outputs": [...],
              "refused": str|null, "refused_op": str|null, …}
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from vpu_core.formatting import count_text, db_text, human_bytes, time_text

if TYPE_CHECKING:
    from vpu_core.targets.results import RuntimeReport

TOP_OPS = 5


def runtime_to_json(r: RuntimeReport) -> dict:
    """Floats as measured: json_report.analysis_to_json maps inf / NaN to null (`finite`)."""
    lat = r.latency
    return {
        "backend": r.backend,
        "latency_ms": None if lat is None else {
            "median": lat.median_ms, "p10": lat.p10_ms, "p90": lat.p90_ms,
            "runs": lat.runs, "warmup": lat.warmup, "min": lat.min_ms, "max": lat.max_ms},
        "sqnr_vs_float_db": r.sqnr_vs_float_db,
        "sqnr_vs_qdq_db": r.sqnr_vs_qdq_db,
        "sqnr_vs_float_reason": r.sqnr_vs_float_reason or None,
        "sqnr_vs_qdq_reason": r.sqnr_vs_qdq_reason or None,
        "outputs_identical": r.outputs_identical,
        "ops": [{"node": o.node, "us": o.us, "kernels": list(o.kernels), "delegate": o.delegate,
                 "overhead_us": o.overhead_us} for o in r.ops],
        "delegates": [{"delegate": d.delegate, "instruction": d.instruction, "us": d.us,
                       "ops_us": d.ops_us, "ops": d.ops, "nodes": list(d.nodes)} for d in r.delegates],
        "outputs": [{"shape": list(o.shape), "dtype": o.dtype, "sha256": o.sha256, "sum": o.sum,
                     "abs_max": o.abs_max} for o in r.outputs],
        "profiled_runs": r.profiled_runs,
        "runtime": r.runtime, "threads": r.threads, "graph": r.graph_kind,
        "program_bytes": r.program_bytes, "portable_ops": list(r.portable_ops),
        "folded_biases": r.folded_biases,
        "lowering_s": round(r.lowering_s, 3), "seconds": round(r.seconds, 3),
        "refused": r.refused, "refused_op": r.refused_op, "refused_node": r.refused_node,
        "max_lsb_diff": r.max_lsb_diff, "differing_share": r.differing_share,
    }


def runtime_lines(r: RuntimeReport) -> list[str]:
    """The text report's section: latency and SQNR, the slowest ops, the delegates."""
    if r.refused:
        return [f"Run on this CPU refused: {r.refused}"]
    lat = r.latency
    head = (f"Run on this CPU ({r.runtime}, XNNPACK, {count_text(r.threads, 'thread')}; "
            f"lowered: {r.graph_kind}; {human_bytes(r.program_bytes)} program): ")
    lines = [head + (f"latency median {_ms(lat.median_ms)} (p10 {_ms(lat.p10_ms)}, p90 {_ms(lat.p90_ms)}; "
                     f"{lat.runs} runs after {lat.warmup} warm-up)" if lat else "no latency")]
    lines.append(f"  SQNR vs float {_db(r.sqnr_vs_float_db, r.sqnr_vs_float_reason)} · "
                 f"vs the Q/DQ graph {_db(r.sqnr_vs_qdq_db, r.sqnr_vs_qdq_reason)}")
    if r.ops:
        lines.append(f"  Slowest ops (per inference: ETDump time, mean of the middle half of {r.profiled_runs} "
                     "profiled runs, + the node's share of its delegate's overhead):")
        for o in r.slowest(TOP_OPS):
            where = f"delegate {o.delegate}" if o.delegate is not None else "portable kernel"
            lines.append(f"    {o.node:<32} {time_text(o.total_us):>10}  {where}: {', '.join(o.kernels)}")
    for d in r.delegates:
        lines.append(f"  XNNPACK delegate {d.delegate}: {time_text(d.us)} per call, "
                     f"{count_text(d.ops, 'operator')} account for {time_text(d.ops_us)} "
                     f"({count_text(len(d.nodes), 'graph node')})")
    if r.portable_ops:
        lines.append(f"  Outside XNNPACK (portable kernels): {', '.join(r.portable_ops)}")
    return lines


def _ms(ms: float) -> str:
    return time_text(ms * 1e3)


def _db(value: float | None, reason: str) -> str:
    return db_text(value) if value is not None else f"n/a ({reason})"

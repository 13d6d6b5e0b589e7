"""Integer simulation in the reports: the JSON object of `check --int-sim` and the text summary.

JSON (docs/spec.md, "Integer simulation"; keys that say how it was simulated included):
  "int_sim": {"sqnr_db": float|null, "layers": [{"node", "max_abs_lsb", "mismatch_frac",
              "saturated", …}], "refused": str|null, "rule": str|null, "rounding": str, …}
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from vpu_core.formatting import count_text, db_text, percent_text

if TYPE_CHECKING:
    from vpu_core.intsim.results import IntSimLayer, IntSimReport


def int_sim_to_json(r: IntSimReport) -> dict:
    """Floats as computed: json_report.analysis_to_json maps inf / NaN to null (`finite`)."""
    return {
        "sqnr_db": r.sqnr_db,
        "layers": [layer_to_json(la) for la in r.layers],
        "sqnr_vs_qdq_db": r.sqnr_vs_qdq_db,
        "outputs_identical": r.outputs_identical,
        "qdq_sqnr_db": r.qdq_sqnr_db,
        "max_abs_lsb": r.max_abs_lsb,
        "saturated": r.saturated,
        "rounding": r.rounding,
        "accumulator_bits": r.accumulator_bits,
        "avg_pool_divisor": r.avg_pool_divisor,
        "reciprocal_bits": r.reciprocal_bits,
        "float_ops": list(r.float_ops),
        "refused": r.refused,
        "rule": r.refused_rule,
        "seconds": round(r.seconds, 4),
    }


def layer_to_json(la: IntSimLayer) -> dict:
    return {
        "node": la.node, "max_abs_lsb": la.max_abs_lsb, "mismatch_frac": la.mismatch_frac,
        "saturated": la.saturated, "op": la.op, "nodes": list(la.nodes), "elements": la.elements,
        "clipped": la.clipped, "diff_hist": [list(p) for p in la.diff_hist],
        "drift_max_lsb": la.drift_max_lsb, "drift_mismatch_frac": la.drift_mismatch_frac,
        "window": la.window, "flags": list(la.flags),
    }


def int_sim_lines(r: IntSimReport) -> list[str]:
    """The text report's summary: one line (plus one per flagged layer)."""
    if r.refused:
        return [f"Integer simulation refused: {r.refused}"]
    layers = r.layers
    differing = sum(1 for la in layers if la.max_abs_lsb)
    elements = sum(la.elements for la in layers)
    mismatched = sum(la.mismatch_frac * la.elements for la in layers)
    share = percent_text(mismatched / elements if elements else 0.0)
    lines = [f"Integer simulation ({r.rounding}, {r.accumulator_bits}-bit accumulator): "
             f"{count_text(len(layers), 'VPU layer')}, max {r.max_abs_lsb} LSB from the Q/DQ graph "
             f"({count_text(differing, 'layer')} differing, {share} of elements), "
             f"{count_text(r.saturated, 'accumulator saturation')}; SQNR int vs float {db_text(r.sqnr_db)} (Q/DQ {db_text(r.qdq_sqnr_db)}), "
             f"int vs Q/DQ {'identical' if r.outputs_identical else db_text(r.sqnr_vs_qdq_db)}"]
    for la in layers:
        if "non_pow2_window" in la.flags:
            lines.append(f"  {la.node}: average over {la.window} values (not 2^k) divided by "
                         f"{r.avg_pool_divisor}; max {la.max_abs_lsb} LSB")
    if r.float_ops:
        lines.append(f"  no integer kernel, ran in float: {', '.join(r.float_ops)}")
    return lines

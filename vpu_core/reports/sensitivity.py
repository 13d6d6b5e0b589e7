"""`check --sensitivity`: the SensitivityReport as JSON (`sensitivity`, add keys, never rename) and
as the text report's section (docs/spec.md, "Accuracy: sensitivity and fixes")."""
from __future__ import annotations

import dataclasses

from vpu_core.formatting import db_text, human_bytes, time_text
from vpu_core.reports.json_report import finite
from vpu_core.sensitivity.results import (USEFUL_GAIN_DB, Fix, LayerSensitivity, Outcome, SensitivityReport,
                                          TargetOutcome)

TOP_ROWS = 10       # layers the text report lists (the JSON has all)
CHANGE_TEXT = {"keep_float": "keep an op in float (--keep-float)", "per_channel": "per-channel weights (--per-channel)",
               "observer": "another observer (--observer)", "wide_activation": "16-bit activations (--a16w8)"}


def outcome_to_json(o: Outcome) -> dict:
    return {"sqnr_db": o.sqnr_db, "metric": o.metric, "cpu_ops": o.cpu_ops, "subgraphs": o.subgraphs,
            "boundary_bytes": o.boundary_bytes, "vpu_mac_share": o.vpu_mac_share, "time_us": o.time_us,
            "sqnr_reason": o.sqnr_reason or None,
            "targets": {t.target: {"cpu_ops": t.cpu_ops, "subgraphs": t.subgraphs, "boundary_bytes": t.boundary_bytes,
                                   "mac_share": t.mac_share, "estimate": t.estimate, "unit": t.unit or None,
                                   "label": t.label or None} for t in o.targets}}


def fix_to_json(f: Fix) -> dict:
    return {"node": f.node, "change": f.change, "nodes": list(f.nodes), "detail": f.detail,
            "predicted": outcome_to_json(f.predicted), "gain_db": f.gain_db, "metric_gain": f.metric_gain,
            "args": list(f.args), "seconds": round(f.seconds, 3)}


def sensitivity_to_json(r: SensitivityReport) -> dict:
    search = None
    if r.search is not None:
        search = {"goal_db": r.search.goal_db, "reached": r.search.reached, "reason": r.search.reason or None,
                  "steps": [{"args": list(s.fixes), **outcome_to_json(s.outcome)} for s in r.search.steps]}
    return finite({
        "model": r.model, "quantizer": r.quantizer, "offers": list(r.offers),
        "samples": r.samples, "ranking_samples": r.ranking_samples, "calibration_samples": r.calibration_samples,
        "baseline": outcome_to_json(r.baseline),
        "metric": {"name": r.metric_name, "float": r.metric_float, "quantized": r.baseline.metric}
        if r.metric_name else None,
        "layers": [dataclasses.asdict(row) for row in r.layers],
        "fixes": [fix_to_json(f) for f in r.fixes],
        "no_fix_helps": r.no_fix_helps,
        "search": search,
        "seconds": round(r.seconds, 3), "timings_s": dict(r.timings_s),
    })


def sensitivity_lines(r: SensitivityReport) -> list[str]:
    b = r.baseline
    lines = [f"Sensitivity ({r.samples} held-out sample(s) behind the end-to-end figures, "
             f"{r.ranking_samples or r.samples} behind the layer ranking; calibrated on "
             f"{r.calibration_samples}): end to end {db_text(b.sqnr_db)}"
             + (f", {r.metric_name} {_metric(r.metric_float)} float → {_metric(b.metric)} quantized"
                if r.metric_name else ""),
             f"  The {r.quantizer} quantizer offers: {', '.join(CHANGE_TEXT[c] for c in r.offers)}."]
    lines.append(f"  rank  {'layer (module)':<{LAYER_WIDTH}} local   cumul.  weights  activ.  share  alone")
    for row in [x for x in r.layers if x.kind == "op"][:TOP_ROWS]:
        share = f"{100 * row.error_share:5.1f}%" if row.error_share is not None else "    —"
        lines.append(f"  {row.rank or '—':>4}  {layer_name(row)[:LAYER_WIDTH - 1]:<{LAYER_WIDTH - 1}} "
                     f"{_db(row.local_db)} {_db(row.cumulative_db)} "
                     f"{_db(row.weight_db)}  {_db(row.activation_db)} {share} {_db(row.alone_db)}")
    lines += ranking_notes(r)
    out = next((x for x in r.layers if x.kind == "output"), None)
    if out is not None:
        lines.append(f"  model output: {db_text(out.cumulative_db)} (its last quantizer alone: {db_text(out.local_db)})")
    if r.fixes:
        lines.append("  Fixes (predicted by quantizing each for real):")
        for f in r.fixes:
            lines.append(f"    {' '.join(f.args):<44} {fix_trade(f, b)}")
        if r.no_fix_helps:
            lines.append(no_fix_helps_text(r))
    if r.search is not None:
        s = r.search
        verdict = "reached" if s.reached else f"not reached ({s.reason})"
        lines.append(f"  Smallest set of fixes for {s.goal_db:.1f} dB: {verdict}")
        for step in s.steps:
            o = step.outcome
            lines.append(f"    {' '.join(step.fixes) or '(no fix)':<44} {db_text(o.sqnr_db)}, "
                         f"VPU MAC share {100 * o.vpu_mac_share:.1f} %, {o.cpu_ops} CPU ops, {o.subgraphs} subgraphs")
    return lines


LAYER_WIDTH = 46


def layer_name(row: LayerSensitivity) -> str:
    """"linear_11 · encoder.layer.3.output.dense": the node and the module it belongs to, so a
    ranked layer is found in the model's code, not only in the graph."""
    return f"{row.node} · {row.module}" if row.module else row.node


def ranking_notes(r: SensitivityReport) -> list[str]:
    """Why the ranking reads as it does: it is by share of the end-to-end error, not by local
    SQNR (a layer whose own rounding is large can barely reach the output); and why the shares do
    not add up to 100 % (first-order projections of correlated errors)."""
    ops = [x for x in r.layers if x.kind == "op" and x.error_share is not None]
    lines = []
    inverted = [x for x in ops if x.local_db is not None and x.error_share is not None and x.error_share < 0.01
                and any(y.local_db is not None and y.local_db > x.local_db and (y.rank or 0) < (x.rank or 0) for y in ops)]
    if inverted:
        x = min(inverted, key=lambda row: row.local_db if row.local_db is not None else 0.0)
        lines.append(f"  Ranked by share of the end-to-end error, not by local SQNR: {layer_name(x)} distorts its "
                     f"own output to {db_text(x.local_db)} yet carries {100 * (x.error_share or 0.0):.1f} % of the "
                     "model's output error (what it gets wrong is absorbed downstream: a mask, a small residual "
                     "branch, a normalisation or a max).")
    total = sum(x.error_share or 0.0 for x in ops)
    if ops and abs(total - 1.0) > 0.05:
        lines.append(f"  The shares add up to {100 * total:.0f} %, not 100 %: each is a first-order projection of "
                     "one layer's rounding on the output error, and the layers' errors are correlated (they "
                     f"{'reinforce' if total > 1 else 'cancel'} one another downstream).")
    return lines


def no_fix_helps_text(r: SensitivityReport) -> str:
    """Why no fix is proposed as the one to apply, and where to look instead."""
    layers = sorted({f.node for f in r.fixes})
    shares = [x.error_share for x in r.layers if x.kind == "op" and x.node in layers and x.error_share is not None]
    carried = f" (they carry {100 * sum(shares):.1f} % of the error)" if shares else ""
    return (f"  No single-layer fix gains {USEFUL_GAIN_DB} dB: the error is not in {', '.join(layers)}{carried}; "
            "--fix-layers N predicts fixes for the N worst layers, --reach-db DB searches for a set of fixes. "
            "What acts on every layer at once (not predicted here): " + "; ".join(global_remedies(r)) + ".")


def global_remedies(r: SensitivityReport) -> list[str]:
    """The changes that act on the whole model, for an error spread over many layers."""
    out = []
    if "per_channel" in r.offers:
        out.append("per-channel weights everywhere (drop --per-tensor)")
    out.append(f"more or real calibration data (calibrated on {r.calibration_samples} samples: "
               "--calib-data FILE, --calib-batches N)")
    if "wide_activation" in r.offers:
        out.append("16-bit activations on the worst layers together (--a16w8 NODE, repeated)")
    if "observer" in r.offers:
        out.append("another observer on the worst layers (--observer NODE=histogram)")
    out.append("quantization-aware training (torchao's QAT flow) when post-training quantization's error is "
               "spread over the whole model")
    return out


def change_title(f: Fix) -> str:
    """A fix in a few words: "keep conv2d in float", "keep conv2d's output in float (+2 ops)"."""
    if f.change == "keep_float":
        if len(f.nodes) > 1:
            return f"keep {f.nodes[0]}'s output in float (+{len(f.nodes) - 1} op{'s' if len(f.nodes) > 2 else ''})"
        return f"keep {f.nodes[0]} in float"
    if f.change == "observer":
        return f"{f.args[-1].split('=', 1)[1]} observer for {f.nodes[0]}"
    if f.change == "per_channel":
        return f"per-channel weights for {f.nodes[0]}"
    return f"16-bit activations for {f.nodes[0]}"


def search_summary(r: SensitivityReport) -> str:
    """The search in one sentence (empty without one)."""
    s = r.search
    if s is None:
        return ""
    last = s.steps[-1].outcome
    n = len(s.steps) - 1
    if s.reached:
        return (f"{s.goal_db:.1f} dB reached with {n} fix(es): {db_text(last.sqnr_db)}, VPU MAC share "
                f"{100 * last.vpu_mac_share:.1f} %")
    return f"{s.goal_db:.1f} dB not reached ({s.reason}); best {db_text(last.sqnr_db)}"


def fix_trade(f: Fix, b: Outcome) -> str:
    """Both sides of the trade of a fix against the baseline, in one line."""
    p = f.predicted
    gain = f"{f.gain_db:+.2f} dB" if f.gain_db is not None else "n/a"
    parts = [f"{db_text(p.sqnr_db)} ({gain})"]
    if p.metric is not None:
        parts.append(f"metric {_metric(p.metric)}")
    parts.append(f"CPU ops {b.cpu_ops}→{p.cpu_ops}, subgraphs {b.subgraphs}→{p.subgraphs}, "
                 f"boundary {human_bytes(b.boundary_bytes)}→{human_bytes(p.boundary_bytes)}, "
                 f"VPU MACs {100 * b.vpu_mac_share:.1f}→{100 * p.vpu_mac_share:.1f} %")
    if p.time_us is not None and b.time_us is not None:
        parts.append(f"VPU time {time_text(b.time_us)}→{time_text(p.time_us)} (estimate)")
    before = {t.target: t for t in b.targets}
    for t in p.targets:
        was = before.get(t.target)
        if was is None:
            continue
        text = (f"{t.title}: CPU ops {was.cpu_ops}→{t.cpu_ops}, subgraphs {was.subgraphs}→{t.subgraphs}, "
                f"MACs {100 * was.mac_share:.1f}→{100 * t.mac_share:.1f} %")
        if t.estimate is not None and was.estimate is not None:
            text += f", {_estimate(was)}→{_estimate(t)} ({t.label})"
        parts.append(text)
    return "; ".join(parts)


def _estimate(t: TargetOutcome) -> str:
    return time_text(t.estimate) if t.unit == "us" else f"{t.estimate:,.0f} {t.unit}"


def _db(value: float | None) -> str:
    return f"{value:7.1f}" if value is not None else "      —"


def _metric(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4g}"

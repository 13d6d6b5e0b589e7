"""`sensitivity(qm, analysis, ...)`: which layer costs the decibels, and what fixes them.

1. The run's float graph is prepared again with its recorded qparams (vpu_core.pipeline.
   prepared_with_qparams: no calibration when the qparams are cached) and run as switchable fake
   quantization (fakequant.py): one float pass gives every quantized layer its local, weight-only
   and activation-only error (layers.py); the cumulative error is the analysis' layer SQNR.
2. Layers are ranked by local error, worst first. The worst `options.layers` also get the
   end-to-end SQNR with only them quantized (one pass each).
3. For those layers every fix the quantizer offers (candidates.py) is predicted by quantizing the
   fixed configuration for real (predict.py): SQNR, the user's metric, CPU ops, subgraphs,
   boundary bytes, the VPU's MAC share.
4. With a goal, the fixes are combined until the SQNR reaches it (search.py).
The end-to-end figures (the baseline, every fix) rest on every held-aside call, as the analysis'
does (`samples`); the layer ranking on the first call (`ranking_samples`).
"""
from __future__ import annotations

import dataclasses
import time
from typing import Any

from vpu_core.analysis.results import Analysis
from vpu_core.pipeline import QuantizedModel, prepared_with_qparams
from vpu_core.progress import NO_CONTEXT, RunContext
from vpu_core.quantizers.overrides import offers_of
from vpu_core.sensitivity.candidates import Candidate, candidates
from vpu_core.sensitivity.fakequant import FakeQuantGraph
from vpu_core.sensitivity.layers import LayerError, alone_db, layer_errors, layers_of, output_local_db
from vpu_core.sensitivity.options import SensitivityOptions
from vpu_core.sensitivity.predict import Judge, Metric, Predictor, StoreFor, baseline_outcome, graph_output
from vpu_core.sensitivity.results import Fix, LayerSensitivity, Outcome, SensitivityReport
from vpu_core.stages import Span, Stage, TimingKey

STAGE: Stage = "sensitivity"
_SPANS: dict[Stage, Span] = {"prepare": (0.0, 0.05), "calibrate": (0.05, 0.1), "layers": (0.1, 0.25), "alone": (0.25, 0.3),
          "fixes": (0.3, 0.85), "search": (0.85, 1.0)}


def sensitivity(qm: QuantizedModel, analysis: Analysis, recorded: Any = None,
                options: SensitivityOptions = SensitivityOptions(), store_for: StoreFor | None = None,
                ctx: RunContext = NO_CONTEXT, judge: Judge | None = None) -> SensitivityReport:
    """The SensitivityReport of `qm` (its analysis `analysis`; `recorded`: the run's recorded
    qparams, else it calibrates again; `store_for(config)`: the cache of a fixed configuration;
    `judge(config, converted)`: the other targets' outcomes, options.targets)."""
    from vpu_core.whatif.ablation import single_threaded

    with single_threaded():         # many small tensor ops: see single_threaded for why
        return _sensitivity(qm, analysis, recorded, options, store_for, ctx, judge)


def _sensitivity(qm: QuantizedModel, analysis: Analysis, recorded: Any, options: SensitivityOptions,
                 store_for: StoreFor | None, ctx: RunContext, judge: Judge | None) -> SensitivityReport:
    from vpu_core.sensitivity import search as search_mod

    start = time.perf_counter()
    timings: dict[TimingKey, float] = {}
    bar = ctx.scaled(_SPANS, stage=STAGE)
    if qm.float_graph is None:
        from vpu_core.errors import InspectorError

        raise InspectorError(f"Cannot analyse the sensitivity of '{qm.name}': it is an already quantized "
                             "Q/DQ program, so there is no float model to compare each layer with.")
    prepared, donor = prepared_with_qparams(qm, recorded, bar)
    fq = FakeQuantGraph(prepared)
    timings["prepare"] = time.perf_counter() - start
    layers = layers_of(fq)
    bar.report("layers", 0.0)
    t = time.perf_counter()
    float_output = graph_output(qm.float_graph, qm.heldout)
    errors, shares = layer_errors(fq, layers, qm.heldout, graph_output(qm.converted, qm.heldout))
    timings["layers"] = time.perf_counter() - t
    metric, metric_float, metric_base = _metrics(qm, options)
    ranked = _ranked(errors, shares)
    by_name = {layer.node.name: layer for layer in layers}
    named = [by_name[n] for n in options.fix_nodes if n in by_name]
    worst = list(dict.fromkeys([*(by_name[e.node] for e in ranked[: options.layers]), *named]))
    t = time.perf_counter()
    alone = {}
    for i, layer in enumerate(worst):
        bar.report("alone", i / max(len(worst), 1))
        alone[layer.node.name] = alone_db(fq, layer, qm.heldout, float_output)
    timings["alone"] = time.perf_counter() - t
    t = time.perf_counter()
    # A fix's end-to-end SQNR rests on every held-aside call, as the analysis of its applied run
    # does (the baseline's); the layer ranking above on the first call alone.
    float_outputs = [float_output, *(graph_output(qm.float_graph, b) for b in qm.more_heldout)]
    predictor = Predictor(qm, float_outputs, store_for, metric, donor, judge)
    baseline = baseline_outcome(analysis, qm, metric_base)
    if judge is not None:
        baseline = dataclasses.replace(baseline, targets=judge(qm.config, qm.converted))
    offers = offers_of(qm.config.quantizer)
    fixes = _predicted_fixes([c for layer in worst for c in candidates(layer, fq, qm.config, offers)],
                             predictor, baseline, bar)
    timings["fixes"] = time.perf_counter() - t
    found = None
    if options.goal_db is not None:
        t = time.perf_counter()
        found = search_mod.smallest_set(predictor, baseline, fixes, options.goal_db,
                                        bar.scaled({}, *_SPANS["search"]))
        timings["search"] = time.perf_counter() - t
    rows = _rows(ranked, shares, analysis, alone, fq, qm, float_output)
    return SensitivityReport(
        model=qm.name, quantizer=qm.quantizer, samples=analysis.accuracy_samples,
        ranking_samples=_rows_of(qm.heldout),
        calibration_samples=sum(_rows_of(b) for b in qm.calib_batches), baseline=baseline,
        layers=rows, fixes=tuple(sorted(fixes, key=_best_first)), offers=offers.changes, search=found,
        metric_float=metric_float, metric_name=options.metric or "", seconds=time.perf_counter() - start,
        timings_s=tuple((k, round(v, 3)) for k, v in timings.items()))


def _metrics(qm: QuantizedModel, options: SensitivityOptions) -> tuple[Metric | None, float | None, float | None]:
    """The user's metric as a function of a graph, and its value for the float and quantized model."""
    if not options.metric:
        return None, None, None
    from vpu_core.sensitivity.user_metric import graph_metric, load_metric, output_structure

    spec, fn = options.metric, load_metric(options.metric)
    assert qm.float_graph is not None, "checked by the caller"
    structure = output_structure(qm.float_graph, qm.example_inputs)

    def metric(gm: Any, what: str = "quantized") -> float:
        return graph_metric(fn, spec, gm, qm.example_inputs, what, structure)
    return metric, metric(qm.float_graph, "float"), metric(qm.converted)


def _ranked(errors: list[LayerError], shares: dict[str, float]) -> list[LayerError]:
    """The largest share of the end-to-end error first (without shares: the worst local error);
    layers without a local SQNR (no signal) last."""
    def key(e: LayerError) -> tuple:
        share = shares.get(e.node)
        return (e.local_db is None, share is None, -(share or 0.0),
                e.local_db if e.local_db is not None else 0.0)
    return sorted(errors, key=key)


def _predicted_fixes(found: list[Candidate], predictor: Predictor, baseline: Outcome, ctx: RunContext) -> list[Fix]:
    """Each candidate predicted once (two layers may propose the same change)."""
    outcomes: dict[Any, tuple[Outcome, float]] = {}
    fixes = []
    for i, c in enumerate(found):
        ctx.report("fixes", i / max(len(found), 1))
        if c.config not in outcomes:
            t = time.perf_counter()
            outcome = predictor.outcome(c.config)
            outcomes[c.config] = (outcome, time.perf_counter() - t)
        outcome, seconds = outcomes[c.config]
        fixes.append(Fix(c.node, c.change, c.nodes, c.detail, c.args, outcome,
                         _gain(outcome.sqnr_db, baseline.sqnr_db), _gain(outcome.metric, baseline.metric), seconds))
    return fixes


def _gain(after: float | None, before: float | None) -> float | None:
    return None if after is None or before is None else after - before


def _best_first(fix: Fix) -> tuple:
    return (fix.gain_db is None, -(fix.gain_db or 0.0), fix.predicted.cpu_ops)


def _rows(ranked: list[LayerError], shares: dict[str, float], analysis: Analysis,
          alone: dict[str, float | None], fq: FakeQuantGraph, qm: QuantizedModel,
          float_output: Any) -> tuple[LayerSensitivity, ...]:
    rows = [LayerSensitivity(
        e.node, e.op, e.output_node, e.local_db, analysis.layer_sqnr.get(e.output_node), e.weight_db,
        e.activation_db, i + 1 if e.local_db is not None else None, shares.get(e.node), alone.get(e.node),
        module=analysis.nodes[e.node].module if e.node in analysis.nodes else "")
        for i, e in enumerate(ranked)]
    rows.append(LayerSensitivity("output", "output", "output", output_local_db(fq, qm.heldout, float_output),
                                 analysis.sqnr_db, None, None, None, kind="output"))
    return tuple(rows)


def _rows_of(batch: tuple) -> int:
    first = next((t for t in batch if hasattr(t, "shape") and len(t.shape)), None)
    return int(first.shape[0]) if first is not None else 0


"""Constraint ablation: what each VPU constraint (2–8) costs in accuracy on this model.

For each rule id, the baseline's exported float graph is quantized again with only that
constraint switched off in the hardware profile — same float graph, same calibration batches,
same held-aside batch (vpu_core.pipeline.requantize: no export, no new data) — and compared with
the baseline:
- end-to-end SQNR and its change in dB (positive: relaxing the constraint gains accuracy, i.e.
  the constraint costs that much here);
- per-layer SQNR changes, the layers that gain most first;
- the relaxed graph checked against the baseline profile's rules (how many violations the
  relaxation brings) and partitioned (whether the partition moves).
A constraint that cannot change this model's quantization (vpu_core.whatif.relevance) is not
run again: delta 0 and the reason.
"""
from __future__ import annotations

import contextlib
import dataclasses
import math
import time
from collections import Counter
from typing import Any, Iterator, TypeGuard

from torch.fx import GraphModule

from vpu_core.analysis.partition import partition
from vpu_core.analysis.qgraph import QGraph
from vpu_core.analysis.results import Analysis, RuleInfo
from vpu_core.analysis.rules import RULES, check_vpu
from vpu_core.analysis.sqnr import Sqnr, graph_sqnr_calls, record_float_values
from vpu_core.config import RunConfig
from vpu_core.errors import InspectorError
from vpu_core.pipeline import QuantizedModel, requantize
from vpu_core.progress import NO_CONTEXT, RunContext
from vpu_core.profile import rule_ids
from vpu_core.stages import Span, Stage
from vpu_core.whatif.noise import MIN_SAMPLES, delta_se_db, run_outputs, sample_noise
from vpu_core.whatif.relevance import annotated_view, cannot_matter
from vpu_core.whatif.results import AblationEntry, AblationReport, LayerGain

STAGE: Stage = "ablate"
TOP_LAYERS = 5
MIN_LAYER_GAIN_DB = 0.01           # below this a layer's change is rounding noise, not a gain
# Where each pipeline stage of one relaxed run sits within that run's share of the bar.
# "import" is instant here (the baseline run imported the quantizer) but still reported: no span.
_SUB_SPAN: dict[Stage, Span] = {"import": (0.0, 0.0), "prepare": (0.0, 0.1), "calibrate": (0.1, 0.6), "convert": (0.6, 0.75),
             "sqnr": (0.75, 1.0)}


def check_quantizer(config: RunConfig) -> None:
    """Before any work: only the VPU quantizer reads the constraint switches."""
    if config.quantizer != "vpu":
        raise InspectorError("Ablation relaxes the VPU quantizer's constraints; the XNNPACK quantizer "
                             "ignores them (use --quantizer vpu).")


def check_ablatable(qm: QuantizedModel) -> None:
    """One clear sentence when this run cannot be ablated."""
    check_quantizer(qm.config)
    if qm.already_quantized or qm.float_graph is None:
        raise InspectorError(f"Cannot ablate '{qm.name}': it is an already quantized Q/DQ program, "
                             "so there is no float graph to quantize again.")


def run_ablation(qm: QuantizedModel, baseline: Analysis, ctx: RunContext = NO_CONTEXT) -> AblationReport:
    """One entry per rule id of constraints 2–8, in rule order (see the module docstring); progress
    is reported as stage "ablate", 0..1 over the seven."""
    check_ablatable(qm)
    with single_threaded():
        return _run(qm, baseline, ctx)


@contextlib.contextmanager
def single_threaded() -> Iterator[None]:
    """torch on one intra-op thread while the relaxed runs execute.

    They are many small tensor ops (observers, Q/DQ, one batch through the graph), where a second
    thread buys nothing and, on a busy machine, costs a lot: on the shared 2-core development
    machine torch.aminmax on a 16×16×32×32 activation took 25 ms with two threads and 0.07 ms with
    one, and `check resnet8 --ablate` spent 45 s instead of 6 s in the ablation. torch's thread
    count is process-wide: it is restored afterwards.
    """
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _run(qm: QuantizedModel, baseline: Analysis, ctx: RunContext) -> AblationReport:
    start = time.perf_counter()
    entries = []
    # one float pass per held-aside call for all seven (the baseline's SQNR rests on every call)
    calls = qm.heldout_calls
    reference = [record_float_values(qm.float_graph, b, (1 << 30) // len(calls)) for b in calls]
    view, noise = annotated_view(qm.float_graph), _Noise(qm)
    ids = rule_ids()
    for i, rule_id in enumerate(ids):
        share = ctx.scaled(_SUB_SPAN, i / len(ids), (i + 1) / len(ids), stage=STAGE)
        entries.append(relax_one(qm, baseline, rule_id, share, reference, view, noise))
    ctx.report(STAGE, 1.0)
    part = baseline.partition
    return AblationReport(
        model=qm.name, profile=qm.profile.name, baseline_sqnr_db=baseline.sqnr_db,
        baseline_violations=len(baseline.violations), baseline_subgraphs=len(part.subgraphs),
        baseline_cpu_nodes=len(part.cpu_nodes), baseline_transfer_bytes=part.transfer_bytes,
        entries=tuple(entries), seconds=time.perf_counter() - start)


def relax_one(qm: QuantizedModel, baseline: Analysis, rule_id: str, ctx: RunContext = NO_CONTEXT,
              reference: list[dict | None] | None = None, view: GraphModule | None = None,
              noise: _Noise | None = None) -> AblationEntry:
    """The ablation entry of one constraint (`baseline` is the analysis of `qm`). Shared by the
    entries of one ablation: `reference`, the recorded float pass on each of qm.heldout_calls
    (sqnr.record_float_values), `view`, relevance.annotated_view(qm.float_graph), and `noise`,
    the per-sample errors of the baseline."""
    report = ctx.report
    start = time.perf_counter()
    info = RULES.get(rule_id).info
    report("prepare", 0.0)
    reason = cannot_matter(rule_id, view if view is not None else annotated_view(qm.float_graph), qm.profile)
    if reason:
        return _unchanged(baseline, info, reason)
    relaxed = dataclasses.replace(qm.profile, constraints={**qm.profile.constraints, rule_id: False})
    converted = requantize(qm, relaxed, ctx)
    report("sqnr", 0.0)
    g = QGraph(converted, qm.profile)             # judged by the baseline profile's rules
    _, violations = check_vpu(g)
    part = partition(g)
    layers, end_to_end = graph_sqnr_calls(qm.float_graph, converted, qm.heldout_calls, reference)
    report("sqnr", 1.0)
    by_rule = Counter(v.rule for v in violations)
    delta, why = _delta(end_to_end, baseline)
    se = (noise or _Noise(qm)).delta_se(converted) if not why else None
    return AblationEntry(
        constraint=rule_id, number=info.constraint, title=info.title, sqnr_db=end_to_end.db, delta_db=delta,
        layers=_top_gains(layers, baseline.layer_sqnr), violations=len(violations),
        violations_by_rule=tuple((r, by_rule[r]) for r in rule_ids() if by_rule[r]),
        name=info.name, verb=info.verb,
        subgraphs=len(part.subgraphs), cpu_nodes=len(part.cpu_nodes),
        transfer_bytes=part.transfer_bytes, reason=why, seconds=time.perf_counter() - start,
        delta_se_db=se)


class _Noise:
    """The baseline's per-sample output errors on every held-aside call (the samples its SQNR
    rests on), computed once (vpu_core.whatif.noise)."""

    def __init__(self, qm: QuantizedModel) -> None:
        self.qm = qm
        self._base: Any = None
        self._float: list = []

    def delta_se(self, converted) -> float | None:
        qm = self.qm
        calls = qm.heldout_calls
        if sum(_batch_size(b) for b in calls) < MIN_SAMPLES:
            return None
        if self._base is None:
            self._float = [run_outputs(qm.float_graph, b) for b in calls]
            self._base = self._samples(qm.converted)
        return delta_se_db(self._base, self._samples(converted))

    def _samples(self, converted) -> Any:
        """Σ (f − q)² per sample of every call, one tensor (None when a call has no batched output)."""
        import torch

        parts = [sample_noise(f, run_outputs(converted, b), _batch_size(b))
                 for f, b in zip(self._float, self.qm.heldout_calls)]
        return None if any(p is None for p in parts) else torch.cat(parts)


def _batch_size(batch: tuple) -> int:
    first = next((t for t in batch if hasattr(t, "shape") and len(t.shape)), None)
    return int(first.shape[0]) if first is not None else 0


def _unchanged(baseline: Analysis, info: RuleInfo, reason: str) -> AblationEntry:
    by_rule = Counter(v.rule for v in baseline.violations)
    part = baseline.partition
    return AblationEntry(
        constraint=info.id, number=info.constraint, title=info.title, sqnr_db=baseline.sqnr_db, delta_db=0.0,
        layers=(), violations=len(baseline.violations),
        violations_by_rule=tuple((r, by_rule[r]) for r in rule_ids() if by_rule[r]),
        name=info.name, verb=info.verb,
        subgraphs=len(part.subgraphs), cpu_nodes=len(part.cpu_nodes),
        transfer_bytes=part.transfer_bytes, reason=reason)


def _finite(x: object) -> TypeGuard[float]:
    return isinstance(x, float) and math.isfinite(x)


def _delta(relaxed: Sqnr, baseline: Analysis) -> tuple[float, str]:
    """The change in end-to-end SQNR, or 0 and why there is none to compare."""
    if _finite(relaxed.db) and _finite(baseline.sqnr_db):
        return relaxed.db - baseline.sqnr_db, ""
    if baseline.sqnr_db is None:
        return 0.0, f"no end-to-end SQNR to compare: {baseline.sqnr_reason or 'the baseline has none'}"
    return 0.0, f"no end-to-end SQNR to compare: relaxed, {relaxed.reason or 'it has none'}"


def _top_gains(layers: dict, base: dict) -> tuple[LayerGain, ...]:
    gains = [(node, db - base[node]) for node, db in layers.items()
             if _finite(db) and _finite(base.get(node))]
    gains = [g for g in gains if g[1] >= MIN_LAYER_GAIN_DB]
    gains.sort(key=lambda g: (-g[1], g[0]))
    return tuple(LayerGain(node, delta) for node, delta in gains[:TOP_LAYERS])

"""The predicted outcome of a fix: the fixed configuration quantized for real, then measured.

A prediction is not an extrapolation. The fix is a RunConfig (the baseline's, plus per-op changes:
vpu_core.quantizers.overrides), and predicting it runs what `check` with those options runs after
its export and calibration stages (vpu_core.pipeline.quantize_variant: prepare, calibrate,
convert on the same exported graph and the same calibration batches, kept in the fixed
configuration's own cache entries), then the same partition, MAC count and end-to-end SQNR on
the same held-out batch as the analysis of that run, and the VPU target's [timing] estimate. So a fresh `check` with the fix's options
reports the predicted SQNR, CPU ops and subgraphs (tests/test_sensitivity.py runs both).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

import torch
from torch.fx import GraphModule

from vpu_core.analysis.macs import summary
from vpu_core.analysis.partition import partition
from vpu_core.analysis.qgraph import QGraph
from vpu_core.analysis.results import Analysis, PartitionReport
from vpu_core.analysis.sqnr import OutputsSum, node_values
from vpu_core.config import RunConfig
from vpu_core.pipeline import Donor, QuantizedModel, StageResults, quantize_variant
from vpu_core.progress import NO_CONTEXT, RunContext
from vpu_core.sensitivity.results import Outcome, TargetOutcome

StoreFor = Callable[[RunConfig], "StageResults | None"]
Metric = Callable[[GraphModule], "float | None"]
Judge = Callable[[RunConfig, GraphModule], "tuple[TargetOutcome, ...]"]   # the other targets' verdicts


def graph_output(gm: GraphModule, batch: tuple) -> Any:
    """The output of `gm` on `batch` through torch.fx.Interpreter, as the analysis' SQNR pass
    computes it (vpu_core.analysis.sqnr.graph_sqnr)."""
    with torch.inference_mode():
        for node, value in node_values(gm, batch):
            if node.op == "output":
                return value
    return None


def baseline_outcome(analysis: Analysis, qm: QuantizedModel, metric: float | None = None) -> Outcome:
    """The run itself, as its analysis reports it (the figures every fix is compared with)."""
    part = analysis.partition
    return Outcome(analysis.sqnr_db, len(part.cpu_nodes), len(part.subgraphs), part.transfer_bytes,
                   analysis.summary.vpu_mac_share if analysis.summary else 0.0, metric,
                   vpu_time_us(QGraph(qm.converted, qm.profile), part), analysis.sqnr_reason)


def outcome_of(converted: GraphModule, qm: QuantizedModel, float_outputs: list,
               metric: Metric | None = None) -> Outcome:
    """The partition, MAC share and end-to-end SQNR of a converted graph of `qm`'s model, as its
    analysis would report them (and the user's metric): the SQNR over every held-aside call,
    `float_outputs` the float graph's output on each of qm.heldout_calls."""
    g = QGraph(converted, qm.profile)
    part = partition(g)
    share = summary(g, part).vpu_mac_share
    total = OutputsSum()
    for float_output, batch in zip(float_outputs, qm.heldout_calls):
        total.add(float_output, graph_output(converted, batch))
    e2e = total.result()
    return Outcome(e2e.db, len(part.cpu_nodes), len(part.subgraphs), part.transfer_bytes, share,
                   metric(converted) if metric is not None else None, vpu_time_us(g, part), e2e.reason)


def vpu_time_us(g: QGraph, part: PartitionReport) -> float:
    """The VPU target's cost model of the partition: its subgraphs' launches, MACs and transfers
    under the profile's [timing] (an estimate; the CPU side is not modelled)."""
    from vpu_core.targets.vpu.target import estimate_of

    return estimate_of(g, part).total


def predict(qm: QuantizedModel, config: RunConfig, float_outputs: list, store_for: StoreFor | None = None,
            metric: Metric | None = None, ctx: RunContext = NO_CONTEXT, donor: Donor | None = None,
            judge: Judge | None = None) -> Outcome:
    """The outcome of `config` (qm's configuration with per-op changes), quantized for real;
    `donor`: qm's qparams by observer identity (no calibration when no observer changed);
    `judge(config, converted)`: what the other targets asked for make of it."""
    store = store_for(config) if store_for is not None else None
    converted = quantize_variant(qm, config, _QParamsOnly(store) if store is not None else None, ctx, donor)
    outcome = outcome_of(converted, qm, float_outputs, metric)
    if judge is not None:
        outcome = dataclasses.replace(outcome, targets=judge(config, converted))
    return outcome


class _QParamsOnly:
    """A fixed configuration's store that keeps its qparams but not its converted program:
    writing a program takes seconds, and applying the fix later converts from those qparams
    without calibrating (a program cached by that run is read as ever)."""

    def __init__(self, store: StageResults) -> None:
        self.store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)

    def put_converted(self, gm: GraphModule, observer_scales: list[dict]) -> None:
        pass


@dataclass(frozen=True)
class Predictor:
    """What every prediction of one analysis shares: the run, its float output on each held-aside
    call, the fixed configurations' stores, the user's metric, the run's qparams (Donor) and the
    other targets' judge."""

    qm: QuantizedModel
    float_outputs: list
    store_for: StoreFor | None = None
    metric: Metric | None = None
    donor: Donor | None = None
    judge: Judge | None = None

    def outcome(self, config: RunConfig, ctx: RunContext = NO_CONTEXT) -> Outcome:
        return predict(self.qm, config, self.float_outputs, self.store_for, self.metric, ctx, self.donor, self.judge)

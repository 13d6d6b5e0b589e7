"""The held-out samples every SQNR of one ablation is measured on: enough for a noise estimate.

The pipeline holds one batch aside at the model's own batch, so a model run at batch 1 (the zoo,
many real models) would compare the constraints on one sample, with no way to tell a real change
from rounding luck. The ablation therefore measures the baseline and each relaxed graph on
several held-out batches at that same batch (vpu_core.pipeline.heldout_batches: the pipeline's
held-out generator continued, or what --calib-data leaves after calibration), at least
SAMPLES samples in all, one forward pass per batch (a model written for batch 1 runs no
other), pooling signal and noise over all of them; the per-sample output errors give the jackknife
standard error of every change (vpu_core.whatif.noise).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import torch
from torch.fx import GraphModule
from torch.utils._pytree import tree_leaves

from vpu_core.analysis.sqnr import Sqnr, measure_batches, record_float_values
from vpu_core.pipeline import QuantizedModel, heldout_batches
from vpu_core.whatif.noise import sample_noise

SAMPLES = 8                        # held-out samples the ablation aims for
FLOAT_VALUES_BYTES = 1 << 30       # recorded float passes, all batches together


@dataclass
class Measured:
    """One graph on the held-out samples (core-internal)."""

    layers: dict[str, float]       # node -> pooled SQNR, dB
    sqnr: Sqnr                     # end to end, pooled
    errors: torch.Tensor | None    # Σ (f − q)² of the outputs per jackknife unit


class HeldOut:
    """Several held-out batches of qm and one recorded float pass of each, for many graphs."""

    def __init__(self, qm: QuantizedModel) -> None:
        self.float_graph = qm.float_graph
        self.batch = _batch_size(qm.heldout)
        self.batches = heldout_batches(qm, math.ceil(SAMPLES / max(self.batch, 1)))
        limit = FLOAT_VALUES_BYTES // len(self.batches)
        self.float_values = [record_float_values(qm.float_graph, b, limit) for b in self.batches]

    @property
    def samples(self) -> int:
        return self.batch * len(self.batches)

    def measure(self, converted: GraphModule, report: Callable[[float], None] | None = None) -> Measured:
        """Pooled SQNRs of `converted`; report(fraction) after each batch (it may raise Cancelled)."""
        units: list[torch.Tensor | None] = []
        done = []

        def per_batch(ref, test) -> None:
            units.append(_units(ref, test, self.batch))
            done.append(1)
            if report is not None:
                report(len(done) / len(self.batches))

        layers, end_to_end = measure_batches(self.float_graph, converted, self.batches, self.float_values,
                                             per_batch)
        errors = None if any(u is None for u in units) else torch.cat(units)
        return Measured(layers, end_to_end, errors)


def _units(ref, test, n: int) -> torch.Tensor | None:
    """Per-sample errors; when the outputs carry no batch dimension, the batch is one unit."""
    per_sample = sample_noise(ref, test, n)
    return per_sample if per_sample is not None else sample_noise(_as_one(ref), _as_one(test), 1)


def _as_one(out) -> list:
    """Every output leaf flattened behind a leading dimension of one: the whole batch, one unit."""
    return [t.reshape(1, -1) if isinstance(t, torch.Tensor) else t for t in tree_leaves(out)]


def _batch_size(batch: tuple) -> int:
    first = next((t for t in batch if hasattr(t, "shape") and len(t.shape)), None)
    return int(first.shape[0]) if first is not None else 1

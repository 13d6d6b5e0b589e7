"""What a quantizer lets a user change per op (its Offers), as plain data: no torch, no project code.

A target package declares its quantizer's offers when it registers it (QuantizerInfo.offers,
vpu_core.quantizers.registry); vpu_core.quantizers.overrides checks a run's changes against them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ChangeKind = Literal["keep_float", "per_channel", "observer", "wide_activation"]
CHANGE_KINDS: tuple[ChangeKind, ...] = ("keep_float", "per_channel", "observer", "wide_activation")


@dataclass(frozen=True)
class ObserverKind:
    name: str           # the value of --observer NODE=KIND
    title: str          # how a table names it
    description: str    # one sentence: how it picks the range


@dataclass(frozen=True)
class Offers:
    """What one quantizer lets a user change per op. `observers[0]` is its own default."""

    quantizer: str
    changes: tuple[ChangeKind, ...]
    observers: tuple[ObserverKind, ...]
    per_channel_when: str = ""          # when per_channel applies ("with --per-tensor"), "" always
    wide_dtype: str = ""                # the wider activation dtype ("int16"), "" when not offered

    def observer(self, name: str) -> ObserverKind | None:
        return next((k for k in self.observers if k.name == name), None)


# torchao's stock observers, as ExecuTorch's quantizers configure them (XNNPACK offers both)
HISTOGRAM = ObserverKind(
    "histogram", "histogram (MSE)",
    "torchao's HistogramObserver: the range with the least quantization error over the histogram")
MINMAX = ObserverKind("minmax", "min/max", "the smallest and largest value seen (never clips)")

"""QuantizationConfig helpers the PT2E quantizers of ExecuTorch's backends share (XNNPACK, Arm).

    config = with_fast_observers(config)              # HistogramObserver -> FastHistogramObserver
    config = with_activation_observer(config, "minmax")
"""
from __future__ import annotations

import dataclasses
from typing import Any


def with_activation_observer(config: Any, kind: str) -> Any:
    """`config` with its activation observers replaced (kind "minmax": MinMaxObserver with the
    same dtype, range and eps)."""
    from torchao.quantization.pt2e.observer import MinMaxObserver

    def swapped(spec):
        ctr = getattr(spec, "observer_or_fake_quant_ctr", None)
        partial = getattr(ctr, "p", None)
        if spec is None or partial is None:
            return spec
        return dataclasses.replace(spec, observer_or_fake_quant_ctr=MinMaxObserver.with_args(**partial.keywords))

    return dataclasses.replace(config, input_activation=swapped(config.input_activation),
                               output_activation=swapped(config.output_activation))


def with_fast_observers(config: Any) -> Any:
    """A QuantizationConfig whose HistogramObserver constructors build FastHistogramObservers."""
    fields = ("input_activation", "output_activation", "weight", "bias")
    return dataclasses.replace(config, **{f: _fast_spec(getattr(config, f)) for f in fields})


def _fast_spec(spec):
    from torchao.quantization.pt2e.observer import HistogramObserver

    from vpu_core.quantizers.fast_observers import FastHistogramObserver

    ctr = getattr(spec, "observer_or_fake_quant_ctr", None)
    partial = getattr(ctr, "p", None)           # `Observer.with_args(...)` wraps a functools.partial
    if partial is None or partial.func is not HistogramObserver:
        return spec
    fast = FastHistogramObserver.with_args(*partial.args, **partial.keywords)
    return dataclasses.replace(spec, observer_or_fake_quant_ctr=fast)

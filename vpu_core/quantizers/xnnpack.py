"""ExecuTorch's XNNPACKQuantizer: the reference CPU backend's quantizer (per-channel or per-tensor).

Its static activation observer is torchao's HistogramObserver, whose min/max search can take
seconds per observer on untrained models. Unless `reference_observers` is asked for, the config
is ExecuTorch's own with that observer swapped for FastHistogramObserver: same constructor
arguments, same algorithm, bit-identical qparams (see fast_observers.py).
"""
from __future__ import annotations

import dataclasses


def make_xnnpack_quantizer(per_channel: bool = True, reference_observers: bool = False):
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config,
    )

    config = get_symmetric_quantization_config(is_per_channel=per_channel)
    if not reference_observers:
        config = with_fast_observers(config)
    return XNNPACKQuantizer().set_global(config)


def with_fast_observers(config):
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

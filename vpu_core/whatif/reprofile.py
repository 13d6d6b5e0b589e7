"""A remembered run under another hardware profile, re-running only what the change needs.

A profile change that cannot alter the quantized graph (vpu_core.whatif.profile_edit.
requantization_needed: only the partition, the rule checks, the shift range or the economics
move) needs no export, calibration or convert: the session re-analyses the Q/DQ graph it has.
One that can (an op list, a constraint the quantizer reads) quantizes the same exported float
graph again with the same calibration data (vpu_core.pipeline.requantized): no load, no export.
"""
from __future__ import annotations

import dataclasses
import threading
from typing import Callable

from vpu_core.analysis.rules.static_shape import symbols_of
from vpu_core.config import RunConfig
from vpu_core.fx_utils import op_name
from vpu_core.pipeline import QuantizedModel, requantized
from vpu_core.profile import load_profile
from vpu_core.whatif.profile_edit import requantization_needed

_PIPELINE_STAGES = ("export", "prepare", "calibrate", "convert")


def same_run_but_profile(a: RunConfig, b: RunConfig) -> bool:
    return a != b and dataclasses.replace(a, profile=b.profile) == b


def with_profile(qm: QuantizedModel, config: RunConfig, progress: Callable[[str, float], None] | None = None,
                 cancel: threading.Event | None = None) -> QuantizedModel | None:
    """`qm` under config.profile: re-read when the change cannot alter its quantization, else
    quantized again from its float graph and calibration data; None when it has no float graph."""
    profile = load_profile(config.profile)
    graph = qm.converted if qm.float_graph is None else qm.float_graph
    ops = {op_name(n) for n in graph.graph.nodes if n.op == "call_function"}
    symbolic = any(symbols_of(n.meta.get("val")) for n in graph.graph.nodes if n.op == "placeholder")
    quantizer = "none" if qm.already_quantized else qm.config.quantizer
    if requantization_needed(qm.profile, profile, quantizer, ops, symbolic):
        return None if qm.float_graph is None else requantized(qm, config, profile, progress, cancel)
    timings = {**qm.timings, **{stage: 0.0 for stage in _PIPELINE_STAGES}}
    return dataclasses.replace(qm, config=config, profile=profile, timings=timings)

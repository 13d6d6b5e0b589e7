"""A remembered run under another hardware profile, when re-reading it is all the change needs.

The session's stage keys (vpu_core.cache.keys) already reuse the export and the calibration
data for any profile, and the quantized program when the profile's [ops] and [constraints]
tables are unchanged. This goes one step further for the profile editor: a change of those
tables that cannot alter *this model's* quantized graph (vpu_core.whatif.profile_edit.
requantization_needed: e.g. an op the model does not use, a switch the quantizer cannot act on
here) re-reads the Q/DQ graph it has under the new profile instead of quantizing again.
"""
from __future__ import annotations

import dataclasses

from vpu_core.analysis.rules.static_shape import symbols_of
from vpu_core.config import RunConfig
from vpu_core.fx_utils import op_name
from vpu_core.pipeline import QuantizedModel
from vpu_core.profile import load_profile
from vpu_core.stages import PIPELINE_STAGES, timing_key
from vpu_core.whatif.profile_edit import requantization_needed

def same_run_but_profile(a: RunConfig, b: RunConfig) -> bool:
    return a != b and dataclasses.replace(a, profile=b.profile) == b


def with_profile(qm: QuantizedModel, config: RunConfig) -> QuantizedModel | None:
    """`qm` re-read under config.profile, or None when that profile changes its quantization."""
    profile = load_profile(config.profile)
    graph = qm.converted if qm.float_graph is None else qm.float_graph
    ops = {op_name(n) for n in graph.graph.nodes if n.op == "call_function"}
    symbolic = any(symbols_of(n.meta.get("val")) for n in graph.graph.nodes if n.op == "placeholder")
    quantizer = "none" if qm.already_quantized else qm.config.quantizer
    if requantization_needed(qm.profile, profile, quantizer, ops, symbolic):
        return None
    timings = {**qm.timings, **{timing_key(stage): 0.0 for stage in PIPELINE_STAGES}}
    return dataclasses.replace(qm, config=config, profile=profile, timings=timings)

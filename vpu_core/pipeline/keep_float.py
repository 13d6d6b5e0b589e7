"""Ops the VPU quantizer leaves in float: those that would quantize a mask constant.

After calibration every observer has seen its tensors' range. One that saw a value at float32's
limit (vpu_core.analysis.extreme: |x| ≥ 2^110, inf or NaN — e.g. GPT-Neo's attention bias
`where(mask, 0, finfo.min)` and its sums) would give a scale of ~2^122 or inf: every ordinary
value on that scale becomes 0, and an inf scale is no requantization at all. An observer may
serve several tensors (an add's inputs and output share one scale), so which tensors hold such
values is then measured on the float graph itself (one pass per calibration batch, only when an
observer saw one): every annotated op that would quantize such a tensor — read it through an
input spec or write it through its output spec — is named here with the reason. The pipeline
prepares again without annotating them (MyVPUQuantizer(keep_float=...)) and calibrates again:
they stay in float on the CPU (partition cause "float", this reason), the op that computes the
ordinary value beside them (the linear before a mask add) keeps its int8 output. The names and
reasons travel with the recorded qparams (a replayed run prepares the same graph) and, on the
converted graph, in node.meta[FLOAT_REASON_KEY].
"""
from __future__ import annotations

import math
from typing import Sequence

import torch
from torch.fx import GraphModule, Node

from vpu_core.analysis.extreme import FLOAT_REASON_KEY, float_reason, is_extreme
from vpu_core.analysis.sqnr import node_values
from vpu_core.fx_utils import op_name

ANNOTATION_KEY = "quantization_annotation"
MAX_ROUNDS = 4      # each round leaves at least one more op in float (an activation after a mask
                    # add is found in the round after the add)


def _worst(values: Sequence[float]) -> float:
    """The value of largest magnitude (NaN first)."""
    return max(values, key=lambda v: math.inf if math.isnan(v) else abs(v))


def extreme_value(observer: object) -> float | None:
    """The observed value of largest magnitude when it is extreme (see module docstring)."""
    values = []
    for name in ("min_val", "max_val"):
        t = getattr(observer, name, None)
        if not isinstance(t, torch.Tensor) or t.numel() == 0:
            return None
        values += [float(v) for v in t.detach().flatten().tolist()]
    worst = _worst(values) if values else 0.0
    return worst if is_extreme(worst) else None


def saw_extreme(prepared: GraphModule) -> bool:
    """Some observer of `prepared` saw a value at float32's limit."""
    return any(extreme_value(m) is not None for m in prepared.modules() if hasattr(m, "min_val"))


def extreme_tensors(float_gm: GraphModule, batches: Sequence[tuple]) -> dict[str, float]:
    """{node name: its value of largest magnitude} for every floating-point tensor of the float
    graph that reaches float32's limit on some calibration batch."""
    found: dict[str, float] = {}
    with torch.inference_mode():
        for batch in batches:
            for node, value in node_values(float_gm, batch):
                if isinstance(value, torch.Tensor) and value.is_floating_point() and value.numel():
                    worst = _worst([float(value.min()), float(value.max())])
                    if is_extreme(worst):
                        found.setdefault(node.name, worst)
    return found


def ops_to_keep_float(prepared: GraphModule, extreme: dict[str, float]) -> dict[str, str]:
    """{op name: reason} for every annotated op of `prepared` that would quantize a tensor of
    `extreme` (an input with a spec, or its own output)."""
    found: dict[str, str] = {}
    for op in prepared.graph.nodes:
        annotation = op.meta.get(ANNOTATION_KEY) if op.op == "call_function" else None
        if annotation is None:
            continue
        read = [n for n in getattr(annotation, "input_qspec_map", {}) if isinstance(n, Node)
                and n.name in extreme]
        if read:
            found[op.name] = float_reason(op_name(op), f"it reads {read[0].name}, which",
                                          extreme[read[0].name])
        elif getattr(annotation, "output_qspec", None) is not None and op.name in extreme:
            found[op.name] = float_reason(op_name(op), "its output", extreme[op.name])
    return found


def mark(converted: GraphModule, keep_float: dict[str, str]) -> None:
    """Write each kept op's reason into the converted graph (the partition reads it there)."""
    for node in converted.graph.nodes:
        if node.name in keep_float:
            node.meta[FLOAT_REASON_KEY] = keep_float[node.name]

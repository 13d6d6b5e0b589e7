"""The pipeline: load → torch.export → prepare_pt2e → calibrate → convert_pt2e.

`run_pipeline` is the first half of `vpu_core.session.inspect` (the one entry point that the
CLI, the GUI worker, render, report and the benchmark call). It reports progress per stage and checks a cancel flag between stages and calibration batches, so a GUI can stop it.
The result (`QuantizedModel`) holds live torch objects and stays inside the core; the analysis
turns it into plain frozen dataclasses for the views.
"""
from __future__ import annotations

import copy
import dataclasses
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Callable

import torch
from torch.fx import GraphModule

from vpu_core.config import RunConfig
from vpu_core.pipeline.calibration import load_calibration_file, synthetic_batches
from vpu_core.errors import Cancelled, InspectorError, QuantizationError, short_reason
from vpu_core.pipeline.tracing import export_module, with_batch
from vpu_core.pipeline.loading import load_model
from vpu_core.profile import HardwareProfile, load_profile
from vpu_core.qdq import is_qdq_graph

ProgressFn = Callable[[str, float], None]
STAGES = ("load", "export", "prepare", "calibrate", "convert")


@dataclass
class QuantizedModel:
    """Everything the analysis needs from one run (core-internal: holds torch objects)."""

    config: RunConfig
    profile: HardwareProfile
    name: str
    converted: GraphModule                  # the Q/DQ graph
    float_graph: GraphModule | None         # exported float graph (None for a Q/DQ .pt2)
    example_inputs: tuple
    calib_batches: list[tuple]
    heldout: tuple                          # held-aside batch for SQNR
    observer_scales: list[dict] = field(default_factory=list)  # float vs pow2 scale per observer
    timings: dict = field(default_factory=dict)
    already_quantized: bool = False         # loaded a Q/DQ .pt2: prepare/convert skipped


class _Stages:
    """Times stages, reports progress, honours cancellation."""

    def __init__(self, progress: ProgressFn | None, cancel: threading.Event | None) -> None:
        self.progress, self.cancel, self.timings = progress, cancel, {}

    def check(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled()

    def report(self, stage: str, fraction: float) -> None:
        self.check()
        if self.progress:
            self.progress(stage, fraction)

    def run(self, stage: str, fn, *args):
        self.report(stage, 0.0)
        start = time.perf_counter()
        result = fn(*args)
        self.timings[stage] = self.timings.get(stage, 0.0) + time.perf_counter() - start
        self.report(stage, 1.0)
        return result


def run_pipeline(config: RunConfig, progress: ProgressFn | None = None,
                 cancel: threading.Event | None = None) -> QuantizedModel:
    st = _Stages(progress, cancel)
    profile = st.run("load", load_profile, config.profile)
    loaded = st.run("load", load_model, config.model, config.batch_size, config.seed)
    if loaded.program is not None and is_qdq_graph(loaded.program.graph):
        return _already_quantized(config, profile, loaded, st)
    if loaded.program is not None:
        # A saved float program keeps the batch it was exported with: calibrate at that batch.
        example = loaded.example_inputs
        float_gm = st.run("export", loaded.program.module)
    else:
        example = with_batch(loaded.example_inputs, config.batch_size)
        float_gm = st.run("export", export_module, loaded.module, example, config.dynamic_batch,
                          config.model)
    batches, heldout = _calibration_data(config, example)
    converted, scales = _quantize(config, profile, float_gm, batches, st, loaded.name)
    return QuantizedModel(config, profile, loaded.name, converted, float_gm, example, batches,
                          heldout, scales, st.timings)


def requantized(qm: QuantizedModel, config: RunConfig, profile: HardwareProfile,
                progress: ProgressFn | None = None, cancel: threading.Event | None = None) -> QuantizedModel:
    """The run of `config` (`qm`'s configuration under another profile) from `qm`'s exported float
    graph and calibration data: prepare → calibrate → convert only, no load and no export."""
    if qm.float_graph is None:
        raise QuantizationError(f"'{qm.name}' has no float graph to quantize again.")
    st = _Stages(progress, cancel)
    st.timings.update(load=0.0, export=0.0)
    converted, scales = _quantize(config, profile, qm.float_graph, qm.calib_batches, st, qm.name)
    return dataclasses.replace(qm, config=config, profile=profile, converted=converted,
                               observer_scales=scales, timings=st.timings)


def _quantize(config: RunConfig, profile: HardwareProfile, float_gm: GraphModule, batches: list[tuple],
              st: _Stages, name: str) -> tuple[GraphModule, list[dict]]:
    prepared = st.run("prepare", _prepare, config, profile, copy.deepcopy(float_gm))
    st.run("calibrate", _calibrate, prepared, batches, st)
    scales = observer_scales(prepared)
    converted = st.run("convert", _convert, prepared)
    if not is_qdq_graph(converted.graph):
        raise QuantizationError(
            f"Nothing to quantize: the {config.quantizer} quantizer found no op it can quantize in "
            f"'{name}' (every op stays fp32 on the CPU).")
    return converted, scales


def _already_quantized(config, profile, loaded, st: _Stages) -> QuantizedModel:
    converted = st.run("export", loaded.program.module)
    example = loaded.example_inputs
    for stage in ("prepare", "calibrate", "convert"):
        st.timings[stage] = 0.0
    return QuantizedModel(config, profile, loaded.name, converted, None, example, [example], example,
                          timings=st.timings, already_quantized=True)


def _calibration_data(config: RunConfig, example: tuple) -> tuple[list[tuple], tuple]:
    batch_size = example[0].shape[0]
    if config.calib_data:
        batches = load_calibration_file(config.calib_data, example, batch_size)
        heldout = batches[-1]
        batches = batches[:-1] or batches
        return batches[: max(config.calib_batches, 1)], heldout
    batches = synthetic_batches(example, max(config.calib_batches, 1), batch_size, config.seed)
    heldout = synthetic_batches(example, 1, batch_size, config.seed + 7919)[0]
    return batches, heldout


def _prepare(config: RunConfig, profile: HardwareProfile, gm: GraphModule) -> GraphModule:
    from torchao.quantization.pt2e.quantize_pt2e import prepare_pt2e

    from vpu_core.quantizers import make_quantizer

    quantizer = make_quantizer(config.quantizer, profile, config.per_tensor)
    try:
        return prepare_pt2e(gm, quantizer)
    except InspectorError:
        raise
    except Exception as exc:
        raise QuantizationError(f"prepare_pt2e failed: {short_reason(exc)}", traceback.format_exc()) from None


def _calibrate(prepared: GraphModule, batches: list[tuple], st: _Stages) -> None:
    with torch.no_grad():
        for i, batch in enumerate(batches):
            st.report("calibrate", i / len(batches))
            try:
                prepared(*batch)
            except Exception as exc:
                raise QuantizationError(f"Calibration batch {i} failed to run through the model: "
                                        f"{short_reason(exc)}", traceback.format_exc()) from None


def _convert(prepared: GraphModule) -> GraphModule:
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e

    try:
        return convert_pt2e(prepared)
    except Exception as exc:
        raise QuantizationError(f"convert_pt2e failed: {short_reason(exc)}", traceback.format_exc()) from None


def requantize(qm: QuantizedModel, profile: HardwareProfile, progress: ProgressFn | None = None,
               cancel: threading.Event | None = None) -> GraphModule:
    """prepare → calibrate → convert the float graph of `qm` again, under `profile`.

    No export and no new data: the same exported float graph and the same calibration batches as
    `qm`'s run, so what-if runs (vpu_core.whatif) differ from it only by the profile.
    """
    if qm.float_graph is None:
        raise QuantizationError(f"'{qm.name}' has no float graph to quantize again.")
    st = _Stages(progress, cancel)
    prepared = st.run("prepare", _prepare, qm.config, profile, copy.deepcopy(qm.float_graph))
    st.run("calibrate", _calibrate, prepared, qm.calib_batches, st)
    return st.run("convert", _convert, prepared)


def observer_scales(prepared: GraphModule) -> list[dict]:
    """Float scale vs power-of-two scale of every pow2 observer, keyed by what it observes.

    `producer` is the observed node's name (kept by convert for activations); `consumers` are the
    ops reading the observed value (how a weight is found again after convert folds it).
    """
    out = []
    for node in prepared.graph.nodes:
        if node.op != "call_module":
            continue
        obs = getattr(prepared, node.target, None)
        if not hasattr(obs, "calculate_qparams") or not hasattr(obs, "min_val"):
            continue
        try:
            scale, _ = obs.calculate_qparams()
        except Exception:  # an observer that saw no data
            continue
        float_scale = getattr(obs, "float_scale", scale)
        src = node.args[0]
        out.append({
            "observer": node.name, "producer": getattr(src, "name", str(src)),
            "producer_op": getattr(src, "op", ""),
            "consumers": [u.name for u in node.users],
            "scale": [float(s) for s in scale.flatten()],
            "float_scale": [float(s) for s in float_scale.flatten()],
        })
    return out

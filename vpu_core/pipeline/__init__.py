"""The pipeline: load → torch.export → prepare_pt2e → calibrate → convert_pt2e.

`run_pipeline` is the first half of `vpu_core.session.inspect` (the one entry point that the
CLI, the GUI worker, render, report and the benchmark call). It reports progress per stage, per
calibration batch and per convert observer, and stops within 0.1 s of a cancel request (see
vpu_core.progress). With a `store` (vpu_core.cache) each stage's result is reused when its
inputs did not change: a cached export skips loading and tracing, a cached converted graph
skips prepare, calibration and convert (recorded qparams alone skip calibration and the observer
searches).
The result (`QuantizedModel`) holds live torch objects and stays inside the core; the analysis
turns it into plain frozen dataclasses for the views.
"""
from __future__ import annotations

import copy
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol, TypeVar

import torch
from torch.fx import GraphModule

from vpu_core.config import RunConfig
from vpu_core.pipeline.calibration import calibration_data
from vpu_core.errors import ExportError, InspectorError, QuantizationError, short_reason
from vpu_core.pipeline.keep_float import MAX_ROUNDS, extreme_tensors, ops_to_keep_float, saw_extreme
from vpu_core.pipeline.keep_float import mark as mark_kept_float
from vpu_core.pipeline.observing import Observers, StaleQParams
from vpu_core.pipeline.quantizer_calls import import_quantizer, quantize_in_one_call, replays
from vpu_core.pipeline.tracing import export_program, own_batch, program_module, with_batch
from vpu_core.pipeline.loading import load_model, model_calibration
from vpu_core.profile import HardwareProfile, load_profile
from vpu_core.quantizers.overrides import changes_of, check_names, check_offered
from vpu_core.progress import NO_CONTEXT, ProgressFn, RunContext
from vpu_core.qdq import is_qdq_graph
from vpu_core.stages import PIPELINE_STAGES, Stage, TimingKey, timing_key

if TYPE_CHECKING:
    from vpu_core.pipeline.loading import LoadedModel

T = TypeVar("T")


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
    heldout: tuple                          # the first held-aside batch (a program's one input)
    observer_scales: list[dict] = field(default_factory=list)  # float vs pow2 scale per observer
    timings: dict[TimingKey, float] = field(default_factory=dict)
    already_quantized: bool = False         # loaded a Q/DQ .pt2: prepare/convert skipped
    program_quantizer: str | None = None    # ...and the quantizer its file names (None: not said)
    more_heldout: list[tuple] = field(default_factory=list)   # the other held-aside calls

    @property
    def heldout_calls(self) -> list[tuple]:
        """Every held-aside batch, each a call at the model's batch: the accuracy figures (SQNR
        per layer and end to end, the integer simulation) rest on all of them together."""
        return [self.heldout, *self.more_heldout]

    @property
    def quantizer(self) -> str:
        """Who produced the Q/DQ graph: the run's quantizer, or for a loaded program the one its
        file records ("unknown" when it records none: never the --quantizer option's guess)."""
        if not self.already_quantized:
            return self.config.quantizer
        return self.program_quantizer or "unknown"


class _Stages:
    """Times the stages of one run; reports and cancels through its RunContext."""

    def __init__(self, ctx: RunContext) -> None:
        self.ctx, self.report = ctx, ctx.report
        self.timings: dict[TimingKey, float] = {}

    def run(self, stage: Stage, fn: Callable[..., T], *args: Any) -> T:
        self.report(stage, 0.0)
        start = time.perf_counter()
        result = self.ctx.call(fn, *args)                 # cancel within 0.1 s, see progress.py
        key = timing_key(stage)
        self.timings[key] = self.timings.get(key, 0.0) + time.perf_counter() - start
        self.report(stage, 1.0)
        return result


OnExport = Callable[[HardwareProfile, str, GraphModule], None]


def run_pipeline(config: RunConfig, progress: ProgressFn | None = None,
                 cancel: threading.Event | None = None, store: StageResults | None = None,
                 ctx: RunContext | None = None, on_export: OnExport | None = None) -> QuantizedModel:
    """`store` (vpu_core.cache.stage_store.StageStore) hands back stage results computed before and
    keeps new ones; without it every stage runs. `ctx` (vpu_core.progress.RunContext) replaces
    `progress` and `cancel`. `on_export(profile, name, float_gm)` is called once the float graph
    is there, before prepare (and before torchao is imported): the predicted partition."""
    store = store or NO_STORE
    st = _Stages(ctx if ctx is not None else RunContext(progress, cancel))
    profile = st.run("load", load_profile, config.profile)
    cached, program, own_calibration = store.export(), None, None
    if cached is not None:
        name, float_gm, example = cached
    else:
        loaded = st.run("load", load_model, config.model, config.batch_size, config.seed)
        name, own_calibration = loaded.name, loaded.calibration
        if loaded.program is not None:
            # A saved program keeps the batch it was exported with (or a dynamic one).
            example = program_example(loaded, config.batch_size)
            if is_qdq_graph(loaded.program.graph):
                return _already_quantized(config, profile, loaded, example, st)
            float_gm = st.run("export", program_module, loaded.program)
        else:
            own = own_batch(loaded.example_inputs)
            batch = config.batch_size or own
            example = with_batch(loaded.example_inputs, batch)
            program = st.run("export", export_program, loaded.module, example, config.dynamic_batch,
                             config.model, (own, batch))
            float_gm = program_module(program)
    if on_export is not None:     # first: saving a real-size program to the cache takes seconds
        on_export(profile, name, float_gm)
    if program is not None:
        store.put_export(name, program, float_gm, example)
    batches, heldouts = store.calibration() or store.put_calibration(*calibration_data(
        config, example, input_names(float_gm), own_calibration or _file_calibration(config, cached)))
    recorded = store.converted()
    if recorded is not None:              # the converted graph itself: no prepare, no convert
        converted, scales = recorded
    else:
        converted, scales = _quantize(config, profile, float_gm, batches, st, store)
        store.put_converted(converted, scales)
    if not is_qdq_graph(converted.graph):
        raise QuantizationError(
            f"Nothing to quantize: the {config.quantizer} quantizer found no op it can quantize in "
            f"'{name}' (every op stays fp32 on the CPU).")
    return QuantizedModel(config, profile, name, converted, float_gm, example, batches,
                          heldouts[0], scales, st.timings, more_heldout=list(heldouts[1:]))


def _file_calibration(config: RunConfig, cached: Any) -> Any:
    """A cached export did not load the model file: its calibration_inputs, read again."""
    if cached is None or config.calib_data:
        return None
    return model_calibration(config.model)


@dataclass(frozen=True)
class Donor:
    """The qparams of another configuration of the same export and calibration data, keyed by
    observer identity (Observers.by_identity), and the ops its VPU quantizer left in float for
    mask constants: a configuration that only changes some ops adopts them for every observer
    that did not change (Observers.adopt), and calibrates only when one did."""

    by_identity: dict
    keep_float: dict
    fused: GraphModule | None = None    # the float graph with its batch norms folded (fused_float_graph)


def _quantize(config: RunConfig, profile: HardwareProfile, float_gm: GraphModule, batches: list[tuple],
              st: _Stages, store: StageResults, donor: Donor | None = None) -> tuple[GraphModule, list[dict]]:
    """prepare → calibrate → convert; with the qparams an earlier run recorded (or a donor's for
    every observer), prepare → convert. The VPU quantizer prepares and calibrates again while an
    observer saw a mask constant (keep_float.py: those ops stay in float)."""
    check_offered(config)
    check_names(config, (n.name for n in float_gm.graph.nodes if n.op == "call_function"))
    if not replays(config.quantizer):
        st.run("import", import_quantizer, config.quantizer)
        return st.run("calibrate", quantize_in_one_call, config, profile, float_gm, batches), []
    recorded = store.qparams()
    keep_float = _recorded_keep_float(recorded) if recorded is not None or donor is None else dict(donor.keep_float)
    st.run("import", import_quantizer, config.quantizer)
    prepared = st.run("prepare", _prepare, config, profile, copy.deepcopy(float_gm), keep_float)
    observers = Observers(prepared, st.report)
    frozen = recorded is not None and observers.freeze(recorded)
    missing = None if frozen or donor is None else observers.adopt(donor.by_identity)
    if missing:                     # only the observers the change made calibrate (keep_float: the donor's)
        st.run("calibrate", _calibrate, prepared, batches, st)
    if frozen or missing is not None:
        try:
            converted = st.run("convert", _convert, prepared)
            mark_kept_float(converted, keep_float)
            if missing is not None:
                store.put_qparams({**observers.recorded(), KEEP_FLOAT: dict(keep_float)})
            return converted, observers.observer_scales()
        except StaleQParams:  # convert stopped half way: start again from the float graph
            prepared = st.run("prepare", _prepare, config, profile, copy.deepcopy(float_gm), keep_float)
            observers = Observers(prepared, st.report)
    extreme: dict[str, float] | None = None
    for _ in range(MAX_ROUNDS):
        st.run("calibrate", _calibrate, prepared, batches, st)
        if config.quantizer != "vpu" or not saw_extreme(prepared):
            break
        if extreme is None:         # which tensors hold mask constants: one float pass per batch
            extreme = extreme_tensors(float_gm, batches)
        found = {k: v for k, v in ops_to_keep_float(prepared, extreme).items() if k not in keep_float}
        if not found:               # nothing left to take out: the notes will name the scale
            break
        keep_float.update(found)
        prepared = st.run("prepare", _prepare, config, profile, copy.deepcopy(float_gm), keep_float)
        observers = Observers(prepared, st.report)
    converted = st.run("convert", _convert, prepared)
    mark_kept_float(converted, keep_float)
    scales = observers.observer_scales()
    store.put_qparams({**observers.recorded(), KEEP_FLOAT: dict(keep_float)})
    return converted, scales


KEEP_FLOAT = "keep_float"      # recorded qparams: {op name: reason} the VPU quantizer left in float


def _recorded_keep_float(recorded: Any) -> dict[str, str]:
    kept = recorded.get(KEEP_FLOAT) if isinstance(recorded, dict) else None
    if not isinstance(kept, dict):
        return {}
    return {str(k): str(v) for k, v in kept.items()}


def requantize(qm: QuantizedModel, profile: HardwareProfile, ctx: RunContext = NO_CONTEXT) -> GraphModule:
    """prepare → calibrate → convert the float graph of `qm` again, under `profile`.

    No export and no new data: the same exported float graph and the same calibration batches as
    `qm`'s run, so what-if runs (vpu_core.whatif) differ from it only by the profile.
    """
    if qm.float_graph is None:
        raise QuantizationError(f"'{qm.name}' has no float graph to quantize again.")
    converted, _ = _quantize(qm.config, profile, qm.float_graph, qm.calib_batches, _Stages(ctx), NO_STORE)
    return converted


def quantize_variant(qm: QuantizedModel, config: RunConfig, store: StageResults | None = None,
                     ctx: RunContext = NO_CONTEXT, donor: Donor | None = None) -> GraphModule:
    """The converted graph of `config`, a configuration of the same export and calibration data as
    `qm`'s (per-op changes, another quantizer setting): what run_pipeline(config) computes after
    its export and calibration stages, from `qm`'s float graph and batches. `store` is config's
    own (its converted program and qparams are read from it and kept in it); `donor`, qm's own
    qparams, spares the calibration when no observer changed."""
    if qm.float_graph is None:
        raise QuantizationError(f"'{qm.name}' has no float graph to quantize again.")
    store = store or NO_STORE
    recorded = store.converted()
    if recorded is not None:
        return recorded[0]
    float_gm = donor.fused if donor is not None and donor.fused is not None else qm.float_graph
    converted, scales = _quantize(config, qm.profile, float_gm, qm.calib_batches, _Stages(ctx), store, donor)
    store.put_converted(converted, scales)
    return converted


def prepared_with_qparams(qm: QuantizedModel, recorded: Any,
                          ctx: RunContext = NO_CONTEXT) -> tuple[GraphModule, Donor]:
    """The float graph of `qm` prepared again with the same quantizer (observers in place, batch
    norms folded), every observer holding the qparams convert used: replayed from `recorded`
    (the run's recorded qparams, StageResults.qparams) when they fit, else calibrated again on the
    same batches. What a fake-quantized replay of the run needs (vpu_core.sensitivity); with it
    the Donor of those qparams, for configurations that change some ops (quantize_variant)."""
    if qm.float_graph is None:
        raise QuantizationError(f"'{qm.name}' has no float graph to prepare again.")
    if not replays(qm.config.quantizer):
        raise QuantizationError(f"The {qm.config.quantizer} quantizer calibrates and converts in one call, "
                                "with no observers to replay: choose a quantizer that prepares with observers (PT2E) for this.")
    st = _Stages(ctx)
    keep_float = _recorded_keep_float(recorded)
    prepared = st.run("prepare", _prepare, qm.config, qm.profile, copy.deepcopy(qm.float_graph), keep_float)
    observers = Observers(prepared, st.report)
    if recorded is None or not observers.freeze(recorded):
        st.run("calibrate", _calibrate, prepared, qm.calib_batches, st)
        for target in observers.modules:            # what convert would ask: recorded for the donor
            observers.modules[target].calculate_qparams()
        recorded = {**observers.recorded(), KEEP_FLOAT: keep_float}
    return prepared, Donor(observers.by_identity(recorded), keep_float, fused_float_graph(qm.float_graph))


def fused_float_graph(float_gm: GraphModule) -> GraphModule:
    """A copy of `float_gm` with its batch norms folded into the convs / linears before them, as
    prepare_pt2e folds them first thing (its own folding then finds none: the same prepared
    graph, without folding again for every configuration prepared from it)."""
    from torchao.quantization.pt2e.utils import _fuse_conv_bn_, _fuse_linear_bn_

    fused = copy.deepcopy(float_gm)
    _fuse_conv_bn_(fused)
    _fuse_linear_bn_(fused)
    return fused


class StageResults(Protocol):
    """What run_pipeline asks of a cache of stage results (vpu_core.cache.stage_store.StageStore)."""

    def export(self) -> tuple[str, GraphModule, tuple] | None: ...

    def put_export(self, name: str, program: Any, float_gm: GraphModule, example: tuple) -> None: ...

    def calibration(self) -> tuple[list[tuple], list[tuple]] | None: ...

    def put_calibration(self, batches: list[tuple], heldouts: list[tuple]) -> tuple[list[tuple], list[tuple]]: ...

    def qparams(self) -> Any: ...

    def put_qparams(self, recorded: Any) -> None: ...

    def converted(self) -> tuple[GraphModule, list[dict]] | None: ...

    def put_converted(self, gm: GraphModule, observer_scales: list[dict]) -> None: ...


class _NoStore:
    """run_pipeline without a cache: every stage runs, nothing is kept."""

    def export(self) -> None:
        return None

    def put_export(self, name: str, program: Any, float_gm: GraphModule, example: tuple) -> None:
        pass

    def calibration(self) -> None:
        return None

    def put_calibration(self, batches: list[tuple], heldouts: list[tuple]) -> tuple[list[tuple], list[tuple]]:
        return batches, heldouts

    def qparams(self) -> None:
        return None

    def put_qparams(self, recorded: Any) -> None:
        pass

    def converted(self) -> None:
        return None

    def put_converted(self, gm: GraphModule, observer_scales: list[dict]) -> None:
        pass


NO_STORE = _NoStore()


def program_example(loaded: LoadedModel, batch_size: int | None) -> tuple:
    """Example inputs of a saved program, re-batched only if asked and its batch is dynamic."""
    example = loaded.example_inputs
    own = own_batch(example)
    if batch_size is None or batch_size == own:
        return example
    if not _dynamic_batch(loaded.program):
        raise ExportError(
            f"Cannot change the batch of the saved program '{loaded.name}' from {own} to {batch_size}: "
            "its shapes were fixed when it was exported; re-export the model at that batch or with a "
            "dynamic batch, or keep its own batch.")
    return with_batch(example, batch_size)


def _dynamic_batch(program) -> bool:
    for node in program.graph.nodes:
        val = node.meta.get("val")
        if node.op == "placeholder" and isinstance(val, torch.Tensor) and val.dim() \
                and isinstance(val.shape[0], torch.SymInt):
            return True
    return False


def input_names(gm: GraphModule) -> list[str]:
    """The graph's user inputs in call order (placeholders of torch.export's .module())."""
    return [n.name for n in gm.graph.nodes if n.op == "placeholder"]


def _already_quantized(config, profile, loaded, example, st: _Stages) -> QuantizedModel:
    if config.has_overrides:
        raise QuantizationError(f"'{loaded.name}' is an already quantized Q/DQ program: there is no "
                                "float graph to quantize again with per-op changes (--keep-float, …).")
    converted = st.run("export", program_module, loaded.program)
    for stage in PIPELINE_STAGES[2:]:        # import, prepare, calibrate, convert: nothing to do
        st.timings[timing_key(stage)] = 0.0
    return QuantizedModel(config, profile, loaded.name, converted, None, example, [example], example,
                          timings=st.timings, already_quantized=True, program_quantizer=loaded.quantizer)


def _prepare(config: RunConfig, profile: HardwareProfile, gm: GraphModule,
             keep_float: dict[str, str] | None = None) -> GraphModule:
    from vpu_core import quiet

    quiet.import_torchao()          # done by stage "import" already; kept for direct callers
    from torchao.quantization.pt2e.quantize_pt2e import prepare_pt2e

    from vpu_core.quantizers import make_quantizer

    quantizer = make_quantizer(config.quantizer, profile, config.per_tensor, config.reference_observers,
                               keep_float=frozenset(keep_float or ()), changes=changes_of(config))
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
    except (InspectorError, StaleQParams):  # Cancelled between observers; a replay that does not fit
        raise
    except Exception as exc:
        raise QuantizationError(f"convert_pt2e failed: {short_reason(exc)}", traceback.format_exc()) from None

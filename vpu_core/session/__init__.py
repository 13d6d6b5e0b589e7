"""One inspection end to end: the single core entry point of the GUI, `check`, render, report and bench.

    inspection = inspect(RunConfig(model="resnet8"), view=ViewOptions(), progress=fn, cancel=event)
    inspection.analysis            # frozen Analysis: rules, partition, shifts, statistics, SQNR
    inspection.attached            # what later layers computed for it when asked (int_sim, what-if, run)
    inspection.graph               # DisplayGraph (GraphModel + Layout) for `view`, or None

Stages, in order, each reported to `progress(stage, fraction_within_stage)`:
load → export → prepare → calibrate (per batch) → convert (per observer) (vpu_core.pipeline) →
analyze → delegate (only with the real XNNPACK overlay) → int_sim → layout. A set `cancel` event
stops any stage within 0.1 s and raises `Cancelled` (see vpu_core.progress for how). Inside, the
pair travels as one `RunContext` (vpu_core.progress); a caller may pass its own as `ctx=` —
e.g. `ctx.scaled(STAGE_SPANS)` to receive one fraction for the whole inspection.

Every stage result is cached (vpu_core.cache): in memory for the session, and on disk across
launches, keyed by the content of everything it depends on. Asking again for a configuration
seen before, or for one that differs only in what a later stage reads (a profile change under
XNNPACK, the XNNPACK overlay), reuses what is still valid and runs only what is missing.
`inspect()` uses one process-wide session.

The stage names, titles and progress spans are vpu_core.stages; the results (Inspection,
InspectionPair, DisplayGraph and display_graph) vpu_core.inspection; both are importable from here.

    session.redraw(inspection, ViewOptions(fold_params=False))   # another view, never a new run
    pair = session.compare(config_a, config_b, view)              # two inspections + vpu_core.compare
"""
from __future__ import annotations

import dataclasses
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from vpu_core.cache.keys import FileHashes, StageKeys, stage_keys
from vpu_core.cache.stage_store import MemoryCache
from vpu_core.config import SIMULATED, RunConfig, ViewOptions
from vpu_core.errors import NotCached
from vpu_core.inspection import NOTHING_ATTACHED, Attached, DisplayGraph, Inspection, InspectionPair, display_graph
from vpu_core.progress import NO_CONTEXT, ProgressFn, RunContext, context_of, overall_fraction, recording
from vpu_core.session.jobs import SessionJob, forget_targets, target_result
from vpu_core.stages import STAGE_SPANS, STAGE_TITLES, STAGES, Store, TimingKey
from vpu_core.targets import check_target

if TYPE_CHECKING:  # the pipeline and analysis import torch; this module's callers may not have it yet
    from collections.abc import Mapping

    from vpu_core.analysis.results import Analysis
    from vpu_core.cache.disk import DiskCache
    from vpu_core.targets.results import Exported
    from vpu_core.targets.results import TargetResult
    from vpu_core.intsim.results import IntSimReport
    from vpu_core.targets.results import RuntimeReport
    from vpu_core.pipeline import OnExport, QuantizedModel
    from vpu_core.preview import PreviewFn
    from torch.fx import GraphModule

    from vpu_core.sensitivity.options import SensitivityOptions
    from vpu_core.sensitivity.results import SensitivityReport
    from vpu_core.stagediff.results import StageDiff
    from vpu_core.whatif.results import AblationReport, PartitionWhatIf

__all__ = ["STAGES", "STAGE_SPANS", "STAGE_TITLES", "DisplayGraph", "Inspection", "InspectionPair",
           "Session", "default_session", "display_graph", "inspect", "overall_fraction"]


class Session:
    """Runs inspections; keeps every stage's results in memory and (unless disabled) on disk."""

    def __init__(self, keep: int = 6, disk_cache: bool = True, cache_dir: str | Path | None = None,
                 computes: bool = True) -> None:
        """`disk_cache`: use the disk cache at `cache_dir` (None: $VPU_INSPECTOR_CACHE_DIR, else
        the user cache folder, looked up at each run). `computes=False`: a session that only
        answers from memory and disk and raises NotCached for anything it would have to compute,
        before it imports torch (the window's: its model code runs in a worker, vpu_core.worker)."""
        self.keep = keep
        self.computes = computes
        self.memory = MemoryCache({"quantized": keep, "program": 4, "lowering": 1, "sensitivity": 8})
        self.hashes = FileHashes()
        self.disk_cache = disk_cache
        self.cache_dir = cache_dir
        self._disk: DiskCache | None = None
        self._ablations: dict = {}        # analysis key (or RunConfig) -> whatif AblationReport
        self._metrics: dict = {}          # (quantized key, --eval spec, its file hash) -> the user's metric
        self._read_s: dict[str, float] = {}   # analysis key -> seconds its read from disk took
        self._lock = threading.Lock()

    # -- public --------------------------------------------------------------------------------
    def inspect(self, config: RunConfig, view: ViewOptions | None = ViewOptions(),
                progress: ProgressFn | None = None, cancel: threading.Event | None = None,
                xnnpack_delegation: bool | None = None, fresh: bool = False,
                int_sim: bool = False, runtime_runs: int | None = None, whatif: bool = False, *,
                ctx: RunContext | None = None, preview: PreviewFn | None = None,
                targets: Sequence[str] = ()) -> Inspection:
        """Quantize (or reuse), analyse and lay out `config`.

        The real XNNPACK delegation is computed when `xnnpack_delegation` is true, or when it is
        None and `view` colours by it. `fresh` re-reads the model / profile / calibration files
        (the user asked to run again: a file may have changed); results whose inputs did not
        change are still reused, since they would come out the same. `int_sim` also runs the VPU
        partitions in integers (Inspection.attached.int_sim, vpu_core.intsim); `runtime_runs` also
        lowers the converted graph to an ExecuTorch XNNPACK program and runs it that many times on
        this CPU (.attached.runtime and its timing model, .attached.timing: the XNNPACK target,
        vpu_core.targets.xnnpack). `whatif` fills in the op-list candidates and the partition
        economics (.attached.whatif: one re-partition per candidate op, so only when asked for:
        `Session.whatif`). All of them are attached by `attach`; the Analysis is the cached one.
        A `view` coloured by a target (partition_source "xnnpack", "ethos-u55-128") judges it too.
        `ctx` replaces `progress` and `cancel` (give one or the other). `preview(inspection)`
        receives the predicted partition of the float graph as soon as it is exported, when the
        quantized analysis has to be computed (vpu_core.preview). `targets` (registry names,
        vpu_core.targets) are also judged: Inspection.targets has their verdicts and estimates
        ("xnnpack" is the real XNNPACK delegation, as with `xnnpack_delegation`).
        """
        ctx, ran = recording(context_of(progress, cancel, ctx))
        start = time.perf_counter()
        if view is not None and view.partition_source != SIMULATED:
            targets = (*targets, colour_target(view.partition_source))
        if xnnpack_delegation is None:
            xnnpack_delegation = view is not None and view.partition_source == "xnnpack"
        xnnpack_delegation = xnnpack_delegation or "xnnpack" in targets
        keys = self.keys(config, fresh)
        on_export = None
        if preview is not None:
            from vpu_core.preview import previewer

            on_export = previewer(config, view, preview, start)
        analysis = self.analysis(config, ctx, keys=keys, on_export=on_export)
        attached = self.attach(config, analysis, ctx, keys, delegation=xnnpack_delegation, int_sim=int_sim,
                               whatif=whatif, runtime_runs=runtime_runs)
        judged = {name: self.target(config, name, ctx, keys) for name in dict.fromkeys(targets)}
        graph = None
        if view is not None:
            graph = self._display_graph(keys, analysis, view, ctx, attached, judged)
        read_s = self._read_s.get(keys.analysis) if keys is not None else None
        return Inspection(config, analysis, graph, view, time.perf_counter() - start, tuple(ran), judged,
                          attached, read_s)

    def redraw(self, inspection: Inspection, view: ViewOptions) -> Inspection:
        """The same result drawn for another view (fold, colouring): milliseconds, never a run.
        Raises ValueError when `view` colours by a target whose verdict the inspection lacks."""
        if not inspection.can_colour_by(view.partition_source):
            raise ValueError(f"this result has no verdict of the {view.partition_source!r} target: inspect again")
        graph = self._display_graph(self.keys(inspection.config), inspection.analysis, view, NO_CONTEXT,
                                    inspection.attached, inspection.targets)
        return dataclasses.replace(inspection, graph=graph, view=view)

    def compare(self, a: RunConfig, b: RunConfig, view: ViewOptions | None = ViewOptions(),
                progress: ProgressFn | None = None, cancel: threading.Event | None = None,
                xnnpack_delegation: bool | None = None, int_sim: bool = False,
                whatif: bool = False, *, ctx: RunContext | None = None,
                view_b: ViewOptions | None = None) -> InspectionPair:
        """Inspect both configurations (A, then B) and match them. Unlike `inspect`, `progress`
        receives (stage, fraction of the whole comparison): A fills the first half of the bar, B
        the second. A failure says which side failed ("B · VPU · dynamic batch: …"). `view_b`:
        side B drawn otherwise than A (coloured by another target: the VPU beside an Ethos-U)."""
        from vpu_core.compare import compare, config_labels
        from vpu_core.graph.build import partition_report
        from vpu_core.errors import Cancelled, InspectorError, with_message

        ctx = context_of(progress, cancel, ctx)
        start = time.perf_counter()
        labels = config_labels(a, b)
        sides = []
        views = (view, view_b if view_b is not None else view)
        for i, (side, config, label) in enumerate((("A", a, labels[0]), ("B", b, labels[1]))):
            half = ctx.scaled(STAGE_SPANS, 0.5 * i, 0.5 * (i + 1))      # one bar for both sides
            try:
                sides.append(self.inspect(config, views[i], xnnpack_delegation=xnnpack_delegation,
                                          int_sim=int_sim, whatif=whatif, ctx=half))
            except Cancelled:
                raise
            except InspectorError as exc:
                raise with_message(exc, f"{side} · {label}: {exc.message}") from exc
        parts = [partition_report(i.analysis, v.partition_source, i.attached.delegation, i.targets) if v is not None else None
                 for i, v in zip(sides, views)]
        va, vb = views
        if va is not None and vb is not None and va.partition_source != vb.partition_source:
            labels = (f"{labels[0]} · {_source_title(va.partition_source)}",
                      f"{labels[1]} · {_source_title(vb.partition_source)}")
        comparison = compare(sides[0].analysis, sides[1].analysis, *labels, parts[0], parts[1])
        return InspectionPair(sides[0], sides[1], comparison, time.perf_counter() - start)

    def keys(self, config: RunConfig, fresh: bool = False) -> StageKeys | None:
        """The content keys of `config`'s stages (None: an input is unreadable, nothing is cached)."""
        return stage_keys(config, self.hashes, fresh)

    def set_disk_cache(self, enabled: bool) -> None:
        """`--no-cache`: neither read nor write the disk cache (memory still serves this process)."""
        self.disk_cache = enabled

    def disk(self) -> DiskCache | None:
        """The disk cache at the current cache folder, or None when disabled."""
        if not self.disk_cache:
            return None
        from vpu_core.cache.disk import DiskCache, cache_dir

        root = Path(self.cache_dir) if self.cache_dir is not None else cache_dir()
        with self._lock:
            if self._disk is None or self._disk.root != root:
                self._disk = DiskCache(root)
            return self._disk

    def forget(self, config: RunConfig) -> None:
        """Drop what this session remembers in memory for `config` (the disk cache stays)."""
        from vpu_core.targets.xnnpack.store import program_key

        keys = self.keys(config, fresh=True)
        if keys is None:
            return
        dropped: tuple[tuple[Store, object], ...] = (
            ("export", keys.export), ("calibration", keys.calibration), ("qparams", keys.quantized),
            ("quantized", keys.quantized), ("analysis", keys.analysis),
            ("int_sim", keys.analysis), ("whatif", keys.analysis), ("program", program_key(keys)))
        for store, key in dropped:
            self.memory.drop(store, key)
        forget_targets(self, keys)
        with self._lock:
            self._ablations.pop(keys.analysis, None)
            self._read_s.pop(keys.analysis, None)

    def analysis(self, config: RunConfig, ctx: RunContext = NO_CONTEXT, keys: StageKeys | None = None,
                 on_export: OnExport | None = None) -> Analysis:
        """The Analysis of `config` (what `analyze()` computes), run or remembered."""
        from vpu_core.cache import analysis_store

        keys = keys if keys is not None else self.keys(config)
        store = analysis_store.AnalysisStore(keys, self.memory, self.disk())
        hit = store.get()
        if hit is not None:
            if store.read_s is not None and keys is not None:
                with self._lock:
                    self._read_s[keys.analysis] = store.read_s
            return hit
        qm = self.quantized(config, ctx, keys, on_export)
        from vpu_core.analysis import analyze

        analysis = ctx.call(analyze, qm, ctx)
        if keys is not None:
            with self._lock:
                self._read_s.pop(keys.analysis, None)
        store.put(analysis)
        return analysis

    def target(self, config: RunConfig, name: str, ctx: RunContext = NO_CONTEXT,
               keys: StageKeys | None = None) -> TargetResult:
        """TargetResult of `config` judged by target `name` (vpu_core.targets): its verdict and
        estimate, cached like the analysis (memory and disk)."""
        keys = keys if keys is not None else self.keys(config)
        return target_result(self, config, name, ctx, keys)

    def job(self, config: RunConfig, target: str, ctx: RunContext = NO_CONTEXT,
            keys: StageKeys | None = None) -> SessionJob:
        """The TargetJob a target receives for `config` in this session."""
        return SessionJob(self, config, target, ctx, keys if keys is not None else self.keys(config))

    def attach(self, config: RunConfig, analysis: Analysis, ctx: RunContext = NO_CONTEXT,
               keys: StageKeys | None = None, *, delegation: bool = False, int_sim: bool = False,
               whatif: bool = False, runtime_runs: int | None = None) -> Attached:
        """What later layers compute for `analysis` (of `config`), each asked of its own layer and
        its own store under the analysis key: the real XNNPACK delegation (the XNNPACK target's
        verdict), the integer simulation, the what-if (also for a run: the timing model reads the
        economics' MACs), the run on this CPU and its timing model. The one way an inspection
        gets them; the Analysis itself never changes."""
        found: dict = {}
        seconds: dict[TimingKey, float] = {}
        if delegation:
            result = self.target(config, "xnnpack", ctx, keys)
            found["delegation"] = result.verdict
            seconds["xnnpack_delegation"] = result.seconds
        if int_sim:
            found["int_sim"] = self.int_sim(config, ctx, keys)
        if whatif or runtime_runs:
            found["whatif"] = self.whatif(config, ctx, keys)
            seconds["whatif"] = found["whatif"].seconds
        if runtime_runs:
            from vpu_core.targets.xnnpack.service import timing_of

            found["runtime"] = self.runtime(config, runtime_runs, ctx=ctx, keys=keys)
            found["timing"] = timing_of(analysis, found["whatif"].economics, config, found["runtime"])
        return Attached(**found, timings_s=seconds) if found else NOTHING_ATTACHED

    def whatif(self, config: RunConfig, ctx: RunContext = NO_CONTEXT,
               keys: StageKeys | None = None) -> PartitionWhatIf:
        """PartitionWhatIf of `config`: the op-list candidates and the partition economics of its
        analysis (cached like the analysis, in memory and on disk)."""
        from vpu_core.whatif.store import whatif_store

        keys = keys if keys is not None else self.keys(config)
        store = whatif_store(keys, self.memory, self.disk())
        hit = store.get()
        if hit is not None:
            return hit
        self.before_computing("whatif")
        from vpu_core.whatif.partition_whatif import partition_whatif

        analysis = self.analysis(config, ctx, keys=keys)
        qm = self.quantized(config, ctx, keys)
        result = ctx.call(partition_whatif, qm, analysis)
        store.put(result)
        return result

    def quantized(self, config: RunConfig, ctx: RunContext = NO_CONTEXT,
                  keys: StageKeys | None = None, on_export: OnExport | None = None) -> QuantizedModel:
        """The QuantizedModel of `config` (core-internal: torch objects), run or remembered;
        `on_export` as for run_pipeline, when the pipeline runs."""
        self.before_computing("quantized")
        from vpu_core.cache.stage_store import StageStore
        from vpu_core.pipeline import run_pipeline

        keys = keys if keys is not None else self.keys(config)
        if keys is not None:
            qm = self.memory.get("quantized", keys.quantized) or self._reprofiled(config, keys)
            if qm is not None:
                self.memory.put("quantized", keys.quantized, qm)
                return _for_config(qm, config)
        store = StageStore(keys, self.memory, self.disk()) if keys is not None else None
        qm = run_pipeline(config, store=store, ctx=ctx, on_export=on_export)
        if keys is not None:
            self.memory.put("quantized", keys.quantized, qm)
        return qm

    def int_sim(self, config: RunConfig, ctx: RunContext = NO_CONTEXT,
                keys: StageKeys | None = None) -> IntSimReport:
        """IntSimReport of `config`: its VPU partitions run in integers on the held-aside batches
        (cached like the analysis: it depends on the same program and profile)."""
        from vpu_core.intsim.store import int_sim_store

        keys = keys if keys is not None else self.keys(config)
        store = int_sim_store(keys, self.memory, self.disk())
        hit = store.get()
        if hit is not None:
            return hit
        self.before_computing("int_sim")
        from vpu_core.intsim import simulate

        qm = self.quantized(config, ctx, keys)
        report = ctx.call(simulate, qm, ctx)
        store.put(report)
        return report

    def stages(self, config: RunConfig, target: str = "vpu", ctx: RunContext = NO_CONTEXT,
               keys: StageKeys | None = None) -> StageDiff:
        """float → Q/DQ → `target`'s own numerics of `config`, node by node (vpu_core.stagediff:
        `check --stages`): computed each time it is asked (a runtime's values are measured)."""
        self.before_computing("stages")
        from vpu_core.stagediff import check_stages

        qm = self.quantized(config, ctx, keys)
        arm = None
        if target not in ("vpu", "xnnpack"):
            from vpu_core import targets

            lowering = getattr(targets.load(target), "lowering", None)     # the Arm targets' TOSA partitions
            if lowering is not None:
                done = lowering(self.job(config, target, ctx, keys))
                arm = (done.prepared.gm, done.partitions)
        return ctx.call(check_stages, qm, target, ctx.report, arm)

    def _reprofiled(self, config: RunConfig, keys: StageKeys) -> QuantizedModel | None:
        """A remembered program of the same export and calibration data under another profile
        whose quantization `config`'s profile cannot change for this model, re-read under it
        (vpu_core.whatif.reprofile: finer than the quantized key, which sees only the tables)."""
        from vpu_core.whatif.reprofile import same_run_but_profile, with_profile

        for qm in self.memory.values("quantized"):
            if same_run_but_profile(qm.config, config) and \
                    getattr(self.keys(qm.config), "calibration", None) == keys.calibration:
                reused = with_profile(qm, config)
                if reused is not None:
                    return reused
        return None

    def ablate(self, config: RunConfig, progress: ProgressFn | None = None,
               cancel: threading.Event | None = None, *, ctx: RunContext | None = None) -> AblationReport:
        """Constraint ablation of `config` (vpu_core.whatif.ablation): quantizes once per constraint
        2–8 relaxed, reusing this session's export and calibration data of `config`."""
        ctx = context_of(progress, cancel, ctx)
        keys = self.keys(config)
        key = keys.analysis if keys is not None else config
        with self._lock:
            known = self._ablations.get(key)
        if known is not None:
            return known
        self.before_computing("ablate")
        from vpu_core.whatif.ablation import check_quantizer, run_ablation

        check_quantizer(config)
        baseline = self.analysis(config, ctx, keys=keys)
        result = run_ablation(self.quantized(config, ctx, keys), baseline, ctx)
        with self._lock:
            self._ablations[key] = result
        return result

    def known_ablation(self, config: RunConfig) -> AblationReport | None:
        """The ablation of `config` this session already made, or None (never runs one)."""
        keys = self.keys(config)
        with self._lock:
            return self._ablations.get(keys.analysis if keys is not None else config)

    def sensitivity(self, config: RunConfig, options: SensitivityOptions | None = None,
                    ctx: RunContext = NO_CONTEXT, keys: StageKeys | None = None) -> SensitivityReport:
        """Per layer of `config` its local, cumulative, weight-only and activation-only error, the
        ranking, and the fixes of the worst layers predicted by quantizing each fixed
        configuration for real (vpu_core.sensitivity). Cached like the analysis, per options; the
        fixed configurations keep their qparams in their own cache entries, so applying a fix
        afterwards converts without calibrating."""
        from vpu_core.sensitivity.options import SensitivityOptions

        options = options or SensitivityOptions()
        keys = keys if keys is not None else self.keys(config)
        store = self._sensitivity_store(keys, options)
        hit = store.get()
        if hit is not None:
            return hit
        self.before_computing("sensitivity")
        from vpu_core.cache.stage_store import StageStore
        from vpu_core.sensitivity.analyse import sensitivity

        analysis = self.analysis(config, ctx, keys=keys)
        qm = self.quantized(config, ctx, keys)
        recorded = StageStore(keys, self.memory, self.disk()).qparams() if keys is not None else None

        def store_for(fixed: RunConfig) -> StageStore | None:
            fixed_keys = self.keys(fixed)
            return StageStore(fixed_keys, self.memory, self.disk()) if fixed_keys is not None else None

        judge = self._judge(qm, options.targets, ctx) if options.targets else None
        report = ctx.call(sensitivity, qm, analysis, recorded, options, store_for, ctx, judge)
        store.put(report)
        return report

    def _judge(self, qm: QuantizedModel, names: Sequence[str], ctx: RunContext):
        """judge(config, converted): the targets `names` on a configuration of qm's model whose
        converted graph a sensitivity prediction made (kept in memory as that configuration's
        QuantizedModel, so the target judges that very graph)."""
        from vpu_core.analysis.macs import node_macs
        from vpu_core.sensitivity.results import TargetOutcome

        def judge(config: RunConfig, converted: GraphModule) -> tuple[TargetOutcome, ...]:
            keys = self.keys(config)
            if keys is not None and config != qm.config:
                self.memory.put("quantized", keys.quantized, dataclasses.replace(qm, config=config, converted=converted))
            macs = node_macs(converted, qm.profile)
            return tuple(TargetOutcome.of(self.target(config, name, ctx, keys), macs) for name in names)
        return judge

    def known_sensitivity(self, config: RunConfig, options: SensitivityOptions) -> SensitivityReport | None:
        """The sensitivity report of `config` under `options` if this session or the disk cache has
        it, else None (never runs one)."""
        return self._sensitivity_store(self.keys(config), options).get()

    def _sensitivity_store(self, keys: StageKeys | None, options: SensitivityOptions):
        from vpu_core.cache import analysis_store
        from vpu_core.sensitivity.options import split_spec

        metric_file = self.hashes.of(split_spec(options.metric)[0]) if options.metric else None
        return analysis_store.sensitivity_store(keys, (dataclasses.asdict(options), metric_file),
                                                self.memory, self.disk())

    def metric_of(self, config: RunConfig, spec: str, ctx: RunContext = NO_CONTEXT) -> float:
        """The user's metric (--eval FILE.py:fn) of the quantized model of `config`, remembered per
        program and function file (vpu_core.sensitivity.user_metric)."""
        from vpu_core.sensitivity.options import split_spec

        keys = self.keys(config)
        key = None if keys is None else (keys.quantized, spec, self.hashes.of(split_spec(spec)[0]))
        with self._lock:
            known = self._metrics.get(key) if key is not None else None
        if known is not None:
            return known
        self.before_computing("metric")
        from vpu_core.sensitivity.user_metric import graph_metric, load_metric, output_structure

        qm = self.quantized(config, ctx, keys)
        structure = None if qm.float_graph is None else output_structure(qm.float_graph, qm.example_inputs)
        value = ctx.call(graph_metric, load_metric(spec), spec, qm.converted, qm.example_inputs, "quantized",
                         structure)
        if key is not None:
            with self._lock:
                self._metrics[key] = value
        return value

    def runtime(self, config: RunConfig, runs: int = 20, warmup: int = 3,
                progress: ProgressFn | None = None, cancel: threading.Event | None = None, *,
                ctx: RunContext | None = None, keys: StageKeys | None = None) -> RuntimeReport:
        """RuntimeReport of `config` run on ExecuTorch's runtime here (the XNNPACK target's run,
        vpu_core.targets.xnnpack.service: the lowered program is cached, the measurement always runs; a
        refusal is data)."""
        self.before_computing("run")
        from vpu_core import targets

        job = self.job(config, "xnnpack", context_of(progress, cancel, ctx), keys)
        return targets.load("xnnpack").run(job, runs, warmup)

    def target_run(self, config: RunConfig, target: str, runs: int = 20, warmup: int = 3,
                   ctx: RunContext = NO_CONTEXT) -> RuntimeReport:
        """`target`'s run of `config` here (Target.run): what it computes and how long it takes, or
        the sentence that says why its program cannot run here (a refusal is data)."""
        self.before_computing("run")
        from vpu_core import targets

        check_target(target, config.quantizer, config.dynamic_batch)
        return targets.load(target).run(self.job(config, target, ctx), runs, warmup)

    def export(self, config: RunConfig, output: str | Path, ctx: RunContext = NO_CONTEXT,
               target: str | None = None) -> Exported:
        """`target`'s artefact of `config` (Target.export; None: the target that offers
        config.quantizer): XNNPACK a .pte, the VPU a hand-off folder (vpu_core.targets.vpu.handoff)."""
        from vpu_core import targets

        name = target or next((i.name for i in targets.infos() if i.quantizer == config.quantizer), "vpu")
        check_target(name, config.quantizer, config.dynamic_batch)
        return targets.load(name).export(self.job(config, name, ctx), Path(output))

    def save_program(self, config: RunConfig, path: str | Path) -> None:
        """Save the converted Q/DQ program of `config` (torch.export.save; loads back with `check`)."""
        from vpu_core.pipeline.program_file import save_program

        save_program(self.quantized(config), Path(path))

    # -- internal ------------------------------------------------------------------------------
    def before_computing(self, what: str) -> None:
        """Called before any work that is not a lookup (and before its imports): a lookup-only
        session (computes=False) raises NotCached here."""
        if not self.computes:
            raise NotCached(what)

    def _display_graph(self, keys: StageKeys | None, analysis: Analysis, view: ViewOptions,
                       ctx: RunContext, attached: Attached = NOTHING_ATTACHED,
                       judged: Mapping[str, TargetResult] | None = None) -> DisplayGraph:
        key = None
        if keys is not None and not analysis.predicted:    # a prediction is never remembered
            # the delegation colours another graph, a run on this CPU adds the "measured µs"
            # metric: another graph (RuntimeReport is hashable)
            delegated = attached.delegation is not None
            key = (keys.analysis_delegated if delegated else keys.analysis, view, attached.runtime)
            hit = self.memory.get("graph", key)
            if hit is not None:
                return hit
        ctx.report("layout", 0.0)
        graph = display_graph(analysis, view, attached, judged)
        ctx.report("layout", 1.0)
        if key is not None:
            self.memory.put("graph", key, graph)
        return graph


def _source_title(source: str) -> str:
    """How a compare side coloured by `source` is named ("VPU partition", "Ethos-U55-128")."""
    from vpu_core import targets

    return "VPU partition" if source == SIMULATED else targets.info(source).title


def colour_target(source: str) -> str:
    """The target a view's partition_source names (ValueError for a name no target registered;
    "vpu" is the VPU's own simulated partition, partition_source "simulated")."""
    from vpu_core import targets

    if source not in targets.names() or source == "vpu":
        raise ValueError(f"partition_source must be {SIMULATED!r} or a target's name "
                         f"({', '.join(n for n in targets.names() if n != 'vpu')}), not {source!r}")
    return source


def _for_config(qm, config: RunConfig):
    """A remembered QuantizedModel for a config with the same quantized key (e.g. another profile
    under XNNPACK): the same program, analysed with `config`'s own profile."""
    if qm.config == config:
        return qm
    from vpu_core.profile import load_profile

    return dataclasses.replace(qm, config=config, profile=load_profile(config.profile))


_DEFAULT = Session()


def default_session() -> Session:
    return _DEFAULT


def inspect(config: RunConfig, view: ViewOptions | None = ViewOptions(),
            progress: ProgressFn | None = None, cancel: threading.Event | None = None,
            xnnpack_delegation: bool | None = None, fresh: bool = False,
            int_sim: bool = False, runtime_runs: int | None = None, whatif: bool = False) -> Inspection:
    """`Session.inspect` on the process-wide session."""
    return _DEFAULT.inspect(config, view, progress, cancel, xnnpack_delegation, fresh, int_sim,
                            runtime_runs, whatif)

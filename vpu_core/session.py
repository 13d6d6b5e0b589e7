"""One inspection end to end: the single core entry point of the GUI, `check`, render, report and bench.

    inspection = inspect(RunConfig(model="resnet8"), view=ViewOptions(), progress=fn, cancel=event)
    inspection.analysis            # frozen Analysis: rules, partition, shifts, statistics, SQNR
    inspection.graph               # DisplayGraph (GraphModel + Layout) for `view`, or None

Stages, in order, each reported to `progress(stage, fraction_within_stage)`:
load → export → prepare → calibrate → convert (vpu_core.pipeline) → analyze → delegate (only with
the real XNNPACK overlay) → layout. `cancel` (a threading.Event) is honoured between stages and
calibration batches; a cancelled run raises `Cancelled`.

A `Session` remembers the quantized programs it produced, keyed by their RunConfig, so asking again
for a configuration it has seen (to add the XNNPACK delegation, to save the program, to draw another
view) does not quantize again. `inspect()` uses one process-wide session.

    session.redraw(inspection, ViewOptions(fold_params=False))   # another view, never a new run
    pair = session.compare(config_a, config_b, view)              # two inspections + vpu_core.compare
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable

from vpu_core.config import PARTITION_SOURCES, RunConfig, ViewOptions

if TYPE_CHECKING:  # the pipeline and analysis import torch; this module's callers may not have it yet
    from vpu_core.analysis.results import Analysis
    from vpu_core.compare import Comparison
    from vpu_core.graph.model import GraphModel
    from vpu_core.graph.grouped import GroupedGraph
    from vpu_core.layout import Layout

ProgressFn = Callable[[str, float], None]

STAGES = ("load", "export", "prepare", "calibrate", "convert", "analyze", "delegate", "int_sim",
          "layout")
STAGE_TITLES = {
    "load": "Loading model", "export": "Exporting (torch.export)", "prepare": "Preparing (PT2E)",
    "calibrate": "Calibrating", "convert": "Converting to Q/DQ", "analyze": "Checking VPU rules",
    "delegate": "Lowering with ExecuTorch XNNPACK", "layout": "Laying out graph",
    "int_sim": "Simulating the VPU in integers",
}
# Share of a progress bar per stage (rough: a smooth bar, not a time estimate).
_STAGE_SPAN = {
    "load": (0.0, 0.1), "export": (0.1, 0.35), "prepare": (0.35, 0.45), "calibrate": (0.45, 0.7),
    "convert": (0.7, 0.8), "analyze": (0.8, 0.9), "delegate": (0.9, 0.95), "layout": (0.95, 1.0),
    "int_sim": (0.9, 0.95),
}


def overall_fraction(stage: str, fraction: float) -> float:
    """Where a stage's own 0..1 progress sits on one bar for the whole inspection."""
    lo, hi = _STAGE_SPAN.get(stage, (0.0, 1.0))
    return lo + (hi - lo) * max(0.0, min(1.0, fraction))


@dataclass(frozen=True)
class DisplayGraph:
    """What a canvas draws: the graph model and its layout; `grouped` expands and collapses
    module groups (None when the graph has no module hierarchy)."""

    model: GraphModel
    layout: Layout
    grouped: GroupedGraph | None = None


@dataclass(frozen=True)
class Inspection:
    """The result of one inspection: plain values only (no torch objects)."""

    config: RunConfig
    analysis: Analysis
    graph: DisplayGraph | None      # drawn for `view`; None when no view was asked for
    view: ViewOptions | None
    seconds: float

    @property
    def has_delegation(self) -> bool:
        return self.analysis.delegation is not None


@dataclass(frozen=True)
class InspectionPair:
    """Compare mode: two configurations of one model and the core's comparison of them."""

    a: Inspection
    b: Inspection
    comparison: Comparison
    seconds: float


def display_graph(analysis: Analysis, view: ViewOptions = ViewOptions()) -> DisplayGraph:
    """Build and lay out the display graph of an analysis (pure Python, milliseconds)."""
    from vpu_core.graph.build import build_graph_model
    from vpu_core.graph.grouped import grouped_graph
    from vpu_core.layout import layout_graph

    model = build_graph_model(analysis, fold_params=view.fold_params,
                              partition_source=view.partition_source, hide_qdq=view.hide_qdq)
    grouped = grouped_graph(analysis, model)
    if grouped is not None and view.collapse_depth is not None:
        shown, layout = grouped.collapse_to(view.collapse_depth)
        return DisplayGraph(shown, layout, grouped)
    return DisplayGraph(model, layout_graph(model), grouped)


class _Reporter:
    def __init__(self, progress: ProgressFn | None, cancel: threading.Event | None) -> None:
        self.progress, self.cancel = progress, cancel

    def __call__(self, stage: str, fraction: float) -> None:
        if self.cancel is not None and self.cancel.is_set():
            from vpu_core.errors import Cancelled

            raise Cancelled()
        if self.progress is not None:
            self.progress(stage, fraction)


class Session:
    """Runs inspections and keeps the quantized programs of the last `keep` configurations."""

    def __init__(self, keep: int = 6) -> None:
        self.keep = keep
        self._programs: OrderedDict[RunConfig, object] = OrderedDict()   # RunConfig -> QuantizedModel
        self._analyses: dict[tuple[RunConfig, bool], Analysis] = {}
        self._graphs: OrderedDict[tuple, DisplayGraph] = OrderedDict()   # drawn views, newest last
        self._int_sims: dict[RunConfig, object] = {}   # RunConfig -> IntSimReport
        self._simulated: dict[tuple, tuple[Analysis, Analysis]] = {}  # analysis -> it with int_sim
        self._ablations: dict[RunConfig, object] = {}    # RunConfig -> whatif AblationReport
        self._lock = threading.Lock()

    def inspect(self, config: RunConfig, view: ViewOptions | None = ViewOptions(),
                progress: ProgressFn | None = None, cancel: threading.Event | None = None,
                xnnpack_delegation: bool | None = None, fresh: bool = False,
                int_sim: bool = False) -> Inspection:
        """Quantize (or reuse), analyse and lay out `config`.

        The real XNNPACK delegation is computed when `xnnpack_delegation` is true, or when it is
        None and `view` colours by it. `fresh` forgets what was remembered for `config` first
        (the user asked to run again: a model file may have changed), and runs the whole pipeline
        even when a run under another profile could be reused (`quantized(reprofile=...)`). `int_sim` also runs
        the VPU partitions in integers (Analysis.int_sim, vpu_core.intsim).
        """
        start = time.perf_counter()
        if fresh:
            self.forget(config)
        if view is not None and view.partition_source not in PARTITION_SOURCES:
            raise ValueError(f"partition_source must be one of {PARTITION_SOURCES}")
        if xnnpack_delegation is None:
            xnnpack_delegation = view is not None and view.partition_source == "xnnpack"
        report = _Reporter(progress, cancel)
        analysis = self.analysis(config, xnnpack_delegation, report, cancel, reprofile=not fresh)
        if int_sim:
            analysis = self._with_int_sim(config, analysis, report, cancel)
        graph = None
        if view is not None:
            report("layout", 0.0)
            graph = self._graph(config, analysis, view)
            report("layout", 1.0)
        return Inspection(config, analysis, graph, view, time.perf_counter() - start)

    def redraw(self, inspection: Inspection, view: ViewOptions) -> Inspection:
        """The same result drawn for another view (fold, colouring): milliseconds, never a run.
        Raises ValueError when `view` colours by an XNNPACK delegation the analysis lacks."""
        graph = self._graph(inspection.config, inspection.analysis, view)
        return Inspection(inspection.config, inspection.analysis, graph, view, inspection.seconds)

    def compare(self, a: RunConfig, b: RunConfig, view: ViewOptions | None = ViewOptions(),
                progress: ProgressFn | None = None, cancel: threading.Event | None = None,
                xnnpack_delegation: bool | None = None, int_sim: bool = False) -> InspectionPair:
        """Inspect both configurations (A, then B) and match them. Unlike `inspect`, `progress`
        receives (stage, fraction of the whole comparison): A fills the first half of the bar, B
        the second. A failure says which side failed ("B · VPU · dynamic batch: …")."""
        from vpu_core.compare import compare, config_labels
        from vpu_core.errors import Cancelled, InspectorError

        start = time.perf_counter()
        labels = config_labels(a, b)
        sides = []
        for i, (side, config, label) in enumerate((("A", a, labels[0]), ("B", b, labels[1]))):
            span = (0.5 * i, 0.5 * (i + 1))
            scaled = None if progress is None else (
                lambda stage, f, lo=span[0]: progress(stage, lo + 0.5 * overall_fraction(stage, f)))
            try:
                sides.append(self.inspect(config, view, scaled, cancel, xnnpack_delegation,
                                          int_sim=int_sim))
            except Cancelled:
                raise
            except InspectorError as exc:
                raise _named(exc, f"{side} · {label}: {exc.message}") from exc
        comparison = compare(sides[0].analysis, sides[1].analysis, *labels)
        return InspectionPair(sides[0], sides[1], comparison, time.perf_counter() - start)

    def _graph(self, config: RunConfig, analysis: Analysis, view: ViewOptions) -> DisplayGraph:
        key = (config, analysis.delegation is not None, view)
        with self._lock:
            graph = self._graphs.get(key)
        if graph is None:
            graph = display_graph(analysis, view)
            with self._lock:
                self._graphs[key] = graph
                while len(self._graphs) > 4 * self.keep:
                    self._graphs.popitem(last=False)
        return graph

    def forget(self, config: RunConfig) -> None:
        with self._lock:
            self._programs.pop(config, None)
            self._int_sims.pop(config, None)
            for key in [k for k in self._simulated if k[0] == config]:
                del self._simulated[key]
            for key in [k for k in self._analyses if k[0] == config]:
                del self._analyses[key]
            for key in [k for k in self._graphs if k[0] == config]:
                del self._graphs[key]
            self._ablations.pop(config, None)

    def analysis(self, config: RunConfig, xnnpack_delegation: bool = False,
                 progress: ProgressFn | None = None, cancel: threading.Event | None = None,
                 reprofile: bool = True) -> Analysis:
        for key in ((config, xnnpack_delegation), (config, True)):
            if key in self._analyses:
                return self._analyses[key]
        qm = self.quantized(config, progress, cancel, reprofile)
        from vpu_core.analysis import analyze

        progress = _split_delegate(progress) if xnnpack_delegation else progress
        analysis = analyze(qm, xnnpack_delegation=xnnpack_delegation, progress=progress)
        with self._lock:
            self._analyses[(config, xnnpack_delegation)] = analysis
        return analysis

    def _with_int_sim(self, config: RunConfig, analysis: Analysis, progress, cancel) -> Analysis:
        """`analysis` with its integer simulation attached, remembered: asking again (the single
        view, then compare side A) gives the same result object."""
        key = (config, id(analysis))
        with self._lock:
            known = self._simulated.get(key)
        if known is not None and known[0] is analysis:
            return known[1]
        simulated = replace(analysis, int_sim=self.int_sim(config, progress, cancel))
        with self._lock:
            self._simulated[key] = (analysis, simulated)
        return simulated

    def quantized(self, config: RunConfig, progress: ProgressFn | None = None,
                  cancel: threading.Event | None = None, reprofile: bool = True):
        """The QuantizedModel of `config` (core-internal: torch objects), run or remembered.

        `reprofile`: a remembered run that differs only by its profile is reused: re-read under the
        new profile when the change cannot alter the quantized graph, else quantized again from its
        exported float graph and calibration data (no load, no export).
        """
        with self._lock:
            if config in self._programs:
                self._programs.move_to_end(config)
                return self._programs[config]
        qm = self._reprofiled(config, progress, cancel) if reprofile else None
        if qm is None:
            from vpu_core.pipeline import run_pipeline

            qm = run_pipeline(config, progress=progress, cancel=cancel)
        with self._lock:
            self._programs[config] = qm
            oldest = list(self._programs)[:-self.keep] if len(self._programs) > self.keep else []
        for old in oldest:
            self.forget(old)
        return qm

    def int_sim(self, config: RunConfig, progress: ProgressFn | None = None,
                cancel: threading.Event | None = None):
        """IntSimReport of `config`: its VPU partitions run in integers on the held-aside batch."""
        if config in self._int_sims:
            return self._int_sims[config]
        from vpu_core.intsim import simulate

        report = simulate(self.quantized(config, progress, cancel), progress)
        with self._lock:
            self._int_sims[config] = report
        return report

    def _reprofiled(self, config: RunConfig, progress: ProgressFn | None = None,
                    cancel: threading.Event | None = None):
        """A remembered program that differs from `config` only by its profile, under config's
        profile: re-read, or quantized again from its export and calibration data (whatif.reprofile)."""
        from vpu_core.whatif.reprofile import same_run_but_profile, with_profile

        with self._lock:
            siblings = [qm for c, qm in reversed(self._programs.items()) if same_run_but_profile(c, config)]
        for qm in siblings:
            reused = with_profile(qm, config, progress, cancel)
            if reused is not None:
                return reused
        return None

    def ablate(self, config: RunConfig, progress: ProgressFn | None = None,
               cancel: threading.Event | None = None):
        """Constraint ablation of `config` (vpu_core.whatif.ablation): quantizes once per constraint
        2–8 relaxed, reusing this session's export and calibration data of `config`."""
        if config in self._ablations:
            return self._ablations[config]
        from vpu_core.whatif.ablation import check_quantizer, run_ablation

        check_quantizer(config)
        report = _Reporter(progress, cancel)
        baseline = self.analysis(config, False, report, cancel)
        result = run_ablation(self.quantized(config, report, cancel), baseline, report, cancel)
        with self._lock:
            self._ablations[config] = result
        return result

    def save_program(self, config: RunConfig, path) -> None:
        """Save the converted Q/DQ program of `config` (torch.export.save; loads back with `check`)."""
        from pathlib import Path

        from vpu_core.pipeline.program_file import save_program

        save_program(self.quantized(config), Path(path))


def _named(exc, message: str):
    """The same kind of error with another message (a subclass with its own signature: the base)."""
    from vpu_core.errors import InspectorError

    try:
        return type(exc)(message, exc.detail)
    except TypeError:
        return InspectorError(message, exc.detail)


def _split_delegate(progress: ProgressFn | None) -> ProgressFn | None:
    """analyze() reports the XNNPACK lowering as its last 20 %: show it as its own stage."""
    if progress is None:
        return None

    def report(stage: str, fraction: float) -> None:
        if stage == "analyze" and 0.8 <= fraction < 1.0:
            progress("delegate", (fraction - 0.8) / 0.2)
        else:
            progress(stage, fraction)
    return report


_DEFAULT = Session()


def default_session() -> Session:
    return _DEFAULT


def inspect(config: RunConfig, view: ViewOptions | None = ViewOptions(),
            progress: ProgressFn | None = None, cancel: threading.Event | None = None,
            xnnpack_delegation: bool | None = None, fresh: bool = False,
            int_sim: bool = False) -> Inspection:
    """`Session.inspect` on the process-wide session."""
    return _DEFAULT.inspect(config, view, progress, cancel, xnnpack_delegation, fresh, int_sim)

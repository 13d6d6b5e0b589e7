"""Runs the pipeline off the GUI thread and reports back through Qt signals.

Everything heavy — importing torch, export, calibration, convert, the analysis, building and
laying out the graph — happens in a Python thread. The signals are emitted from that thread
and, because the receiving QObject lives in the GUI thread, Qt queues them onto the event loop:
the window keeps answering while a run is in progress.
"""
from __future__ import annotations

import threading
import time
import traceback
from dataclasses import dataclass, field

from PySide6.QtCore import QObject, Signal

from vpu_core.errors import Cancelled, InspectorError

STAGE_NAMES = {
    "load": "Loading model", "export": "Exporting (torch.export)", "prepare": "Preparing (PT2E)",
    "calibrate": "Calibrating", "convert": "Converting to Q/DQ", "analyze": "Checking VPU rules",
    "layout": "Laying out graph", "delegate": "Lowering with ExecuTorch XNNPACK",
}
_STAGE_SPAN = {  # share of the progress bar per stage (rough, for a smooth bar)
    "load": (0.0, 0.1), "export": (0.1, 0.35), "prepare": (0.35, 0.45), "calibrate": (0.45, 0.7),
    "convert": (0.7, 0.8), "analyze": (0.8, 0.93), "layout": (0.93, 1.0),
    "delegate": (0.8, 0.93),
}


@dataclass
class GraphBundle:
    model: object      # vpu_core.graph_model.GraphModel
    layout: object     # vpu_core.layout.Layout


@dataclass
class RunResult:
    options: dict                      # RunConfig fields of this run
    analysis: object                   # vpu_core.analysis.results.Analysis
    graphs: dict = field(default_factory=dict)   # (fold_params, partition source) -> GraphBundle
    seconds: float = 0.0
    handle: object = field(default=None, repr=False)
    # `handle` is the core's QuantizedModel, opaque to the GUI: it is only handed back to a
    # worker so that switching on the XNNPACK overlay lowers this graph without re-running PTQ.

    def bundle(self, fold_params: bool, source: str = "simulated") -> GraphBundle:
        """The graph of this result for a fold setting and partition source (built on demand)."""
        key = (fold_params, source)
        if key not in self.graphs:
            self.graphs[key] = build_graph(self.analysis, fold_params, source)
        return self.graphs[key]

    def has_delegation(self) -> bool:
        return getattr(self.analysis, "delegation", None) is not None


@dataclass
class CompareResult:
    a: RunResult
    b: RunResult
    comparison: object                 # vpu_core.compare.Comparison of a.analysis vs b.analysis
    seconds: float = 0.0


def analyze_model(qm, progress=None, xnnpack: bool = False):
    """The core analysis (imported here, in the worker, because it pulls in torch)."""
    from vpu_core.analysis import analyze

    return analyze(qm, xnnpack_delegation=xnnpack, progress=progress)


def build_graph(analysis, fold_params: bool, source: str = "simulated") -> GraphBundle:
    from vpu_core.graph_build import build_graph_model
    from vpu_core.layout import layout_graph

    model = build_graph_model(analysis, fold_params=fold_params, partition_source=source)
    return GraphBundle(model, layout_graph(model))


def overall_fraction(stage: str, fraction: float) -> float:
    lo, hi = _STAGE_SPAN.get(stage, (0.0, 1.0))
    return lo + (hi - lo) * max(0.0, min(1.0, fraction))


class RunWorker(QObject):
    """One run of one configuration. Create, connect, `start()`; `cancel()` at any time.

    `xnnpack=True` also lowers the graph with ExecuTorch's XnnpackPartitioner (the overlay);
    `reuse` is a RunResult already computed for these options: only what it lacks is done
    (e.g. the delegation when the overlay is switched on), the pipeline is not run again.
    """

    progress = Signal(str, float)      # stage name, overall fraction 0..1
    finished = Signal(object)          # RunResult (CompareResult for a CompareWorker)
    failed = Signal(object)            # InspectorError (message + detail)
    cancelled = Signal()

    def __init__(self, options: dict, fold_params: bool = True, xnnpack: bool = False,
                 reuse: RunResult | None = None) -> None:
        super().__init__()
        self.options = dict(options)
        self.fold_params = fold_params
        self.xnnpack = xnnpack
        self.reuse = reuse
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._span = (0.0, 1.0)            # share of the bar of the configuration being run

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="vpu-inspector-run", daemon=True)
        self._thread.start()

    def cancel(self) -> None:
        self._cancel.set()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel.is_set()

    def is_running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.is_running()

    def _report(self, stage: str, fraction: float) -> None:
        if self._cancel.is_set():
            raise Cancelled()
        if stage == "analyze" and self.xnnpack and fraction >= 0.8 and fraction < 1.0:
            stage = "delegate"                 # analyze() lowers with ExecuTorch after 80 %
        lo, hi = self._span
        self.progress.emit(stage, lo + (hi - lo) * overall_fraction(stage, fraction))

    def _run(self) -> None:
        start = time.perf_counter()
        try:
            result = self._work()
            result.seconds = time.perf_counter() - start
        except Cancelled:
            self.cancelled.emit()
        except InspectorError as exc:
            self.failed.emit(exc)
        except Exception as exc:  # a bug: still a dialog, never a dead window
            self.failed.emit(InspectorError(f"Unexpected error: {type(exc).__name__}: {exc}",
                                            traceback.format_exc()))
        else:
            self.finished.emit(result)

    def _work(self):
        return self._side(self.options, self.reuse)

    def _side(self, options: dict, reuse: RunResult | None) -> RunResult:
        """One configuration: run (or complete `reuse`), analyse, lay out the graph(s) shown."""
        if reuse is not None and reuse.options == options and reuse.handle is not None:
            if self.xnnpack and not reuse.has_delegation():
                analysis = analyze_model(reuse.handle, progress=self._report, xnnpack=True)
                reuse = RunResult(options, analysis, handle=reuse.handle)
            result = reuse
        else:
            from vpu_core.pipeline import RunConfig, run_pipeline

            qm = run_pipeline(RunConfig(**options), progress=self._report, cancel=self._cancel)
            analysis = analyze_model(qm, progress=self._report, xnnpack=self.xnnpack)
            result = RunResult(options, analysis, handle=qm)
        self._report("layout", 0.0)
        result.bundle(self.fold_params, "xnnpack" if self.xnnpack else "simulated")
        self._report("layout", 1.0)
        return result


class CompareWorker(RunWorker):
    """Both configurations of compare mode, one after the other, then vpu_core.compare."""

    def __init__(self, options: dict, options_b: dict, fold_params: bool = True,
                 xnnpack: bool = False, reuse: tuple = ()) -> None:
        super().__init__(options, fold_params, xnnpack)
        self.options_b = dict(options_b)
        self.reuse_all = [r for r in reuse if r is not None]

    def _known(self, options: dict) -> RunResult | None:
        return next((r for r in self.reuse_all if r.options == options), None)

    def _work(self) -> CompareResult:
        from vpu_core.compare import compare

        known_a, known_b = self._known(self.options), self._known(self.options_b)
        half = 0.5 if known_a is None and known_b is None else (0.1 if known_a is not None else 0.9)
        label_a, label_b = side_label(self.options, self.options_b), side_label(self.options_b, self.options)
        self._span = (0.0, half)
        a = self._named_side("A", label_a, self.options, known_a)
        self._span = (half, 1.0)
        b = self._named_side("B", label_b, self.options_b, known_b)
        return CompareResult(a, b, compare(a.analysis, b.analysis, label_a, label_b))

    def _named_side(self, side: str, label: str, options: dict, known) -> RunResult:
        """One side; its failure says which configuration failed ("B · VPU · dynamic batch: …")."""
        try:
            return self._side(options, known)
        except Cancelled:
            raise
        except InspectorError as exc:
            raise InspectorError(f"{side} · {label}: {exc.message}", exc.detail) from exc


def side_label(options: dict, other: dict) -> str:
    """A short name for one configuration that tells it apart from the other one."""
    from pathlib import Path

    parts = [options.get("quantizer", "vpu").upper()]
    if options.get("quantizer") == "xnnpack" and (options.get("per_tensor") or other.get("per_tensor")):
        parts.append("per-tensor" if options.get("per_tensor") else "per-channel")   # VPU: always per-channel
    if options.get("dynamic_batch") != other.get("dynamic_batch"):
        parts.append("dynamic batch" if options.get("dynamic_batch") else "static batch")
    if options.get("profile") != other.get("profile"):
        parts.append(Path(options["profile"]).stem if options.get("profile") else "default profile")
    if options.get("calib_data") != other.get("calib_data"):
        parts.append(Path(options["calib_data"]).name if options.get("calib_data") else "synthetic data")
    return " · ".join(parts)


class CatalogueLoader(QObject):
    """Reads the model zoo (which imports torch) in the background, so the window opens fast."""

    loaded = Signal(list)              # [(name, description)]

    def start(self) -> None:
        threading.Thread(target=self._run, name="vpu-inspector-zoo", daemon=True).start()

    def _run(self) -> None:
        try:
            from vpu_core.zoo import ZOO
        except Exception:  # the run itself will report a broken install
            return
        self.loaded.emit([(e.name, e.description) for e in ZOO.values()])

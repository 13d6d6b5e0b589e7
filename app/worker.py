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
    "layout": "Laying out graph",
}
_STAGE_SPAN = {  # share of the progress bar per stage (rough, for a smooth bar)
    "load": (0.0, 0.1), "export": (0.1, 0.35), "prepare": (0.35, 0.45), "calibrate": (0.45, 0.7),
    "convert": (0.7, 0.8), "analyze": (0.8, 0.93), "layout": (0.93, 1.0),
}


@dataclass
class GraphBundle:
    model: object      # vpu_core.graph_model.GraphModel
    layout: object     # vpu_core.layout.Layout


@dataclass
class RunResult:
    options: dict                      # RunConfig fields of this run
    analysis: object                   # vpu_core.analysis.results.Analysis
    graphs: dict = field(default_factory=dict)   # fold_params (bool) -> GraphBundle
    seconds: float = 0.0


def analyze_model(qm, progress=None):
    """The core analysis (imported here, in the worker, because it pulls in torch)."""
    from vpu_core.analysis import analyze

    return analyze(qm, xnnpack_delegation=False, progress=progress)


def build_graph(analysis, fold_params: bool) -> GraphBundle:
    from vpu_core.graph_build import build_graph_model
    from vpu_core.layout import layout_graph

    model = build_graph_model(analysis, fold_params=fold_params)
    return GraphBundle(model, layout_graph(model))


def overall_fraction(stage: str, fraction: float) -> float:
    lo, hi = _STAGE_SPAN.get(stage, (0.0, 1.0))
    return lo + (hi - lo) * max(0.0, min(1.0, fraction))


class RunWorker(QObject):
    """One run of one configuration. Create, connect, `start()`; `cancel()` at any time."""

    progress = Signal(str, float)      # stage name, overall fraction 0..1
    finished = Signal(object)          # RunResult
    failed = Signal(object)            # InspectorError (message + detail)
    cancelled = Signal()

    def __init__(self, options: dict, fold_params: bool = True) -> None:
        super().__init__()
        self.options = dict(options)
        self.fold_params = fold_params
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None

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
        self.progress.emit(stage, overall_fraction(stage, fraction))

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

    def _work(self) -> RunResult:
        from vpu_core.pipeline import RunConfig, run_pipeline

        qm = run_pipeline(RunConfig(**self.options), progress=self._report, cancel=self._cancel)
        analysis = analyze_model(qm, progress=self._report)
        self._report("layout", 0.0)
        bundle = build_graph(analysis, self.fold_params)
        self._report("layout", 1.0)
        return RunResult(self.options, analysis, {self.fold_params: bundle})


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

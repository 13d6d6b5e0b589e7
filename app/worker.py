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

from vpu_core.config import RunConfig, ViewOptions
from vpu_core.errors import Cancelled, InspectorError
from vpu_core.session import STAGE_TITLES, overall_fraction

STAGE_NAMES = STAGE_TITLES


@dataclass
class RunResult:
    options: dict                      # RunConfig fields of this run
    analysis: object                   # vpu_core.analysis.results.Analysis
    graphs: dict = field(default_factory=dict)   # (fold_params, source, hide_qdq) -> DisplayGraph
    seconds: float = 0.0

    def bundle(self, fold_params: bool, source: str = "simulated", hide_qdq: bool = False):
        """The DisplayGraph of this result for a fold setting, partition source and Q/DQ folding
        (built on demand)."""
        key = (fold_params, source, hide_qdq)
        if key not in self.graphs:
            from vpu_core.session import display_graph

            self.graphs[key] = display_graph(self.analysis, ViewOptions(fold_params, source, hide_qdq))
        return self.graphs[key]

    def has_delegation(self) -> bool:
        return getattr(self.analysis, "delegation", None) is not None


@dataclass
class CompareResult:
    a: RunResult
    b: RunResult
    comparison: object                 # vpu_core.compare.Comparison of a.analysis vs b.analysis
    seconds: float = 0.0


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
        """One configuration through the core session (which reuses what it already computed)."""
        from vpu_core.session import default_session

        source = "xnnpack" if self.xnnpack else "simulated"
        if reuse is not None and reuse.options == options and (not self.xnnpack or reuse.has_delegation()):
            reuse.bundle(self.fold_params, source)
            return reuse
        inspection = default_session().inspect(
            RunConfig(**options), ViewOptions(self.fold_params, source),
            progress=self._report, cancel=self._cancel, fresh=reuse is None, int_sim=True)
        result = RunResult(options, inspection.analysis)
        result.graphs[(self.fold_params, source)] = inspection.graph
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

"""What each constraint costs: the constraint ablation as ranked pyqtgraph bars, run in a worker.

The ablation quantizes the model once per constraint 2–8 (tens of seconds), so it runs in a
Python thread through the core session (`Session.ablate`, which reuses the window's export and
calibration data) with the session's progress and cancel; the window keeps answering. Bars are
the SQNR gained by relaxing each constraint alone (= what it costs here), costliest first; the
sentences come from vpu_core.reports.whatif_text.
"""
from __future__ import annotations

import threading
import traceback

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (QSizePolicy, QHBoxLayout, QLabel, QProgressBar, QPushButton, QStackedLayout,
                               QVBoxLayout, QWidget)

from app import theme
from vpu_core.config import RunConfig
from vpu_core.errors import Cancelled, InspectorError
from vpu_core.profile import RULE_IDS
from vpu_core.reports.whatif_text import NOISE_DB, ablation_headline, constraint_name, db


class AblationWorker(QObject):
    """One ablation of one configuration in a thread; `cancel()` at any time."""

    progress = Signal(str, float)        # stage, fraction of the whole ablation 0..1
    finished = Signal(object)            # vpu_core.whatif.results.AblationReport
    failed = Signal(object)              # InspectorError
    cancelled = Signal()

    def __init__(self, options: dict) -> None:
        super().__init__()
        self.options = dict(options)
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="vpu-inspector-ablate", daemon=True)
        self._thread.start()

    def cancel(self) -> None:
        self._cancel.set()

    def is_running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        if self._thread is not None:
            self._thread.join(timeout)
        return not self.is_running()

    def _report(self, stage: str, fraction: float) -> None:
        # The baseline stages only run when the session no longer has the window's run.
        self.progress.emit(stage, fraction if stage == "ablate" else 0.0)

    def _run(self) -> None:
        from vpu_core.session import default_session

        try:
            report = default_session().ablate(RunConfig(**self.options), self._report, self._cancel)
        except Cancelled:
            self.cancelled.emit()
        except InspectorError as exc:
            self.failed.emit(exc)
        except Exception as exc:  # a bug: a message, never a dead window
            self.failed.emit(InspectorError(f"Unexpected error: {type(exc).__name__}: {exc}",
                                            traceback.format_exc()))
        else:
            self.finished.emit(report)


def bar_colour(entry) -> str:
    if not entry.measured or abs(entry.delta_db) < NOISE_DB or entry.within_noise:
        return theme.PLOT_COLORS["float"]
    return theme.DANGER if entry.delta_db > 0 else theme.OK


class AblationChart(QWidget):
    """Run / Cancel, a progress bar, the ranked bars and the sentences of one ablation."""

    report_ready = Signal(object)        # AblationReport, when a run finished

    def __init__(self) -> None:
        super().__init__()
        self.options: dict | None = None
        self.report = None
        self.worker: AblationWorker | None = None
        self._reports: dict[tuple, object] = {}
        self._build()
        self.set_options(None)

    def _build(self) -> None:
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.run_button, self.cancel_button = QPushButton("Run ablation"), QPushButton("Cancel")
        self.run_button.setObjectName("primary")
        self.run_button.clicked.connect(self.start)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.status = QLabel()
        self.status.setObjectName("muted")
        top = QHBoxLayout()
        top.addWidget(self.run_button)
        top.addWidget(self.cancel_button)
        top.addWidget(self.progress, 1)
        top.addWidget(self.status)
        self.plot = pg.PlotWidget()
        # Its 600 px size hint would widen the dock (and the window) once the chart appears.
        self.plot.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Expanding)
        item = self.plot.getPlotItem()
        item.setMenuEnabled(False)
        item.hideButtons()
        item.setMouseEnabled(x=False, y=False)
        item.showGrid(x=True, y=False, alpha=0.25)
        item.setLabel("bottom", "dB gained when relaxed alone (= what the constraint costs here)",
                      color=theme.MUTED)
        item.getViewBox().invertY(True)
        item.getAxis("left").setWidth(230)
        self.hint = QLabel()
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.hint.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.hint.setStyleSheet(f"color: {theme.MUTED}; font-size: 11pt; background: white; padding: 20px;")
        self._stack = QStackedLayout()
        self._stack.addWidget(self.hint)
        self._stack.addWidget(self.plot)
        self.sentences = QLabel()
        self.sentences.setWordWrap(True)
        self.sentences.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.sentences.setTextFormat(Qt.TextFormat.RichText)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addLayout(top)
        layout.addLayout(self._stack, 1)
        layout.addWidget(self.sentences)

    # -- what is shown -----------------------------------------------------------------------------
    def set_options(self, options: dict | None) -> None:
        """The run on screen (RunConfig fields); a report already made for it is shown again."""
        self.options = dict(options) if options else None
        known = self._reports.get(_key(self.options)) if self.options else None
        vpu = bool(self.options) and self.options.get("quantizer", "vpu") == "vpu"
        model = (self.options or {}).get("model", "")
        self.title.setText(f"<b>What each constraint costs</b> — {model}" if model else
                           "<b>What each constraint costs</b>")
        self.run_button.setEnabled(vpu and not self.is_running())
        self.cancel_button.setEnabled(self.is_running())
        self.progress.setVisible(self.is_running())
        if known is not None:
            self.show_report(known)
        elif not self.is_running():
            self.report = None
            self.sentences.setText("")
            self._hint(_idle_hint(self.options, vpu))

    def _hint(self, text: str) -> None:
        self.hint.setText(text)
        self._stack.setCurrentWidget(self.hint)

    def show_report(self, report) -> None:
        self.report = report
        ranked = report.ranked()
        item = self.plot.getPlotItem()
        item.clear()
        ys = np.arange(len(ranked), dtype=float)
        values = np.asarray([e.delta_db for e in ranked], dtype=float)
        bars = pg.BarGraphItem(x0=np.minimum(values, 0.0), y=ys, height=0.62, width=np.abs(values),
                               brushes=[pg.mkBrush(bar_colour(e)) for e in ranked], pen=pg.mkPen(None))
        item.addItem(bars)
        item.addItem(pg.InfiniteLine(pos=0.0, angle=90, pen=pg.mkPen(theme.MUTED, width=1)))
        spread = np.asarray([e.delta_se_db or 0.0 for e in ranked], dtype=float)
        item.addItem(pg.ErrorBarItem(x=values, y=ys, left=spread, right=spread, beam=0.25,
                                     pen=pg.mkPen(theme.TEXT, width=1.2)))
        for y, e, se in zip(ys, ranked, spread):
            text = (f"{e.delta_db:+.1f} ± {se:.1f} dB" if se else f"{e.delta_db:+.1f} dB") if e.measured else "not run"
            label = pg.TextItem(text, color=theme.TEXT, anchor=(0, 0.5))   # right of the bar and whisker
            label.setPos(max(float(e.delta_db + se), 0.0), float(y))
            item.addItem(label)
        item.getAxis("left").setTicks([[(float(y), constraint_name(e.constraint)) for y, e in zip(ys, ranked)]])
        reach = max(float(np.max(np.abs(values) + spread)) if len(values) else 0.0, 0.5)
        low = min(float((values - spread).min()), 0.0)
        item.setXRange(low - 0.05 * reach, reach * 1.6, padding=0)        # room for the labels
        item.setYRange(-0.6, len(ranked) - 0.4, padding=0)
        lines = [f"<li>{ablation_headline(e)}</li>" for e in ranked]
        self.sentences.setText(f"Baseline SQNR {db(report.baseline_sqnr_db)}; {len(ranked)} constraints in "
                               f"{report.seconds:.1f} s; whiskers ± one standard error over the held-out "
                               f"samples (grey: within the noise).<ul style='margin:2px 0 0 -20px'>"
                               f"{''.join(lines)}</ul>")
        self._stack.setCurrentWidget(self.plot)

    # -- running -----------------------------------------------------------------------------------
    def is_running(self) -> bool:
        return self.worker is not None

    def start(self) -> None:
        if self.options is None or self.is_running():
            return
        self.worker = worker = AblationWorker(self.options)
        worker.progress.connect(self._on_progress)
        worker.finished.connect(lambda report, w=worker: self._on_end(w, report))
        worker.failed.connect(lambda error, w=worker: self._on_end(w, None, error))
        worker.cancelled.connect(lambda w=worker: self._on_end(w, None, cancelled=True))
        self.progress.setValue(0)
        self.status.setText("Relaxing constraints…")
        self._hint("Quantizing once per constraint 2–8… the window stays usable; Cancel stops.")
        self.set_running(True)
        worker.start()

    def cancel(self) -> None:
        if self.worker is not None:
            self.worker.cancel()
            self.status.setText("Cancelling…")

    def shutdown(self, timeout: float = 5.0) -> None:
        worker = self.worker
        if worker is not None:
            worker.cancel()
            worker.wait(timeout)

    def set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running and self.options is not None)
        self.cancel_button.setEnabled(running)
        self.progress.setVisible(running)

    def _on_progress(self, stage: str, fraction: float) -> None:
        if self.sender() is not self.worker:
            return
        self.progress.setValue(int(fraction * 1000))
        if stage == "ablate" and fraction < 1.0:
            rule = RULE_IDS[min(int(fraction * len(RULE_IDS)), len(RULE_IDS) - 1)]
            self.status.setText(f"Relaxing {constraint_name(rule)}…")

    def _on_end(self, worker: AblationWorker, report, error=None, cancelled: bool = False) -> None:
        if worker is not self.worker:
            return
        self.worker = None
        self.set_running(False)
        if report is not None:
            self._reports[_key(worker.options)] = report
            self.status.setText(f"Done in {report.seconds:.1f} s")
            if _key(worker.options) == _key(self.options):
                self.show_report(report)
            self.report_ready.emit(report)
        elif cancelled:
            self.status.setText("Cancelled")
            self.set_options(self.options)
        else:
            from app import dialogs

            self.status.setText("Failed")
            self.set_options(self.options)
            dialogs.show_error(self, error, title="Ablation failed", note="")


def _idle_hint(options: dict | None, vpu: bool) -> str:
    if not options:
        return "Run a model first."
    if not vpu:
        return "The ablation relaxes the VPU quantizer's constraints; the XNNPACK quantizer ignores them."
    return ("Run ablation quantizes this model once per constraint 2–8 with only that constraint "
            "relaxed (same export and calibration data) and ranks what each costs.")


def _key(options: dict | None) -> tuple:
    return tuple(sorted((options or {}).items()))

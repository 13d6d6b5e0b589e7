"""What each constraint costs: a constraint ablation as ranked pyqtgraph bars.

A widget: Run / Cancel announce what the user wants (the what-if feature runs the ablation as a
job, app.jobs.ablation, so the window never waits); it shows the progress it is told and the
AblationReport it is given (vpu_core.whatif.results: frozen numbers). Bars are the SQNR gained
by relaxing each constraint alone (= what it costs here), costliest first, with ± one jackknife
standard error; the sentences come from vpu_core.reports.whatif_text.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QFrame, QHBoxLayout, QLabel, QProgressBar, QPushButton, QSizePolicy,
                               QStackedLayout, QTextBrowser, QVBoxLayout, QWidget)

from app import theme
from app.widgets.plot_slot import PlotSlot, pyqtgraph_module, ranked_bars_look
from vpu_core.reports.whatif_text import NOISE_DB, ablation_headline, constraint_name, db, noise_note

if TYPE_CHECKING:

    from vpu_core.whatif.results import AblationEntry, AblationReport


def bar_colour(entry: AblationEntry) -> str:
    if not entry.measured or abs(entry.delta_db) < NOISE_DB or entry.within_noise:
        return theme.PLOT_COLORS["float"]
    return theme.DANGER if entry.delta_db > 0 else theme.OK


def _wrapping(label: QLabel) -> QLabel:
    label.setWordWrap(True)
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)   # never widens the dock
    return label


class AblationChart(QWidget):
    run_clicked = Signal()
    cancel_clicked = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.report: AblationReport | None = None
        self._build()
        self.show_idle("", "Run a model first.", can_run=False)

    def _build(self) -> None:
        self.title = _wrapping(QLabel())
        self.run_button, self.cancel_button = QPushButton("Run ablation"), QPushButton("Cancel")
        self.run_button.setObjectName("primary")
        self.run_button.clicked.connect(self.run_clicked)
        self.cancel_button.clicked.connect(self.cancel_clicked)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress.setStyleSheet("min-width: 40px;")           # the theme's 160 px would widen the dock
        self.status = _wrapping(QLabel())
        self.status.setObjectName("muted")
        buttons, progress = QHBoxLayout(), QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        buttons.addStretch(1)
        progress.addWidget(self.progress, 1)
        progress.addWidget(self.status, 1)
        self.plot_slot = PlotSlot(lambda plot: ranked_bars_look(plot, "dB gained when relaxed alone"))                  # made with the first report
        # Its 600 px size hint would widen the dock (and the window) once the chart appears.
        self.plot_slot.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Expanding)
        self.plot_slot.setToolTip("dB gained when the constraint alone is relaxed = what it costs on this model")
        self.hint = _wrapping(QLabel())
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setStyleSheet(f"color: {theme.MUTED}; font-size: 11pt; background: white; padding: 20px;")
        self._stack = QStackedLayout()
        self._stack.addWidget(self.hint)
        self._stack.addWidget(self.plot_slot)
        # Seven sentences need more lines than a narrow dock has: they scroll, the chart keeps its rows.
        self.sentences = QTextBrowser()
        self.sentences.setFrameShape(QFrame.Shape.NoFrame)
        self.sentences.setStyleSheet("background: transparent;")
        self.sentences.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.plot_slot.setMinimumHeight(7 * 30)             # seven rows: a name over a bar each
        self.sentences.setMinimumHeight(40)            # they scroll: the dock keeps 1280×720
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addLayout(buttons)
        layout.addLayout(progress)
        layout.addLayout(self._stack, 3)
        layout.addWidget(self.sentences, 1)

    # -- states ------------------------------------------------------------------------------------
    def show_idle(self, model: str, hint: str, can_run: bool) -> None:
        """No report for the run on screen: `hint` says why and what Run ablation does."""
        self.report = None
        self._title(model)
        self.sentences.clear()
        self.sentences.hide()                  # no report, no sentences: no empty box under the hint
        self.hint.setText(hint)
        self._stack.setCurrentWidget(self.hint)
        self.set_running(False, can_run)

    def set_running(self, running: bool, can_run: bool = True) -> None:
        self.run_button.setEnabled(not running and can_run)
        self.cancel_button.setEnabled(running)
        self.progress.setVisible(running)
        if running:
            self.progress.setValue(0)
            self.hint.setText("Quantizing once per constraint 2–8… the window stays usable; Cancel stops.")
            self._stack.setCurrentWidget(self.hint)

    def set_progress(self, fraction: float, text: str) -> None:
        self.progress.setValue(int(fraction * 1000))
        self.status.setText(text)

    def set_status(self, text: str) -> None:
        self.status.setText(text)

    def _title(self, model: str) -> None:
        self.title.setText(f"<b>What each constraint costs</b> — {model}" if model else
                           "<b>What each constraint costs</b>")

    # -- the chart -----------------------------------------------------------------------------------
    def show_report(self, report: AblationReport, model: str = "") -> None:
        self.report = report
        self._title(model or report.model)
        ranked = report.ranked()
        pg = pyqtgraph_module()
        item = self.plot_slot.plot.getPlotItem()
        item.clear()
        ys = np.arange(len(ranked), dtype=float)
        values = np.asarray([e.delta_db for e in ranked], dtype=float)
        spread = np.asarray([e.delta_se_db or 0.0 for e in ranked], dtype=float)
        reach = max(float(np.max(np.abs(values) + spread)) if len(values) else 0.0, 0.5)
        low = min(float((values - spread).min()), 0.0) if len(values) else 0.0
        left = low - 0.05 * reach
        bar_y = ys + 0.2                 # each row: the name above, the bar below it
        item.addItem(pg.BarGraphItem(x0=np.minimum(values, 0.0), y=bar_y, height=0.36, width=np.abs(values),
                                     brushes=[pg.mkBrush(bar_colour(e)) for e in ranked], pen=pg.mkPen(None)))
        item.addItem(pg.InfiniteLine(pos=0.0, angle=90, pen=pg.mkPen(theme.MUTED, width=1)))
        item.addItem(pg.ErrorBarItem(x=values, y=bar_y, left=spread, right=spread, beam=0.16,
                                     pen=pg.mkPen(theme.TEXT, width=1.2)))
        for y, e, se in zip(ys, ranked, spread):
            name = pg.TextItem(constraint_name(e), color=theme.TEXT, anchor=(0, 0.5))
            name.setPos(left, float(y) - 0.24)
            text = (f"{e.delta_db:+.1f} ± {se:.1f} dB" if se else f"{e.delta_db:+.1f} dB") if e.measured else "not run"
            value = pg.TextItem(text, color=theme.MUTED, anchor=(0, 0.5))   # right of the bar and whisker
            value.setPos(max(float(e.delta_db + se), 0.0), float(y) + 0.2)
            item.addItem(name)
            item.addItem(value)
        item.setXRange(left, reach * 2.0, padding=0)                      # room for the values
        item.setYRange(-0.5, len(ranked) - 0.4, padding=0)
        lines = "".join(f"<li>{ablation_headline(e)}</li>" for e in ranked)
        noise = ("whiskers ± one standard error over the held-out samples (grey: within the noise)"
                 if report.has_noise_estimate else noise_note(report))
        self.sentences.setHtml(f"Baseline SQNR {db(report.baseline_sqnr_db)}; {len(ranked)} constraints in "
                               f"{report.seconds:.1f} s; {noise}.<ul style='margin:2px 0 0 -20px'>{lines}</ul>")
        self.sentences.show()
        self._stack.setCurrentWidget(self.plot_slot)

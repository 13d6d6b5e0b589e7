"""The main window: toolbar controls, the graph, node panel, report tables and plots; `run_gui`.

Nothing here imports torch or the pipeline: the window appears at once and the first run loads
them in the worker thread. All numbers shown come from the core's Analysis and GraphModel.
Features live in mixins beside this module: model files (files), selection and search
(navigation), compare mode (compare_mode), the XNNPACK overlay (overlay), exports
(export_actions) and the presenter's violation walk (presenter); this module lays the window
out, runs the jobs and shows their results.
"""
from __future__ import annotations

import dataclasses
import html
import sys
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (QApplication, QDockWidget, QLabel, QMainWindow, QProgressBar,
                               QStackedWidget, QToolBar, QVBoxLayout, QWidget)

from app import dialogs, theme
from app.compare_mode import CompareModeMixin
from app.controls import DESC_ROLE, RunControls
from app.export_actions import ExportMixin
from app.files import MODEL_SUFFIXES, ModelFilesMixin
from app.jobs import JobRunner
from app.menus import build_menus
from app.navigation import NavigationMixin
from app.overlay import XNNPACK, OverlayMixin
from app.panels import Panels
from app.presenter import PresenterMixin
from app.settings import Store
from app.view_bar import ViewBar
from app.worker import STAGE_NAMES, CatalogueLoader, CompareResult, RunResult

DEFAULT_OPTIONS = {"model": "resnet8", "quantizer": "vpu"}
RERUN_DELAY_MS = 350


class MainWindow(ModelFilesMixin, NavigationMixin, ExportMixin, CompareModeMixin, OverlayMixin,
                 PresenterMixin, QMainWindow):
    def __init__(self, store: Store | None = None) -> None:
        super().__init__()
        self.store = store or Store()
        self.result: RunResult | None = None
        self.selected: str | None = None
        self._base_options: dict = {}
        self._matches: list[str] = []
        self._match_index: int | None = None
        self.setWindowTitle("VPU Inspector")
        self.setAcceptDrops(True)
        self._rerun_timer = QTimer(self, singleShot=True, interval=RERUN_DELAY_MS)
        self._rerun_timer.timeout.connect(self.start_run)
        self.jobs = JobRunner(self)
        self._build_toolbar()
        self._build_central()
        self._build_docks()
        self._build_status()
        self._init_overlay()
        self._init_presenter()
        self._init_compare()
        self._central_layout.insertWidget(1, self.compare_bar)
        build_menus(self)
        self._connect_jobs()
        self._restore()
        self._catalogue = CatalogueLoader()
        self._catalogue.loaded.connect(self._on_catalogue)
        self._catalogue.start()

    # -- construction ----------------------------------------------------------------------------
    def _build_toolbar(self) -> None:
        self.controls = RunControls()
        bar = QToolBar("Run")
        bar.setObjectName("runToolbar")
        bar.setMovable(False)
        bar.addWidget(self.controls)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
        self.controls.options_changed.connect(lambda: self._rerun_timer.start())
        self.controls.run_clicked.connect(self.start_run)
        self.controls.cancel_clicked.connect(self.cancel_run)
        self.controls.open_model_requested.connect(self.open_model_dialog)
        self.controls.open_profile_requested.connect(self.open_profile_dialog)
        self.controls.open_calib_requested.connect(self.open_calibration_dialog)

    def _build_central(self) -> None:
        from app.graph_view import GraphView

        self.view_bar = ViewBar()
        self.graph_view = GraphView()
        self.placeholder = QLabel("Loading…")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setStyleSheet(f"color: {theme.MUTED}; font-size: 15pt; background: white;")
        self.graph_stack = QStackedWidget()
        self.graph_stack.addWidget(self.placeholder)
        self.graph_stack.addWidget(self.graph_view)
        central = QWidget()
        self._central_layout = layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.view_bar)
        layout.addWidget(self.graph_stack, 1)
        self.setCentralWidget(central)
        self.graph_view.node_selected.connect(self._on_graph_selection)
        bar = self.view_bar
        bar.fold_toggled.connect(self.set_fold_params)
        bar.fit_clicked.connect(self.fit_views)
        bar.search_changed.connect(self.search)
        bar.next_clicked.connect(lambda: self.step_match(1))
        bar.prev_clicked.connect(lambda: self.step_match(-1))
        bar.large_font_toggled.connect(self.set_large_font)
        bar.high_contrast_toggled.connect(self.set_high_contrast)
        bar.compare_toggled.connect(self.set_compare_mode)
        bar.partition_source_changed.connect(self.set_partition_source)
        bar.violation_step.connect(self.step_violation)
        bar.hide_qdq_toggled.connect(lambda _on: self.redraw())
        bar.metric_changed.connect(lambda key: self.graph_view.set_metric(key or None))

    def _dock(self, title: str, name: str, widget: QWidget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable |
                         QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.addDockWidget(area, dock)
        return dock

    def _build_docks(self) -> None:
        self.panels = Panels(self)
        self.panels.node_activated.connect(self.select_node)
        bottom = Qt.DockWidgetArea.BottomDockWidgetArea
        self.node_dock = self._dock("Node", "nodeDock", self.panels.node_area,
                                    Qt.DockWidgetArea.RightDockWidgetArea)
        self.tables_dock = self._dock("Report", "tablesDock", self.panels.tables, bottom)
        self.plots_dock = self._dock("Plots", "plotsDock", self.panels.plots, bottom)
        self.splitDockWidget(self.tables_dock, self.plots_dock, Qt.Orientation.Horizontal)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.resizeDocks([self.node_dock], [430], Qt.Orientation.Horizontal)
        self.resizeDocks([self.tables_dock], [330], Qt.Orientation.Vertical)
        self.resizeDocks([self.tables_dock, self.plots_dock], [620, 520], Qt.Orientation.Horizontal)

    def _build_status(self) -> None:
        self.summary = QLabel("Starting…")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.stage = QLabel("")
        self.stage.setObjectName("muted")
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress.hide()
        status = self.statusBar()
        status.addWidget(self.summary, 1)
        status.addPermanentWidget(self.stage)
        status.addPermanentWidget(self.progress)

    def _connect_jobs(self) -> None:
        self.jobs.started.connect(self._on_started)
        self.jobs.running_changed.connect(self._on_running_changed)
        self.jobs.progress.connect(self._on_progress)
        self.jobs.succeeded.connect(self._on_succeeded)
        self.jobs.failed.connect(self._on_failed)
        self.jobs.cancelled.connect(self._on_cancelled)

    def _restore(self) -> None:
        geometry, state = self.store.window_state()
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(1600, 1000)
        if state is not None:
            self.restoreState(state)
        self.view_bar.fold.setChecked(self.store.fold_params())
        self.view_bar.large_font.setChecked(self.store.view_option("large_font"))
        self.view_bar.high_contrast.setChecked(self.store.view_option("high_contrast"))
        self.controls.set_options({**DEFAULT_OPTIONS, **self.store.run_options()})
        self.controls.set_profiles(self.store.recent_profiles(), self.controls.options()["profile"])
        self.compare_bar.set_profiles(self.store.recent_profiles())

    def _on_catalogue(self, entries: list) -> None:
        self.controls.set_catalogue(entries, self.store.recent_files())

    # -- what is shown -----------------------------------------------------------------------------
    def fold(self) -> bool:
        return self.view_bar.fold.isChecked()

    def hide_qdq(self) -> bool:
        return self.view_bar.hide_qdq.isChecked()

    def all_views(self) -> list:
        return [self.graph_view, *self.compare_view.views_list()]

    def active_view(self):
        """The canvas search, fit and match stepping act on (compare mode: the focused side)."""
        return self.compare_view.views[self.focus_side] if self.showing_compare() else self.graph_view

    def side_result(self, side: str = "a") -> RunResult | None:
        if self.showing_compare():
            return self.compare_result.a if side == "a" else self.compare_result.b
        return self.result

    def current_bundle(self, side: str = "a"):
        result = self.side_result(side)
        return None if result is None else result.bundle(self.fold(), self.partition_source, self.hide_qdq())

    @property
    def graph(self):
        """The GraphBundle (model + layout) of the single view, or None before the first result."""
        return None if self.result is None else self.result.bundle(self.fold(), self.partition_source,
                                                                   self.hide_qdq())

    @property
    def graph_model(self):
        return None if self.graph is None else self.graph.model

    # -- running ---------------------------------------------------------------------------------
    def set_options(self, options: dict) -> None:
        """Adopt a full RunConfig's fields (batch size, seed, calibration file are kept as given)."""
        self._base_options = dict(options)
        self.controls.set_options(options)
        if options.get("profile"):
            self.store.add_recent_profile(options["profile"])
            self.controls.set_profiles(self.store.recent_profiles(), options["profile"])

    def run_options(self) -> dict:
        return {**self._base_options, **self.controls.options()}

    def start_run(self, options: dict | None = None) -> None:
        """Run the controls' options (or `options`); a running job is cancelled first."""
        if options:
            self.set_options(options)
        self.request_run(reuse=False)

    def request_run(self, reuse: bool = False) -> None:
        """Start the job for what should be on screen; `reuse`: keep results already computed
        for the same options (e.g. only lower for the overlay, only run compare side B)."""
        self._rerun_timer.stop()
        fold, xnnpack = self.fold(), self.partition_source == XNNPACK
        if self.compare_mode:
            self.jobs.request_job(self.compare_job(fold, xnnpack, reuse))
        else:
            self.jobs.request(self.run_options(), fold, xnnpack=xnnpack,
                              reuse=self.result if reuse else None)

    def cancel_run(self) -> None:
        if self.jobs.is_running():
            self.jobs.cancel()
            self.stage.setText("Cancelling…")

    def is_running(self) -> bool:
        return self.jobs.is_running()

    def _on_started(self, options: dict) -> None:
        self.stage.setText(STAGE_NAMES["load"] + "…")
        self.progress.setValue(0)
        name = Path(options["model"]).name
        if self.result is None:
            self.placeholder.setText(f"Quantizing {name} with the {options['quantizer'].upper()} quantizer…")
            self.panels.show_running(name, options["quantizer"])

    def _on_running_changed(self, running: bool) -> None:
        self.controls.set_running(running)
        self.progress.setVisible(running)

    def _on_progress(self, stage: str, fraction: float) -> None:
        self.stage.setText(STAGE_NAMES.get(stage, stage) + "…")
        self.progress.setValue(int(fraction * 1000))

    def _on_succeeded(self, result) -> None:
        self.stage.setText(f"Done in {result.seconds:.1f} s")
        if isinstance(result, CompareResult):
            if self.compare_mode:
                self.apply_compare(result)
            else:
                self.compare_result = result
        else:
            self.apply_result(result)

    def _on_failed(self, error) -> None:
        self.stage.setText("")
        suffix = "&nbsp;&nbsp;— showing the previous result" if self.result is not None else ""
        self.summary.setText(f'<span style="color:{theme.DANGER}">Run failed: {html.escape(error.message)}'
                             f'</span>{suffix}')
        if self.result is None:
            self.placeholder.setText("The run failed — pick another model or quantizer.")
        dialogs.show_error(self, error)
        self.overlay_job_ended()

    def _on_cancelled(self) -> None:
        self.stage.setText("Cancelled")
        if self.result is None:
            self.placeholder.setText("Cancelled — press Run to start again.")
        self.overlay_job_ended()

    # -- results ---------------------------------------------------------------------------------
    def apply_result(self, result: RunResult) -> None:
        self.overlay_available([result])
        self.result = result
        self.focus_side = "a"
        self.tables_dock.setWindowTitle("Report")
        self.plots_dock.setWindowTitle("Plots")
        self.panels.set_comparison(None, None)
        self.panels.set_analysis(result.analysis, self.partition_source)
        spec = result.options.get("model") or ""
        if Path(spec).suffix in MODEL_SUFFIXES:
            self.controls.set_catalogue(self._zoo_entries(), self.store.add_recent_file(spec))
        self._show_graph()

    def redraw(self) -> None:
        """Draw the current result(s) again (fold or colouring changed)."""
        if self.showing_compare():
            self._show_compare()
        elif self.result is not None:
            self.panels.set_analysis(self.result.analysis, self.partition_source)
            self._show_graph()

    def _show_graph(self) -> None:
        """(Re)draw the current result with the current fold setting; keep the selection."""
        bundle = self.graph
        self.graph_view.set_graph(bundle.model, bundle.layout, bundle.grouped)
        self.graph_stack.setCurrentWidget(self.graph_view)
        if not self.view_bar.search.hasFocus():
            self.graph_view.setFocus()             # keys (F, +/-, N) go to the canvas
        self.refresh_legends()
        self._update_title_and_status()
        self.reset_walk()
        keep, self.selected = self.selected, None
        if keep and keep in self.result.analysis.nodes:
            self.select_node(keep)
        else:   # the view opened on its own initial viewport (whole graph if readable, else the top)
            self.panels.show_summary(self.result.analysis, bundle.model)
        if self.view_bar.search.text():
            self.search(self.view_bar.search.text())

    def _zoo_entries(self) -> list:
        combo = self.controls.model
        return [(combo.itemData(i), combo.itemData(i, DESC_ROLE)) for i in range(combo.count())
                if combo.itemData(i, DESC_ROLE)]

    def _update_title_and_status(self) -> None:
        a, model = self.result.analysis, self.graph_model
        self.setWindowTitle(f"VPU Inspector — {a.model} ({a.quantizer.upper()})")
        xnn = self.partition_source == XNNPACK and a.delegation is not None
        part, n_v = (a.delegation if xnn else a.partition), len(a.violations)
        sqnr = f"{a.sqnr_db:.1f} dB" if a.sqnr_db is not None else "—"
        subs = len(part.subgraphs)
        unit = "XNNPACK delegate" if xnn else "VPU subgraph"
        chips = [f"<b>{html.escape(a.model)}</b> · {a.quantizer.upper()}",
                 f"{len(a.nodes)} nodes ({len(model.nodes)} shown)",
                 f'<span style="color:{theme.CATEGORY_COLORS["vpu"]}">■</span> {subs} {unit}'
                 + ("s" if subs != 1 else ""),
                 f'<span style="color:{theme.CATEGORY_COLORS["cpu"]}">■</span> {len(part.cpu_nodes)} '
                 + ("not delegated" if xnn else "CPU nodes"),
                 f'<b style="color:{theme.DANGER if n_v else theme.OK}">{n_v} violations</b>',
                 f"{len(part.boundaries)} boundaries ({part.transfer_bytes:,} B)", f"SQNR {sqnr}"]
        self.summary.setText("&nbsp;&nbsp;·&nbsp;&nbsp;".join(chips))

    # -- folding -----------------------------------------------------------------------------------
    def set_fold_params(self, fold: bool) -> None:
        self.store.save_fold_params(fold)
        if self.view_bar.fold.isChecked() != fold:
            self.view_bar.fold.setChecked(fold)     # comes back here through `toggled`
        elif self.result is not None:
            self.redraw()

    def closeEvent(self, event) -> None:
        self.plots_dock.setVisible(True)            # hidden by compare mode only
        self.store.save_window_state(self.saveGeometry(), self.saveState())
        self.store.save_run_options(self.controls.options())
        self.store.sync()
        self.jobs.shutdown()
        super().closeEvent(event)


def run_gui(config=None) -> int:
    """Open the window on `config` (a RunConfig; None = resnet8 / VPU), run it, return the exit code."""
    from app import excepthook

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("VPU Inspector")
    app.setOrganizationName("vpu-inspector")
    theme.apply_theme(app)
    excepthook.install()             # any uncaught exception, any thread: the error dialog
    window = MainWindow()
    options = dataclasses.asdict(config) if config is not None else dict(DEFAULT_OPTIONS)
    window.show()
    window.start_run(options)
    return app.exec()

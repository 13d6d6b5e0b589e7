"""The main window: toolbar controls, the graph, node panel, report tables and plots; `run_gui`.

Nothing here imports torch or the pipeline: the window appears at once and the first run loads
them in the worker thread. All numbers shown come from the core's Analysis and GraphModel.
"""
from __future__ import annotations

import dataclasses
import html
import sys
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (QApplication, QDockWidget, QLabel, QMainWindow, QProgressBar,
                               QStackedWidget, QToolBar, QVBoxLayout, QWidget)

from app import dialogs, theme
from app.controls import DESC_ROLE, RunControls
from app.files import MODEL_SUFFIXES, ModelFilesMixin
from app.jobs import JobRunner
from app.panels import Panels
from app.settings import Store
from app.view_bar import ViewBar
from app.worker import STAGE_NAMES, CatalogueLoader, RunResult, build_graph

DEFAULT_OPTIONS = {"model": "resnet8", "quantizer": "vpu"}
RERUN_DELAY_MS = 350


class MainWindow(ModelFilesMixin, QMainWindow):
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
        self._build_menus()
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
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.view_bar)
        layout.addWidget(self.graph_stack, 1)
        self.setCentralWidget(central)
        self.graph_view.node_selected.connect(self._on_graph_selection)
        self.view_bar.fold_toggled.connect(self.set_fold_params)
        self.view_bar.fit_clicked.connect(self.graph_view.fit)
        self.view_bar.search_changed.connect(self.search)
        self.view_bar.next_clicked.connect(lambda: self._step_match(1))
        self.view_bar.prev_clicked.connect(lambda: self._step_match(-1))
        self.view_bar.large_font_toggled.connect(self.graph_view.set_large_font)
        self.view_bar.high_contrast_toggled.connect(self.graph_view.set_high_contrast)

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
        self.node_dock = self._dock("Node", "nodeDock", self.panels.node_panel,
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

    def _build_menus(self) -> None:
        def action(menu, text, slot, shortcut=None):
            act = QAction(text, self)
            if shortcut:
                act.setShortcut(QKeySequence(shortcut))
            act.triggered.connect(slot)
            menu.addAction(act)

        file_menu = self.menuBar().addMenu("&File")
        action(file_menu, "Open model…", self.open_model_dialog, "Ctrl+O")
        action(file_menu, "Open hardware profile…", self.open_profile_dialog)
        file_menu.addSeparator()
        action(file_menu, "Quit", self.close, "Ctrl+Q")
        run_menu = self.menuBar().addMenu("&Run")
        action(run_menu, "Run", lambda: self.start_run(), "Ctrl+R")
        action(run_menu, "Cancel", self.cancel_run, "Ctrl+.")
        view_menu = self.menuBar().addMenu("&View")
        action(view_menu, "Fit graph", self.graph_view.fit, "F")
        action(view_menu, "Find…", self.focus_search, "Ctrl+F")
        action(view_menu, "Next match", lambda: self._step_match(1), "F3")
        action(view_menu, "Previous match", lambda: self._step_match(-1), "Shift+F3")
        view_menu.addSeparator()
        for dock in (self.node_dock, self.tables_dock, self.plots_dock):
            view_menu.addAction(dock.toggleViewAction())
        back = QShortcut(QKeySequence("Shift+Return"), self.view_bar.search, lambda: self._step_match(-1))
        back.setContext(Qt.ShortcutContext.WidgetShortcut)

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
        self.controls.set_options({**DEFAULT_OPTIONS, **self.store.run_options()})
        self.controls.set_profiles(self.store.recent_profiles(), self.controls.options()["profile"])

    def _on_catalogue(self, entries: list) -> None:
        self.controls.set_catalogue(entries, self.store.recent_files())

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
        self._rerun_timer.stop()
        if options:
            self.set_options(options)
        self.jobs.request(self.run_options(), self.view_bar.fold.isChecked())

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

    def _on_succeeded(self, result: RunResult) -> None:
        self.stage.setText(f"Done in {result.seconds:.1f} s")
        self.apply_result(result)

    def _on_failed(self, error) -> None:
        self.stage.setText("")
        suffix = "&nbsp;&nbsp;— showing the previous result" if self.result is not None else ""
        self.summary.setText(f'<span style="color:{theme.DANGER}">Run failed: {html.escape(error.message)}'
                             f'</span>{suffix}')
        if self.result is None:
            self.placeholder.setText("The run failed — pick another model or quantizer.")
        dialogs.show_error(self, error)

    def _on_cancelled(self) -> None:
        self.stage.setText("Cancelled")
        if self.result is None:
            self.placeholder.setText("Cancelled — press Run to start again.")

    # -- results ---------------------------------------------------------------------------------
    def apply_result(self, result: RunResult) -> None:
        self.result = result
        self.panels.set_analysis(result.analysis)
        spec = result.options.get("model") or ""
        if Path(spec).suffix in MODEL_SUFFIXES:
            self.controls.set_catalogue(self._zoo_entries(), self.store.add_recent_file(spec))
        self._show_graph()

    def _show_graph(self) -> None:
        """(Re)draw the current result with the current fold setting; keep the selection."""
        fold = self.view_bar.fold.isChecked()
        if fold not in self.result.graphs:
            self.result.graphs[fold] = build_graph(self.result.analysis, fold)
        bundle = self.result.graphs[fold]
        self.graph_view.set_graph(bundle.model, bundle.layout)
        self.graph_stack.setCurrentWidget(self.graph_view)
        if not self.view_bar.search.hasFocus():
            self.graph_view.setFocus()             # keys (F, +/-, N) go to the canvas
        self._update_title_and_status()
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

    @property
    def graph(self):
        """The GraphBundle (model + layout) on screen, or None before the first result."""
        return None if self.result is None else self.result.graphs.get(self.view_bar.fold.isChecked())

    @property
    def graph_model(self):
        return None if self.graph is None else self.graph.model

    def _update_title_and_status(self) -> None:
        a, model = self.result.analysis, self.graph_model
        self.setWindowTitle(f"VPU Inspector — {a.model} ({a.quantizer.upper()})")
        part, n_v = a.partition, len(a.violations)
        sqnr = f"{a.sqnr_db:.1f} dB" if a.sqnr_db is not None else "—"
        subs = len(part.subgraphs)
        chips = [f"<b>{html.escape(a.model)}</b> · {a.quantizer.upper()}",
                 f"{len(a.nodes)} nodes ({len(model.nodes)} shown)",
                 f'<span style="color:{theme.CATEGORY_COLORS["vpu"]}">■</span> {subs} VPU subgraph'
                 + ("s" if subs != 1 else ""),
                 f'<span style="color:{theme.CATEGORY_COLORS["cpu"]}">■</span> {len(part.cpu_nodes)} CPU nodes',
                 f'<b style="color:{theme.DANGER if n_v else theme.OK}">{n_v} violations</b>',
                 f"{len(part.boundaries)} boundaries ({part.transfer_bytes:,} B)", f"SQNR {sqnr}"]
        self.summary.setText("&nbsp;&nbsp;·&nbsp;&nbsp;".join(chips))

    # -- selection, search, folding --------------------------------------------------------------
    def select_node(self, node: str, center: bool = True) -> None:
        """Select `node` (any fx node name; a folded parameter maps to its op) and show it."""
        if self.result is None:
            return
        from vpu_core.graph_build import display_id

        shown = display_id(self.graph_model, node)
        if shown not in self.graph.layout.boxes:
            return
        self.selected = shown
        if center:
            self.graph_view.center_on(shown)        # selects too
        else:
            self.graph_view.select_node(shown)
        self.panels.show_node(self.result.analysis, self.graph_model, shown)

    def _on_graph_selection(self, node: str) -> None:
        if self.result is None:
            return
        self.selected = node or None
        if node:
            self.panels.show_node(self.result.analysis, self.graph_model, node)
        else:
            self.panels.show_summary(self.result.analysis, self.graph_model)

    def focus_search(self) -> None:
        self.view_bar.search.setFocus()
        self.view_bar.search.selectAll()

    def search(self, text: str) -> list[str]:
        self._matches = list(self.graph_view.search(text)) if text and self.result else []
        self._match_index = 0 if self._matches else None
        self.view_bar.set_match_count(self._match_index, len(self._matches), text)
        if self._matches:
            self.graph_view.next_match()            # centres on (and selects) the first match
        return self._matches

    def _step_match(self, step: int) -> None:
        if not self._matches:
            return
        node = self.graph_view.next_match() if step > 0 else self.graph_view.prev_match()
        if node in self._matches:     # the view selected it; node_selected updated the panels
            self._match_index = self._matches.index(node)
        self.view_bar.set_match_count(self._match_index, len(self._matches), self.view_bar.search.text())

    def set_fold_params(self, fold: bool) -> None:
        self.store.save_fold_params(fold)
        if self.view_bar.fold.isChecked() != fold:
            self.view_bar.fold.setChecked(fold)     # comes back here through `toggled`
        elif self.result is not None:
            self._show_graph()

    def closeEvent(self, event) -> None:
        self.store.save_window_state(self.saveGeometry(), self.saveState())
        self.store.save_run_options(self.controls.options())
        self.store.sync()
        self.jobs.shutdown()
        super().closeEvent(event)


def _excepthook(exc_type, exc, tb) -> None:
    """A bug in a slot: show it in the error dialog instead of losing it (the window stays up)."""
    import traceback

    from vpu_core.errors import InspectorError

    detail = "".join(traceback.format_exception(exc_type, exc, tb))
    sys.__stderr__.write(detail)
    window = next((w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)), None)
    dialogs.show_error(window, InspectorError(f"Unexpected error: {exc_type.__name__}: {exc}", detail),
                       title="Internal error")


def run_gui(config=None) -> int:
    """Open the window on `config` (a RunConfig; None = resnet8 / VPU), run it, return the exit code."""
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("VPU Inspector")
    app.setOrganizationName("vpu-inspector")
    theme.apply_theme(app)
    sys.excepthook = _excepthook
    window = MainWindow()
    options = dataclasses.asdict(config) if config is not None else dict(DEFAULT_OPTIONS)
    window.show()
    window.start_run(options)
    return app.exec()

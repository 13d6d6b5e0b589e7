"""The main window: the layout of the widgets, and the features composed over one AppState.

    toolbars   the target first, then the run options (app.widgets.run_controls) · view options
               (app.widgets.view_bar)
    centre     compare bar (compare mode) over the canvas, or the compare view, or a placeholder
    docks      node panel and What-if (right, full height, tabbed) · report tables and plots (bottom)
    status     summary of the result, stage and progress of the run

The window itself holds no behaviour: each feature is a controller in app.features that is given
`self.state` and the widgets it owns, and binds them (like napari's QtViewer composing widgets
over its ViewerModel). No controller knows another or the window: they meet in the state. Nothing
here imports torch: the window appears at once; the first run loads it in the worker thread.

Laptop screens: every toolbar overflows into a » menu instead of widening the window, the docks
have minimum widths that keep their content readable, the first size fits the screen, and the
window never resizes itself afterwards (no widget's size hint grows with its text).
"""
from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import QDockWidget, QLabel, QMainWindow, QProgressBar, QVBoxLayout, QWidget

from app.features.compare import CompareController
from app.features.display import DisplayController
from app.features.export import ExportController
from app.features.focus import FocusController
from app.features.files import FilesController
from app.features.navigation import NavigationController
from app.features.overlay import OverlayController
from app.features.persistence import SettingsController
from app.features.presenter import PresenterController
from app.features.runs import RunController
from app.features.runtime import RuntimeController
from app.features.sensitivity import SensitivityController
from app.features.sweep import SweepController
from app.features.target import TargetController
from app.features.shown import window_title
from app.features.status import StatusController
from app.features.view_options import ViewOptionsController
from app.features.whatif import WhatIfController
from app.settings import Store
from app.state import AppState
from app.widgets.compare_bar import CompareBar
from app.widgets.compare_view import CompareView
from app.widgets.graph_area import GraphArea
from app.widgets.panels import Panels
from app.widgets.run_controls import RunControls
from app.widgets.sensitivity_panel import SensitivityPanel
from app.widgets.sweep_table import SweepTable
from app.widgets.view_bar import ViewBar
from app.widgets.whatif_panel import WhatIfPanel
from app.window import gc_guard
from app.window.menus import build_menus

DEFAULT_SIZE = (1600, 1000)
NODE_DOCK_MIN, TABLES_MIN, PLOTS_MIN = 300, 300, 240
COMPACT_HEIGHT = 900        # below: report and plots tabbed beside the node panel (laptops)


class MainWindow(QMainWindow):
    def __init__(self, store: Store | None = None) -> None:
        super().__init__()
        gc_guard.hold()             # Qt objects in cycles must die on this thread (gc_guard.py)
        self._gc_held = True
        self.store = store or Store()
        self.state = AppState(self)
        self.settings = SettingsController(self.state, self.store)     # the saved request, first
        self.setWindowTitle("VPU Inspector")
        self._build_toolbars()
        self._build_central()
        self._build_docks()
        self._build_status()
        self._compose()
        build_menus(self)
        self._restore()

    # -- layout ----------------------------------------------------------------------------------
    def _build_toolbars(self) -> None:
        self.measure_action = QAction("Run on this CPU (ExecuTorch XNNPACK)", self)
        self.measure_action.setCheckable(True)
        self.measure_action.setShortcut(QKeySequence("Ctrl+Shift+R"))
        self.measure_action.setStatusTip("Lower the graph to an ExecuTorch program and run it here: latency, "
                                         "SQNR, and every op's measured µs (colour by Measured µs)")
        self.controls = RunControls(self)
        self.run_toolbar = self.controls.toolbar()
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.run_toolbar)
        self.addToolBarBreak()
        self.view_bar = ViewBar()
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.view_bar)

    def _build_central(self) -> None:
        from app.graph_view import GraphView

        self.graph_view = GraphView()
        self.compare_view = CompareView()
        self.compare_bar = CompareBar()
        self.compare_bar.hide()
        self.graph_stack = GraphArea(self.graph_view, self.compare_view)
        self.placeholder = self.graph_stack.placeholder
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.compare_bar)
        layout.addWidget(self.graph_stack, 1)
        self.setCentralWidget(central)

    def _dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea, minimum: int) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        dock.setMinimumWidth(minimum)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable |
                         QDockWidget.DockWidgetFeature.DockWidgetFloatable)
        self.addDockWidget(area, dock)
        return dock

    def _build_docks(self) -> None:
        self.panels = Panels(self)
        bottom = Qt.DockWidgetArea.BottomDockWidgetArea
        self.node_dock = self._dock("Node", "nodeDock", self.panels.node_area,
                                    Qt.DockWidgetArea.RightDockWidgetArea, NODE_DOCK_MIN)
        self.tables_dock = self._dock("Report", "tablesDock", self.panels.tables, bottom, TABLES_MIN)
        self.plots_dock = self._dock("Plots", "plotsDock", self.panels.plots, bottom, PLOTS_MIN)
        self.splitDockWidget(self.tables_dock, self.plots_dock, Qt.Orientation.Horizontal)
        self.setCorner(Qt.Corner.BottomRightCorner, Qt.DockWidgetArea.RightDockWidgetArea)
        self.whatif_panel = WhatIfPanel()           # a tab beside the node panel (View ▸ What-if)
        self.whatif_dock = self._dock("What-if", "whatifDock", self.whatif_panel,
                                      Qt.DockWidgetArea.RightDockWidgetArea, NODE_DOCK_MIN)
        self.tabifyDockWidget(self.node_dock, self.whatif_dock)
        self.sensitivity_panel = SensitivityPanel()     # a tab beside What-if (View ▸ Sensitivity)
        self.sensitivity_dock = self._dock("Sensitivity", "sensitivityDock", self.sensitivity_panel,
                                           Qt.DockWidgetArea.RightDockWidgetArea, NODE_DOCK_MIN)
        self.tabifyDockWidget(self.whatif_dock, self.sensitivity_dock)
        self.node_dock.raise_()
        self.sweep_table = SweepTable()             # a tab beside the report tables (File ▸ Open sweep…)
        self.sweep_dock = self._dock("Sweep", "sweepDock", self.sweep_table, bottom, TABLES_MIN)
        self.tabifyDockWidget(self.tables_dock, self.sweep_dock)
        self.sweep_dock.hide()                      # shown when a sweep is opened
        self.sweep_dock.visibilityChanged.connect(self._widen_sweep)
        self.tables_dock.raise_()

    def _build_status(self) -> None:
        from app.widgets.status import StatusSummary

        self.summary = StatusSummary()
        self.stage = QLabel("")
        self.stage.setObjectName("muted")
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress.setFixedWidth(160)
        self.progress.hide()
        status = self.statusBar()
        status.addWidget(self.summary, 1)
        status.addPermanentWidget(self.stage)
        status.addPermanentWidget(self.progress)

    def _compose(self) -> None:
        """The features, each given the state and the widgets it owns (nothing else). Order
        matters only where two features follow one signal: the display draws before the others
        re-apply search and legends on `drawn`; the look reaches the canvases before the legends."""
        state, status = self.state, self.statusBar()
        canvases = [self.graph_view, *self.compare_view.views_list()]
        self.runs = RunController(state, self.controls)
        self.targets = TargetController(state, self.controls)
        self.display = DisplayController(state, self.graph_stack, self.panels, self.tables_dock, self.plots_dock)
        self.status = StatusController(state, self.summary, self.stage, self.progress)
        self.navigation = NavigationController(state, self.graph_view, self.compare_view, self.view_bar,
                                               self.panels, self.panels.compare)
        self.presenter = PresenterController(state, self.view_bar, status, canvases)
        self.overlay = OverlayController(state, self.graph_view, self.compare_view)
        self.compare = CompareController(state, self.view_bar, self.compare_bar, self.plots_dock)
        self.files = FilesController(state, self.controls, self.store)
        self.exports = ExportController(state, self.graph_view, self.compare_view, status, self.store)
        self.view_options = ViewOptionsController(state, self.view_bar, canvases)
        self.whatif = WhatIfController(state, self.whatif_panel, self.whatif_dock, try_links=self.panels,
                                       cards=self.graph_stack)
        self.sensitivity = SensitivityController(state, self.sensitivity_panel, self.sensitivity_dock,
                                                 cards=self.graph_stack)
        self.runtime = RuntimeController(state, self.measure_action)
        self.sweep = SweepController(state, self.sweep_table, self.sweep_dock)
        self.focus = FocusController(state, [self.node_dock, self.whatif_dock, self.sensitivity_dock, self.tables_dock,
                                             self.plots_dock, self.sweep_dock, self.run_toolbar,
                                             self.view_bar, status])
        state.drawn.connect(lambda: self.setWindowTitle(window_title(state)))
        self.setAcceptDrops(True)
        self.installEventFilter(self.files)                # drag & drop of model files

    # -- sizes and settings ------------------------------------------------------------------------
    def _restore(self) -> None:
        geometry, state = self.store.window_state()
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(*first_size())
        if state is None or not self.restoreState(state):
            self._size_docks()

    def _size_docks(self) -> None:
        """Shares of the window: the node panel a quarter of the width, the docks a third of the
        height; below COMPACT_HEIGHT (a 1280×720 laptop) the report and plots are tabs beside the
        node panel instead, so the graph keeps the whole height (well over half the window)."""
        width, height = self.width(), self.height()
        if height < COMPACT_HEIGHT:
            # a laptop: the docks at their readable minimum up to 1280 px, so compare mode's two
            # canvases keep half the window (a fifth of the width beyond)
            self._tab_docks_right()
            self.resizeDocks([self.node_dock], [max(NODE_DOCK_MIN, min(400, width // 5))],
                             Qt.Orientation.Horizontal)
            return
        self._docks_below()
        self.resizeDocks([self.node_dock], [max(NODE_DOCK_MIN, min(440, width // 4))], Qt.Orientation.Horizontal)
        self.resizeDocks([self.tables_dock], [max(200, height // 3)], Qt.Orientation.Vertical)
        rest = width - max(NODE_DOCK_MIN, min(440, width // 4))
        self.resizeDocks([self.tables_dock, self.plots_dock], [rest * 11 // 20, rest * 9 // 20],
                         Qt.Orientation.Horizontal)

    def _tab_docks_right(self) -> None:
        """Report and Plots as tabs of the right dock area, after Node and What-if."""
        right = Qt.DockWidgetArea.RightDockWidgetArea
        for dock in (self.tables_dock, self.plots_dock):
            if self.dockWidgetArea(dock) != right:
                self.addDockWidget(right, dock)
            self.tabifyDockWidget(self.whatif_dock, dock)
        self.node_dock.raise_()

    def _docks_below(self) -> None:
        """Report and Plots side by side under the graph (where a taller window has room)."""
        bottom = Qt.DockWidgetArea.BottomDockWidgetArea
        if self.dockWidgetArea(self.tables_dock) == bottom and self.dockWidgetArea(self.plots_dock) == bottom:
            return
        self.addDockWidget(bottom, self.tables_dock)
        self.addDockWidget(bottom, self.plots_dock)
        self.splitDockWidget(self.tables_dock, self.plots_dock, Qt.Orientation.Horizontal)
        self.tabifyDockWidget(self.tables_dock, self.sweep_dock)     # the sweep's place again
        self.tables_dock.raise_()

    def _widen_sweep(self, visible: bool) -> None:
        """A sweep's table has eleven columns: while it shows, its dock takes two thirds of the
        width the bottom docks share (the plots keep a third)."""
        if visible and not self.sweep_dock.isFloating():
            QTimer.singleShot(0, self._share_bottom_for_sweep)      # once the dock is laid out

    def _share_bottom_for_sweep(self) -> None:
        rest = self.width() - self.node_dock.width()
        self.resizeDocks([self.sweep_dock, self.plots_dock], [rest * 2 // 3, rest // 3], Qt.Orientation.Horizontal)

    def resize_for(self, width: int, height: int) -> None:
        """Resize (e.g. `--size`) and share the docks out for that size."""
        self.resize(width, height)
        self._size_docks()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.plots_dock.setVisible(True)            # hidden by compare mode only
        self.store.save_window_state(self.saveGeometry(), self.saveState())
        self.settings.save()
        self.store.sync()
        self.runs.jobs.shutdown()
        self.whatif.shutdown()
        self.sensitivity.shutdown()
        super().closeEvent(event)
        if self._gc_held:
            self._gc_held = False
            gc_guard.release()


def first_size() -> tuple[int, int]:
    """DEFAULT_SIZE, or 90 % of a smaller screen (never larger than the screen)."""
    screen = QGuiApplication.primaryScreen()
    if screen is None:
        return DEFAULT_SIZE
    avail = screen.availableGeometry()
    return min(DEFAULT_SIZE[0], int(avail.width() * 0.95)), min(DEFAULT_SIZE[1], int(avail.height() * 0.92))

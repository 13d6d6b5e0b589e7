"""The What-if dock: profile editor, constraint cost (ablation) and op-list what-if, in one place.

    whatif = install_whatif(window)       # MainWindow.__init__, once

It follows the window's results (jobs.succeeded), turns the editor's Apply into a run that lets
the session re-read the current Q/DQ graph when the change cannot alter it (no re-quantization),
jumps to nodes through window.select_node, and stops a running ablation when the window closes.
View ▸ What-if (Ctrl+Shift+W) shows the dock. Written against the current MainWindow (jobs,
run_options, set_options, fold, select_node, _dock, node_dock); see the wiring notes in the report.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QTabWidget

from app.widgets.ablation_chart import AblationChart
from resources import DEFAULT_PROFILE
from app.widgets.op_candidates import OpCandidatesPanel
from app.widgets.profile_editor import ProfileEditor
from app.worker import RunResult, RunWorker
from vpu_core.config import RunConfig, ViewOptions
from vpu_core.errors import InspectorError

TAB_PROFILE, TAB_ABLATION, TAB_CANDIDATES = 0, 1, 2


class ReprofileWorker(RunWorker):
    """A run that may re-read the session's last Q/DQ graph under a new profile (never `fresh`)."""

    def _side(self, options: dict, reuse):
        from vpu_core.session import default_session

        source = "xnnpack" if self.xnnpack else "simulated"
        inspection = default_session().inspect(RunConfig(**options), ViewOptions(self.fold_params, source),
                                               progress=self._report, cancel=self._cancel, fresh=False,
                                               int_sim=True)      # as RunWorker: the window always simulates
        result = RunResult(options, inspection.analysis)
        result.graphs[(self.fold_params, source)] = inspection.graph
        return result


class WhatIf(QObject):
    def __init__(self, window, profile_dir=None) -> None:
        super().__init__(window)
        self.window = window
        self.editor = ProfileEditor(profile_dir)
        self.ablation = AblationChart()
        self.candidates = OpCandidatesPanel()
        self.tabs = QTabWidget()
        self.tabs.addTab(self.editor, "Profile")
        self.tabs.addTab(self.ablation, "Constraint cost")
        self.tabs.addTab(self.candidates, "Next kernel")
        self.tabs.setTabToolTip(TAB_CANDIDATES, "Op-list what-if and partition economics")
        self.dock = window._dock("What-if", "whatifDock", self.tabs, Qt.DockWidgetArea.RightDockWidgetArea)
        window.tabifyDockWidget(window.node_dock, self.dock)
        window.node_dock.raise_()
        self.action = QAction("What-if: profile, constraint cost, next kernel", window)
        self.action.setShortcut(QKeySequence("Ctrl+Shift+W"))
        self.action.triggered.connect(self.show)
        view_menu = next((a.menu() for a in window.menuBar().actions() if a.text() == "&View"), None)
        if view_menu is not None:
            view_menu.addSeparator()
            view_menu.addAction(self.action)
        window.jobs.succeeded.connect(self.on_result)
        self.editor.apply_requested.connect(self.apply_profile)
        self.candidates.node_activated.connect(window.select_node)
        window.installEventFilter(self)

    def show(self, tab: int | None = None) -> None:
        self.dock.show()
        self.dock.raise_()
        if tab is not None:
            self.tabs.setCurrentIndex(tab)

    def on_result(self, result) -> None:
        """A run finished: the editor, the ablation and the tables follow the result on screen."""
        if not isinstance(result, RunResult):
            return
        from vpu_core.profile import load_profile

        path = result.options.get("profile") or None
        wanted = str(path or DEFAULT_PROFILE)
        in_use = self.editor.in_use
        if in_use is None or wanted != in_use.path or not self.editor.is_modified():   # keep unapplied edits
            try:
                self.editor.set_profile(load_profile(path))
            except InspectorError:
                pass        # the run itself reported a bad profile
        self.editor.set_analysis(result.analysis)
        self.ablation.set_options(result.options)
        self.candidates.set_analysis(result.analysis)

    def apply_profile(self, path: str) -> None:
        """Run the on-screen configuration with the applied profile; the session re-quantizes only
        when the change can alter the Q/DQ graph."""
        w = self.window
        options = {**w.run_options(), "profile": path}
        w.set_options(options)
        fold, xnnpack = w.fold(), w.partition_source == "xnnpack"
        w.jobs.request_job(lambda: ReprofileWorker(options, fold, xnnpack=xnnpack))

    def current_ablation(self):
        """The ablation of the run on screen, if one was made (for the exported report)."""
        report = self.ablation.report
        return report if report is not None and self.ablation.options == (self.window.result.options
                                                                            if self.window.result else None) \
            else None

    def eventFilter(self, obj, event) -> bool:
        if obj is self.window and event.type() == QEvent.Type.Close:
            self.ablation.shutdown()
        return False


def install_whatif(window, profile_dir=None) -> WhatIf:
    return WhatIf(window, profile_dir)

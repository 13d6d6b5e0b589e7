"""The menu bar and the window-wide keyboard shortcuts: each entry calls a feature controller."""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence, QShortcut

from app.features.shown import colour_choices

if TYPE_CHECKING:
    from app.window.main_window import MainWindow


def _action(window, menu, text: str, slot, shortcut: str | None = None, tip: str = "") -> QAction:
    act = QAction(text, window)
    if shortcut:
        act.setShortcut(QKeySequence(shortcut))
    if tip:
        act.setStatusTip(tip)
    act.triggered.connect(slot)
    menu.addAction(act)
    return act


def build_menus(w: MainWindow) -> None:
    files, exports, runs, nav = w.files, w.exports, w.runs, w.navigation
    bar = w.menuBar()
    file_menu = bar.addMenu("&File")
    _action(w, file_menu, "Open model…", files.open_model_dialog, "Ctrl+O")
    _action(w, file_menu, "Open hardware profile…", files.open_profile_dialog)
    _action(w, file_menu, "Calibration data…", files.open_calibration_dialog,
            tip="Calibrate on samples from a .pt / .npz file instead of random batches")
    _action(w, file_menu, "Open sweep…", w.sweep.open_sweep_dialog, "Ctrl+Shift+O",
            "A folder written by `vpu-inspector sweep`: every run in a sortable table")
    file_menu.addSeparator()
    _action(w, file_menu, "Export report…", exports.export_report_dialog, "Ctrl+E",
            "One self-contained HTML file (with the comparison in compare mode)")
    _action(w, file_menu, "Export image…", exports.export_image_dialog, "Ctrl+Shift+E",
            "The current view or the whole graph, PNG or SVG")
    file_menu.addSeparator()
    _action(w, file_menu, "Quit", w.close, "Ctrl+Q")

    run_menu = bar.addMenu("&Run")
    _target_menu(w, run_menu.addMenu("Target"))
    run_menu.addSeparator()
    _action(w, run_menu, "Run", lambda: runs.start(), "Ctrl+R")
    _action(w, run_menu, "Cancel", runs.cancel, "Ctrl+.")
    _action(w, run_menu, "Time limit of a run…", runs.ask_time_limit,
            tip="A run still going after that many seconds is stopped (its worker process killed)")
    run_menu.addSeparator()
    run_menu.addAction(w.measure_action)
    run_menu.addSeparator()
    run_menu.addAction(w.controls.reference_observers)

    view_menu = bar.addMenu("&View")
    _action(w, view_menu, "Fit graph", nav.fit, "F")
    _action(w, view_menu, "Find…", nav.focus_search, "Ctrl+F")
    _action(w, view_menu, "Next match", lambda: nav.step_match(1), "F3")
    _action(w, view_menu, "Previous match", lambda: nav.step_match(-1), "Shift+F3")
    view_menu.addSeparator()
    _action(w, view_menu, "Next violation", lambda: w.presenter.step(1), "V")
    _action(w, view_menu, "Previous violation", lambda: w.presenter.step(-1), "Shift+V")
    view_menu.addSeparator()
    _action(w, view_menu, "Compare mode on / off", w.compare.toggle, "Ctrl+K")
    _action(w, view_menu, "Judge this graph by XNNPACK / the VPU", w.overlay.toggle, "Ctrl+D",
            "The same quantized graph judged by the other target (the quantizer stays: an override)")
    _action(w, view_menu, "Large labels", w.view_bar.large_font.click, "Ctrl+=")
    focus = _action(w, view_menu, "Focus mode: only the graph", w.focus.toggle, "F11",
                    "Hide the docks, toolbars and status bar: the canvas fills the window")
    show = _action(w, view_menu, "Presentation mode: large labels, thick edges", w.presenter.toggle_presentation,
                   "F5", "For a projector: larger bold labels, edges twice as thick, the legend scaled")
    for act in (focus, show):
        act.setCheckable(True)
    w.state.focus_mode_changed.connect(lambda: focus.setChecked(w.state.focus_mode))
    w.state.look_changed.connect(lambda: show.setChecked(w.state.look.presentation))
    _action(w, view_menu, "High contrast", w.view_bar.high_contrast.click)
    view_menu.addSeparator()
    for dock in (w.node_dock, w.tables_dock, w.plots_dock, w.whatif_dock, w.sensitivity_dock, w.sweep_dock):
        view_menu.addAction(dock.toggleViewAction())
    _action(w, view_menu, "Sensitivity: which layer costs the decibels, and its fixes", lambda: w.sensitivity.show(),
            "Ctrl+Shift+A", "Rank the quantized layers by error and predict what each fix gains and costs")
    _action(w, view_menu, "What-if: profile, constraint cost, next kernel", lambda: w.whatif.show(),
            "Ctrl+Shift+W", "Edit the hardware profile, rank what each constraint costs, which kernel to add")
    _action(w, view_menu, "Try the selected CPU node on the VPU", w.whatif.try_selected, "T",
            "What-if with the profile edit that moves the selected node to the VPU, ready to Apply")

    back = QShortcut(QKeySequence("Shift+Return"), w.view_bar.search, lambda: nav.step_match(-1))
    back.setContext(Qt.ShortcutContext.WidgetShortcut)
    # Presentation clickers send PgDown / PgUp: on the graph they walk the violations (in the
    # tables they keep scrolling, hence the narrower context).
    for key, step in (("PgDown", 1), ("PgUp", -1)):
        shortcut = QShortcut(QKeySequence(key), w.graph_stack, lambda s=step: w.presenter.step(s))
        shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)


def _target_menu(w: MainWindow, menu) -> None:
    """Run ▸ Target: the run toolbar's choices (the target registry), one checked; choosing one
    picks its quantizer and colours the graph by its verdict (app.features.target); an
    unavailable target is greyed with the sentence saying which package it needs."""
    group = QActionGroup(menu)
    group.setExclusive(True)
    actions: dict[str, QAction] = {}
    for choice in colour_choices():
        act = QAction(choice.title, menu, checkable=True, enabled=choice.enabled)
        act.setStatusTip(choice.tooltip)
        act.setToolTip(choice.tooltip)
        act.triggered.connect(lambda _=False, source=choice.source: w.targets.choose(source))
        group.addAction(act)
        menu.addAction(act)
        actions[choice.source] = act
    menu.setToolTipsVisible(True)

    def follow() -> None:
        act = actions.get(w.state.view.partition_source)
        if act is not None:
            act.setChecked(True)

    w.state.view_changed.connect(follow)
    follow()

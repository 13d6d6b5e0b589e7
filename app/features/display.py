"""Display: the state on screen — the canvas (or compare view), the docks, the status bar, the title.

Listens to the application state and nothing else: a new result or comparison is drawn, the
selection is kept when the new graph still has it (a folded parameter maps to its op), the docks
report on the side the user works on, and the status bar follows the run. Everything shown of a
result is drawn for the view that result was drawn for (its partition source), so the canvas,
the status bar, the node panel and the tables always tell the same numbers. `shown` is emitted
after every redraw (search and legends are re-applied on it).
"""
from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.state import AppState
from app.widgets.compare_table import pair_html
from app.widgets.status import compare_html, failure_html, single_html
from vpu_core.formatting import profile_label


def source_of(inspection) -> str:
    """The partition an inspection's graph is coloured by."""
    return inspection.view.partition_source if inspection is not None and inspection.view else "simulated"


class DisplayController(QObject):
    shown = Signal()

    def __init__(self, state: AppState, ui) -> None:
        """`ui`: the main window, whose widgets this draws into: graph_stack, placeholder,
        graph_view, compare_view, view_bar, panels, tables_dock, plots_dock, summary, stage,
        progress, controls (and its title)."""
        super().__init__(state)
        self.state, self.ui = state, ui
        state.result_changed.connect(self._on_result)
        state.comparison_changed.connect(self.redraw)
        state.compare_mode_changed.connect(lambda _on: self.redraw())
        state.selection_changed.connect(self._show_selection)
        state.focus_side_changed.connect(lambda _side: self._show_focus())
        state.run_changed.connect(self._show_run)

    # -- results -----------------------------------------------------------------------------------
    def _on_result(self) -> None:
        if not self.state.showing_compare:
            self.redraw()

    def redraw(self) -> None:
        """Draw what the state shows: the comparison, the single result, or nothing yet."""
        ui, state = self.ui, self.state
        if state.showing_compare:
            pair = state.comparison
            ui.compare_view.set_result(pair, pair.a.graph, pair.b.graph)
            names = {side: {n: i.op for n, i in insp.analysis.nodes.items()}
                     for side, insp in (("a", pair.a), ("b", pair.b))}
            ui.panels.set_comparison(pair.comparison, names)
            ui.graph_stack.setCurrentWidget(ui.compare_view)
            if not ui.view_bar.search.hasFocus():
                ui.compare_view.views[state.focus_side].setFocus()
            ui.setWindowTitle(f"VPU Inspector — {pair.a.analysis.model}: "
                                     f"{pair.comparison.a_label} vs {pair.comparison.b_label}")
        elif state.result is not None:
            graph = state.result.graph
            ui.graph_view.set_graph(graph.model, graph.layout, graph.grouped)
            ui.panels.set_comparison(None, None)
            ui.graph_stack.setCurrentWidget(ui.graph_view)
            a = state.result.analysis
            ui.setWindowTitle(f"VPU Inspector — {a.model} ({a.quantizer.upper()})")
            if not ui.view_bar.search.hasFocus():
                ui.graph_view.setFocus()        # keys (F, +/-, N, V) go to the canvas
        else:
            ui.graph_stack.setCurrentWidget(ui.placeholder)
            return
        ui.controls.set_inputs(state.result.analysis.inputs)
        self._show_focus(tab_compare=state.showing_compare)
        self._show_status()
        self._keep_selection()
        self.shown.emit()

    def _show_focus(self, tab_compare: bool = False) -> None:
        """The docks report on the focused side (always A outside compare mode)."""
        ui, state = self.ui, self.state
        inspection = state.inspection(state.focus_side)
        if inspection is None:
            return
        ui.panels.set_analysis(inspection.analysis, source_of(inspection))
        if state.showing_compare:
            label = ui.compare_view.label(state.focus_side)
            side = state.focus_side.upper()
            ui.tables_dock.setWindowTitle(f"Report — {side}: {label}")
            ui.plots_dock.setWindowTitle(f"Plots — {side}: {label}")
            if tab_compare and state.selection is None:
                ui.panels.tables.setCurrentIndex(ui.panels.compare_index)
        else:
            ui.tables_dock.setWindowTitle("Report")
            ui.plots_dock.setWindowTitle("Plots")
        self._show_selection()

    def _keep_selection(self) -> None:
        """After a redraw: select the same node again (or what shows it now), or nothing."""
        from vpu_core.graph.build import display_id

        selection = self.state.selection
        if selection is None:
            self._show_selection()
            return
        graph = self.state.graph(selection.side)
        shown = display_id(graph.model, selection.node) if graph is not None else None
        if shown is None or shown not in graph.layout.boxes:
            self.state.select(None)
            return
        view = self._view(selection.side)
        view.select_node(shown)
        self.state.select(selection.side, shown)
        self._show_selection()

    def _view(self, side: str):
        return self.ui.compare_view.views[side] if self.state.showing_compare else self.ui.graph_view

    def _show_selection(self) -> None:
        """The node panel and the channel plot: the selected node, or the focused side's summary."""
        ui, state = self.ui, self.state
        selection = state.selection
        side = selection.side if selection is not None else state.focus_side
        inspection = state.inspection(side)
        if inspection is None:
            return
        if selection is not None and state.showing_compare:
            state.set_focus_side(selection.side)          # the docks follow the side clicked
        source, model = source_of(inspection), inspection.graph.model
        if selection is None:
            ui.panels.show_summary(inspection.analysis, model, source)
            return
        prefix = ""
        if state.showing_compare:
            op = ui.compare_view.op_of(side, selection.node)
            prefix = pair_html(state.comparison.comparison, side, selection.node, op)
        ui.panels.show_node(inspection.analysis, model, selection.node, prefix, source)

    # -- status ------------------------------------------------------------------------------------
    def _show_status(self) -> None:
        ui, state = self.ui, self.state
        error = state.run.error
        if error is not None and not state.run.running:
            shown = state.result.analysis.model if state.result is not None else ""
            ui.summary.setText(failure_html(error.message, f"the previous result ({shown})" if shown else ""))
        elif state.showing_compare:
            ui.summary.setText(compare_html(state.comparison))
        elif state.result is not None:
            ui.summary.setText(single_html(state.result.analysis, state.result.graph.model,
                                           source_of(state.result), profile_label(state.result.config.profile)))

    def _show_run(self) -> None:
        ui, run, state = self.ui, self.state.run, self.state
        ui.controls.set_running(run.running)
        ui.progress.setVisible(run.running)
        ui.progress.setValue(int(run.fraction * 1000))
        ui.stage.setText(run.stage + ("…" if run.running and run.stage and not run.stage.endswith("…") else ""))
        if state.result is None:
            name = Path(run.model).name if run.model else ""
            if run.running:
                ui.placeholder.setText(f"Quantizing {name} with the {run.quantizer.upper()} quantizer…")
                ui.panels.show_running(name, run.quantizer)
                ui.summary.setText(f"Running {name}…")
            elif run.error is not None:
                ui.placeholder.setText("The run failed — pick another model or quantizer.")
                ui.panels.clear("The run failed: nothing to show yet.")
                ui.summary.setText(failure_html(run.error.message))
            elif run.cancelled:
                ui.placeholder.setText("Cancelled — press Run to start again.")
                ui.panels.clear("Cancelled: nothing to show yet.")
                ui.summary.setText("Cancelled.")
        else:
            self._show_status()

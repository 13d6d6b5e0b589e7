"""Display: the state's result on screen — the canvas (or compare view), the docks and their titles.

Listens to the application state and nothing else: a new result or comparison is drawn, the
selection is kept when the new graph still has it (a folded parameter maps to its op), the docks
report on the side the user works on, and while the first run goes the placeholder says what
runs. Everything shown of a result is drawn for the view that result was drawn for (its partition
source), so the canvas, the node panel and the tables always tell the same numbers. After every
redraw the state announces `drawn` (search, legends and the violation walk re-apply on it).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QAbstractSpinBox, QApplication, QLineEdit, QTextEdit

from app.features.shown import side_label, source_of
from app.state import AppState
from app.widgets.compare_table import pair_html
from vpu_core.compare import Side

if TYPE_CHECKING:
    from vpu_core.session import Inspection
    from vpu_core.whatif.try_on_vpu import VpuFix

    from app.graph_view import GraphView
    from app.widgets.compare_view import CompareView
    from app.widgets.panels import Panels


class GraphSurface(Protocol):
    """The centre of the window (app.widgets.graph_area.GraphArea): a placeholder, the canvas or
    the compare view."""

    graph_view: GraphView
    compare_view: CompareView

    def show_placeholder(self, text: str | None = None) -> None: ...

    def show_single(self) -> None: ...

    def show_compare(self) -> None: ...


class Titled(Protocol):
    def setWindowTitle(self, title: str) -> None: ...


class DisplayController(QObject):
    def __init__(self, state: AppState, area: GraphSurface, panels: Panels, tables_dock: Titled,
                 plots_dock: Titled) -> None:
        super().__init__(state)
        self.state, self.area, self.panels = state, area, panels
        self.tables_dock, self.plots_dock = tables_dock, plots_dock
        state.result_changed.connect(self._on_result)
        state.comparison_changed.connect(self.redraw)
        state.compare_mode_changed.connect(lambda _on: self.redraw())
        state.selection_changed.connect(self._show_selection)
        state.focus_side_changed.connect(lambda _side: self._show_focus())
        state.run_changed.connect(self._show_run)
        self._drawn: Inspection | None = None      # the single result last drawn

    # -- results -----------------------------------------------------------------------------------
    def _on_result(self) -> None:
        if not self.state.showing_compare:
            self.redraw()

    def redraw(self) -> None:
        """Draw what the state shows: the comparison, the single result, or nothing yet. The
        selected node keeps its place on screen (and stays in view) across the redraw."""
        area, state, pair, result = self.area, self.state, self.state.comparison, self.state.result
        selection = state.selection
        anchor, kept = None, False
        if selection is not None and (selection.side in ("a", "b") and (
                state.showing_compare or selection.side == "a")):
            anchor = self._view(selection.side).anchor_of(selection.node)
        if state.showing_compare and pair is not None:
            if pair.a.graph is not None and pair.b.graph is not None:   # compare jobs ask for both views
                area.compare_view.set_result(pair, pair.a.graph, pair.b.graph)
            names = {side: {n: i.op for n, i in insp.analysis.nodes.items()}
                     for side, insp in (("a", pair.a), ("b", pair.b))}
            self.panels.set_comparison(pair.comparison, names)
            area.show_compare()
            if not _typing():
                area.compare_view.views[state.focus_side].setFocus()
        elif result is not None and result.graph is not None:
            graph, drawn = result.graph, self._drawn
            # the quantized result replacing its prediction: same ids, so the same view
            replacing = (drawn is not None and drawn.analysis.predicted and drawn.config == result.config
                         and drawn is not result)
            kept = not state.showing_compare and _same_drawing(drawn, result)
            if not kept:               # else the same graph with the follow-up stages: left as it is
                area.graph_view.set_graph(graph.model, graph.layout, graph.grouped, keep_view=replacing)
            self._drawn = result
            self.panels.set_comparison(None, None)
            area.show_single()
            if not _typing():
                area.graph_view.setFocus()        # keys (F, +/-, N, V) go to the canvas
        else:
            area.show_placeholder()
            return
        self._show_focus(tab_compare=state.showing_compare)
        if not kept:
            self._keep_selection(anchor)
        state.drawn.emit()

    def _show_focus(self, tab_compare: bool = False) -> None:
        """The docks report on the focused side (always A outside compare mode)."""
        state, panels = self.state, self.panels
        inspection = state.inspection(state.focus_side)
        if inspection is None:
            return
        panels.set_analysis(inspection.analysis, source_of(inspection), inspection.attached, inspection.targets)
        if state.showing_compare:
            label = side_label(state, state.focus_side)
            side = state.focus_side.upper()
            self.tables_dock.setWindowTitle(f"Report — {side}: {label}")
            self.plots_dock.setWindowTitle(f"Plots — {side}: {label}")
            if tab_compare and state.selection is None:
                panels.tables.setCurrentIndex(panels.compare_index)
        else:
            self.tables_dock.setWindowTitle("Report")
            self.plots_dock.setWindowTitle("Plots")
        self._show_selection()

    def _keep_selection(self, anchor=None) -> None:
        """After a redraw: select the same node again (or what shows it now), where it was on
        screen (`anchor`: GraphView.anchor_of before the redraw) and in view; or nothing."""
        from vpu_core.graph.build import display_id

        selection = self.state.selection
        if selection is None:
            self._show_selection()
            return
        graph = self.state.graph(selection.side)
        shown = display_id(graph.model, selection.node) if graph is not None else None
        if graph is None or shown is None or shown not in graph.layout.boxes:
            self.state.select(None)
            return
        view = self._view(selection.side)
        view.select_node(shown)
        view.keep_in_view(shown, anchor)
        self.state.select(selection.side, shown)
        self._show_selection()

    def _view(self, side: Side) -> GraphView:
        return self.area.compare_view.views[side] if self.state.showing_compare else self.area.graph_view

    def _show_selection(self) -> None:
        """The node panel and the channel plot: the selected node, or the focused side's summary."""
        state, selection = self.state, self.state.selection
        side = selection.side if selection is not None else state.focus_side
        inspection = state.inspection(side)
        if inspection is None or inspection.graph is None:
            return
        if selection is not None and state.showing_compare:
            state.set_focus_side(selection.side)          # the docks follow the side clicked
        source, model = source_of(inspection), inspection.graph.model
        if selection is None:
            self.panels.show_summary(inspection.analysis, model, source, inspection.attached, inspection.targets)
            return
        prefix = ""
        pair = state.comparison
        if state.showing_compare and pair is not None:
            op = self.area.compare_view.op_of(side, selection.node)
            prefix = pair_html(pair.comparison, side, selection.node, op)
        self.panels.show_node(inspection.analysis, model, selection.node, prefix, source,
                              _fix(inspection, selection.node) if selection.side == "a" else None,
                              inspection.attached, inspection.targets)

    # -- while nothing is shown ----------------------------------------------------------------------
    def _show_run(self) -> None:
        run = self.state.run
        if self.state.result is not None:
            return
        name = Path(run.model).name if run.model else ""
        if run.running:
            self.area.show_placeholder(f"Quantizing {name} with the {run.quantizer.upper()} quantizer…")
            self.panels.show_running(name, run.quantizer)
        elif run.error is not None:
            self.area.show_placeholder("The run failed — pick another model or quantizer.")
            self.panels.clear("The run failed: nothing to show yet.")
        elif run.cancelled:
            self.area.show_placeholder("Cancelled — press Run to start again.")
            self.panels.clear("Cancelled: nothing to show yet.")


def _fix(inspection: Inspection, node: str) -> VpuFix | None:
    """The profile edit that would move `node` to the VPU (an op-list entry, or its failing per-op
    limits relaxed to its own values): the node panel offers it."""
    from vpu_core.whatif.try_on_vpu import vpu_fix

    return vpu_fix(inspection.analysis, node)


def _same_drawing(drawn: Inspection | None, result: Inspection) -> bool:
    """`result` draws exactly what `drawn` drew (it adds the integer simulation or the what-if;
    a measurement adds the "measured µs" metric: another drawing)."""
    if drawn is None or drawn.graph is None or result.graph is None:
        return False
    before, after = drawn.graph.model, result.graph.model
    return (drawn.config == result.config and drawn.view == result.view and before == after
            and before.metrics == after.metrics and before.meta == after.meta
            and drawn.graph.layout == result.graph.layout)


def _typing() -> bool:
    """The keyboard is in a text or number field: a redraw must not take it away."""
    return isinstance(QApplication.focusWidget(), (QLineEdit, QAbstractSpinBox, QTextEdit))

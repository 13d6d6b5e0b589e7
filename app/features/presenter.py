"""Presenting: a keyboard walk through what the primary target rejects, and the large-font /
high-contrast look.

V / PgDown (or the ▶ of the view bar) selects the next node the target rejects, centres it, shows
it in the node panel and says "Violation 3 of 26: …" in the status bar; Shift+V / PgUp goes back.
What is walked is the graph's badges: the VPU's rule violations when the VPU colours the graph,
else the ops that target leaves on the CPU ("CPU op 1 of 2: mean — Ethos-U55-128: …"). PgDown /
PgUp are what presentation clickers send. They are walked in graph order; in compare mode side
A's first, then side B's.

The look is the state's `look`, bound to the view bar's Aa / HC buttons; this feature applies it
to every canvas and to the application's style sheet (the legends follow: app.features.overlay).
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Protocol, Sequence

from PySide6.QtCore import QObject, SignalInstance
from PySide6.QtWidgets import QApplication

from app import theme
from app.features.shown import side_label, source_of, source_title
from app.state import AppState
from vpu_core.config import SIMULATED
from vpu_core.formatting import node_label
from vpu_core.analysis.results import Violation
from vpu_core.compare import Side

if TYPE_CHECKING:
    from app.graph_view.style import Theme
    from vpu_core.analysis.results import Analysis, CpuNode, PartitionReport
    from vpu_core.graph.model import GraphModel

    Walked = Violation | CpuNode


def walk_entries(analysis: Analysis, model: GraphModel, side: Side = "a") -> list[tuple[Side, str, Violation]]:
    """(side, node shown, Violation) in the order the graph draws the nodes, then by rule."""
    from vpu_core.graph.build import display_id

    order = {n.id: i for i, n in enumerate(model.nodes)}
    rules = [r.rule.id for r in analysis.rules]
    entries = [(side, display_id(model, v.node), v) for v in analysis.violations]
    return sorted(entries, key=lambda e: (order.get(e[1], len(order)),
                                          rules.index(e[2].rule) if e[2].rule in rules else 99))


def cpu_walk_entries(part: PartitionReport, model: GraphModel, side: Side = "a") -> list[tuple[Side, str, CpuNode]]:
    """(side, node shown, CpuNode) of the ops a target leaves on the CPU (those its lowering
    removed left out), in the order the graph draws them."""
    from vpu_core.graph.build import cpu_ops, display_id

    order = {n.id: i for i, n in enumerate(model.nodes)}
    shown = [(side, display_id(model, c.node), c) for c in cpu_ops(part)]
    return sorted((e for e in shown if e[1] in order), key=lambda e: order[e[1]])


def walk_text(index: int, total: int, violation: Violation, rule_title: str, node: str, label: str = "") -> str:
    where = f" ({label})" if label else ""
    return f"Violation {index + 1} of {total}{where}: {rule_title} — {node}: {violation.message}"


def cpu_walk_text(index: int, total: int, cpu: CpuNode, target: str, node: str, label: str = "") -> str:
    where = f" ({label})" if label else ""
    reason = cpu.reason.removeprefix(f"not delegated to {target}: ")
    return f"CPU op {index + 1} of {total}{where}: {node} — {target}: {reason}"


class PresenterBar(Protocol):
    """What presenting asks of the view bar: the walk's ◀ ▶ and count, the Aa / HC buttons."""

    @property
    def violation_step(self) -> SignalInstance: ...

    @property
    def large_font_toggled(self) -> SignalInstance: ...

    @property
    def high_contrast_toggled(self) -> SignalInstance: ...

    def set_violation_position(self, index: int | None, count: int | None,
                               sides: Sequence[tuple[str, int]] = (), side: str = "",
                               colouring: str = "") -> None: ...

    def set_look(self, large_font: bool, high_contrast: bool) -> None: ...


class StatusLine(Protocol):
    def showMessage(self, text: str, timeout: int = 0) -> None: ...

    def clearMessage(self) -> None: ...


class LookCanvas(Protocol):
    def theme(self) -> Theme: ...

    def set_large_font(self, on: bool) -> None: ...

    def set_high_contrast(self, on: bool) -> None: ...

    def set_presentation(self, on: bool) -> None: ...


class PresenterController(QObject):
    def __init__(self, state: AppState, view_bar: PresenterBar, status_bar: StatusLine,
                 canvases: Sequence[LookCanvas]) -> None:
        super().__init__(state)
        self.state, self.view_bar, self.status_bar, self.canvases = state, view_bar, status_bar, tuple(canvases)
        self._walk: list[tuple[Side, str, Walked]] = []
        self._index: int | None = None
        view_bar.violation_step.connect(self.step)
        view_bar.large_font_toggled.connect(self.set_large_font)
        view_bar.high_contrast_toggled.connect(self.set_high_contrast)
        state.drawn.connect(self.reset)
        state.look_changed.connect(self._apply_look)
        if state.look != type(state.look)():
            self._apply_look()

    def entries(self) -> list[tuple[Side, str, Walked]]:
        """Side A's badges in graph order (the VPU's violations, or the CPU ops of the target that
        colours it), then (compare mode) side B's."""
        from vpu_core.graph.placement import partition_report

        out: list[tuple[Side, str, Walked]] = []
        for side in self.state.sides():
            inspection, graph = self.state.inspection(side), self.state.graph(side)
            if inspection is None or graph is None:
                continue
            source = source_of(inspection)
            if source == SIMULATED:
                out += walk_entries(inspection.analysis, graph.model, side)
            else:
                part = partition_report(inspection.analysis, source, inspection.attached.delegation,
                                        inspection.targets)
                out += cpu_walk_entries(part, graph.model, side)
        return out

    def reset(self) -> None:
        self._walk, self._index = self.entries(), None
        self.status_bar.clearMessage()
        shown = self.state.result is not None and not self.state.predicted   # no rules checked yet
        self.view_bar.set_violation_position(None, len(self._walk) if shown else None, self._per_side(),
                                             colouring=self._colouring())

    def _per_side(self) -> list[tuple[str, int]]:
        """Compare mode: each side's count ("A 0 · B 148"); [] for one graph."""
        if not self.state.showing_compare:
            return []
        return [(side.upper(), sum(1 for s, _, _ in self._walk if s == side)) for side in self.state.sides()]

    def _colouring(self) -> str:
        """The target every graph on screen is coloured by, when none is the VPU ("Ethos-U55-128"):
        then the walk is through that target's CPU ops; "" otherwise (the VPU's violations)."""
        sources = {source_of(self.state.inspection(side)) for side in self.state.sides()}
        if not sources or SIMULATED in sources:
            return ""
        return " / ".join(source_title(source) for source in sorted(sources))

    def step(self, step: int) -> str | None:
        """Select the next (step=1) or previous (-1) walked node; returns the status text."""
        if not self._walk:
            what = "CPU ops" if self._colouring() else "rule violations"
            self.status_bar.showMessage(f"No {what} to walk through.", 4000)
            return None
        self._index = (0 if step > 0 else len(self._walk) - 1) if self._index is None \
            else (self._index + step) % len(self._walk)
        side, node, item = self._walk[self._index]
        self.state.show_node(side, node)
        inspection = self.state.inspection(side)
        if inspection is None:
            return None
        analysis = inspection.analysis
        info = analysis.nodes.get(item.node)
        name = node_label(info) if info is not None else item.node
        label = side_label(self.state, side) if self.state.showing_compare else ""
        if isinstance(item, Violation):
            title = next((f"{r.rule.constraint}. {r.rule.title}" for r in analysis.rules
                          if r.rule.id == item.rule), item.rule)
            text = walk_text(self._index, len(self._walk), item, title, name, label)
        else:
            text = cpu_walk_text(self._index, len(self._walk), item, source_title(source_of(inspection)), name, label)
        self.status_bar.showMessage(text)
        self.view_bar.set_violation_position(self._index, len(self._walk), self._per_side(),
                                             side.upper() if self.state.showing_compare else "", self._colouring())
        return text

    # -- presentation look -----------------------------------------------------------------------
    def set_large_font(self, on: bool) -> None:
        """Bigger node labels on every canvas and bigger text in the docks, compare headers and
        status bar (theme.LARGE_RULES); the toolbars keep their size."""
        self.state.look = replace(self.state.look, large_font=on)

    def set_high_contrast(self, on: bool) -> None:
        """Black outlines and edges on the canvases, darker secondary text in the panels."""
        self.state.look = replace(self.state.look, high_contrast=on)

    def set_presentation(self, on: bool) -> None:
        """Presentation mode (F5): larger bold labels, thick edges, the legend scaled, bigger text
        in the docks — for a projector."""
        self.state.look = replace(self.state.look, presentation=on)

    def toggle_presentation(self) -> None:
        self.set_presentation(not self.state.look.presentation)

    def _apply_look(self) -> None:
        look = self.state.look
        self.view_bar.set_look(look.large_font, look.high_contrast)
        for canvas in self.canvases:
            if canvas.theme().large_font != look.large_font:
                canvas.set_large_font(look.large_font)
            if canvas.theme().high_contrast != look.high_contrast:
                canvas.set_high_contrast(look.high_contrast)
            if canvas.theme().presentation != look.presentation:
                canvas.set_presentation(look.presentation)
        scale = self.canvases[0].theme().label_scale() if self.canvases else 1.0
        if scale != self.state.view.label_scale:     # boxes grow with the font: a redraw
            self.state.view = replace(self.state.view, label_scale=scale)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.setStyleSheet(theme.stylesheet(high_contrast=look.high_contrast,
                                               large=look.large_font or look.presentation))

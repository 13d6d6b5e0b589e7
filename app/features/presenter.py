"""Presenting: a keyboard walk through the rule violations, and the large-font / high-contrast look.

V / PgDown (or the ▶ of the view bar) selects the next violation's node, centres it, shows it in
the node panel and says "Violation 3 of 26: …" in the status bar; Shift+V / PgUp goes back.
PgDown / PgUp are what presentation clickers send. Violations are walked in graph order; in
compare mode side A's first, then side B's.
"""
from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication

from app import theme
from app.state import AppState
from vpu_core.formatting import node_label


def walk_entries(analysis, model, side: str = "a") -> list[tuple[str, str, object]]:
    """(side, node shown, Violation) in the order the graph draws the nodes, then by rule."""
    from vpu_core.graph.build import display_id

    order = {n.id: i for i, n in enumerate(model.nodes)}
    rules = [r.rule.id for r in analysis.rules]
    entries = [(side, display_id(model, v.node), v) for v in analysis.violations]
    return sorted(entries, key=lambda e: (order.get(e[1], len(order)),
                                          rules.index(e[2].rule) if e[2].rule in rules else 99))


def walk_text(index: int, total: int, violation, rule_title: str, node: str, label: str = "") -> str:
    where = f" ({label})" if label else ""
    return f"Violation {index + 1} of {total}{where}: {rule_title} — {node}: {violation.message}"


class PresenterController(QObject):
    def __init__(self, state: AppState, view_bar, navigation, overlay, compare_view, status_bar,
                 store, display) -> None:
        super().__init__(state)
        self.state, self.view_bar, self.navigation = state, view_bar, navigation
        self.overlay, self.compare_view, self.status_bar, self.store = overlay, compare_view, status_bar, store
        self._walk: list = []
        self._index: int | None = None
        view_bar.violation_step.connect(self.step)
        view_bar.large_font_toggled.connect(self.set_large_font)
        view_bar.high_contrast_toggled.connect(self.set_high_contrast)
        display.shown.connect(self.reset)

    def entries(self) -> list:
        """Side A's violations in graph order, then (compare mode) side B's."""
        return [e for side in self.state.sides() if self.state.inspection(side) is not None
                for e in walk_entries(self.state.analysis(side), self.state.graph(side).model, side)]

    def reset(self) -> None:
        self._walk, self._index = self.entries(), None
        self.status_bar.clearMessage()
        shown = self.state.result is not None
        self.view_bar.set_violation_position(None, len(self._walk) if shown else None)

    def step(self, step: int) -> str | None:
        """Select the next (step=1) or previous (-1) violation's node; returns the status text."""
        if not self._walk:
            self.status_bar.showMessage("No rule violations to walk through.", 4000)
            return None
        self._index = (0 if step > 0 else len(self._walk) - 1) if self._index is None \
            else (self._index + step) % len(self._walk)
        side, node, violation = self._walk[self._index]
        self.navigation.select_in(side, node)
        analysis = self.state.analysis(side)
        title = next((f"{r.rule.constraint}. {r.rule.title}" for r in analysis.rules
                      if r.rule.id == violation.rule), violation.rule)
        info = analysis.nodes.get(violation.node)
        label = self.compare_view.label(side) if self.state.showing_compare else ""
        text = walk_text(self._index, len(self._walk), violation, title,
                         node_label(info) if info is not None else violation.node, label)
        self.status_bar.showMessage(text)
        self.view_bar.set_violation_position(self._index, len(self._walk))
        return text

    # -- presentation look -----------------------------------------------------------------------
    def set_large_font(self, on: bool) -> None:
        """Bigger node labels on every canvas and bigger text in the docks, compare headers and
        status bar (theme.LARGE_RULES); the toolbars keep their size."""
        for view in self.overlay.all_views():
            view.set_large_font(on)
        self.store.save_view_option("large_font", on)
        self._apply_look()

    def set_high_contrast(self, on: bool) -> None:
        """Black outlines and edges on the canvases, darker secondary text in the panels."""
        for view in self.overlay.all_views():
            view.set_high_contrast(on)
        self.store.save_view_option("high_contrast", on)
        self._apply_look()

    def _apply_look(self) -> None:
        app = QApplication.instance()
        if app is not None:
            app.setStyleSheet(theme.stylesheet(high_contrast=self.view_bar.high_contrast.isChecked(),
                                               large=self.view_bar.large_font.isChecked()))
        self.overlay.refresh_legends()

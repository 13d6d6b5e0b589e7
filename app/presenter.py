"""Presenting: a keyboard walk through the rule violations, and the large-font / high-contrast look.

V / PgDown (or the ▶ of the view bar) selects the next violation's node, centres it, shows it in
the node panel and says "Violation 3 of 26: …" in the status bar; Shift+V / PgUp goes back.
PgDown / PgUp are what presentation clickers send. Violations are walked in graph order; in
compare mode side A's first, then side B's.
"""
from __future__ import annotations

from PySide6.QtWidgets import QApplication

from app import theme


def walk_entries(analysis, model, side: str = "a") -> list[tuple[str, str, object]]:
    """(side, node shown, Violation) in the order the graph draws the nodes, then by rule."""
    from vpu_core.graph.build import display_id

    order = {n.id: i for i, n in enumerate(model.nodes)}
    rules = [r.rule.id for r in analysis.rules]
    entries = [(side, display_id(model, v.node), v) for v in analysis.violations]
    return sorted(entries, key=lambda e: (order.get(e[1], len(order)),
                                          rules.index(e[2].rule) if e[2].rule in rules else 99))


def walk_text(index: int, total: int, violation, rule_title: str, label: str = "") -> str:
    where = f" ({label})" if label else ""
    return (f"Violation {index + 1} of {total}{where}: {rule_title} — {violation.node}: "
            f"{violation.message}")


class PresenterMixin:
    """MainWindow part: the violation walk and the presentation look."""

    def _init_presenter(self) -> None:
        self._walk: list = []
        self._walk_key = None
        self._walk_index: int | None = None

    def _walk_list(self) -> list:
        key = self.walk_key()
        if key != self._walk_key:
            self._walk_key, self._walk_index = key, None
            self._walk = self.walk_sources()
        return self._walk

    def walk_key(self):
        """What the walk is over (identity of the shown results and graphs)."""
        return (id(self.result), id(self.compare_result), self.showing_compare(), self.fold())

    def walk_sources(self) -> list:
        if self.result is None:
            return []
        if not self.showing_compare():
            return walk_entries(self.result.analysis, self.current_bundle("a").model, "a")
        return (walk_entries(self.compare_result.a.analysis, self.current_bundle("a").model, "a")
                + walk_entries(self.compare_result.b.analysis, self.current_bundle("b").model, "b"))

    def step_violation(self, step: int) -> str | None:
        """Select the next (step=1) or previous (-1) violation's node; returns the status text."""
        entries = self._walk_list()
        if not entries:
            self.statusBar().showMessage("No rule violations to walk through.", 4000)
            self.view_bar.set_violation_position(None, 0)
            return None
        if self._walk_index is None:
            self._walk_index = 0 if step > 0 else len(entries) - 1
        else:
            self._walk_index = (self._walk_index + step) % len(entries)
        side, node, violation = entries[self._walk_index]
        self.select_in(side, node)
        analysis = self.side_result(side).analysis
        title = next((f"{r.rule.constraint}. {r.rule.title}" for r in analysis.rules
                      if r.rule.id == violation.rule), violation.rule)
        label = self.compare_view.label(side) if self.showing_compare() else ""
        text = walk_text(self._walk_index, len(entries), violation, title, label)
        self.statusBar().showMessage(text)
        self.view_bar.set_violation_position(self._walk_index, len(entries))
        return text

    def reset_walk(self) -> None:
        self._walk_key = None
        self.statusBar().clearMessage()
        entries = self._walk_list()
        self.view_bar.set_violation_position(None, len(entries))

    # -- presentation look -----------------------------------------------------------------------
    def set_large_font(self, on: bool) -> None:
        """Bigger node labels on every canvas and bigger text in the docks, compare headers and
        status bar (theme.LARGE_RULES); the toolbar keeps its size."""
        for view in self.all_views():
            view.set_large_font(on)
        self.store.save_view_option("large_font", on)
        self._apply_look()

    def set_high_contrast(self, on: bool) -> None:
        """Black outlines and edges on the canvases, darker secondary text in the panels."""
        for view in self.all_views():
            view.set_high_contrast(on)
        self.store.save_view_option("high_contrast", on)
        self._apply_look()

    def _apply_look(self) -> None:
        app = QApplication.instance()
        if app is not None:
            app.setStyleSheet(theme.stylesheet(high_contrast=self.view_bar.high_contrast.isChecked(),
                                               large=self.view_bar.large_font.isChecked()))
        self.refresh_legends()

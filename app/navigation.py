"""Selecting, searching and fitting (MainWindow part): routed to the single canvas, or in compare
mode to the side the user works on."""
from __future__ import annotations


class NavigationMixin:
    def select_node(self, node: str, center: bool = True) -> None:
        """Select `node` (any fx node name; a folded parameter maps to its op) and show it."""
        if self.result is None:
            return
        if self.showing_compare():
            self.compare_select(self.focus_side, node, center)
            return
        from vpu_core.graph.build import display_id

        shown = display_id(self.graph_model, node)
        if shown not in self.graph.layout.boxes:
            return
        self.selected = shown
        if center:
            self.graph_view.center_on(shown)        # selects too
        else:
            self.graph_view.select_node(shown)
        self.panels.show_node(self.result.analysis, self.graph_model, shown)

    def select_in(self, side: str, node: str, center: bool = True) -> bool:
        """Select `node` of `side` ("a"; "b" only in compare mode)."""
        if self.showing_compare():
            return self.compare_select(side, node, center)
        self.select_node(node, center)
        return self.selected is not None

    def _on_graph_selection(self, node: str) -> None:
        if self.result is None or self.showing_compare():
            return
        self.selected = node or None
        if node:
            self.panels.show_node(self.result.analysis, self.graph_model, node)
        else:
            self.panels.show_summary(self.result.analysis, self.graph_model)

    def fit_views(self) -> None:
        self.active_view().fit()

    def focus_search(self) -> None:
        self.view_bar.search.setFocus()
        self.view_bar.search.selectAll()

    def search(self, text: str) -> list[str]:
        view = self.active_view()
        self._matches = list(view.search(text)) if text and self.result else []
        self._match_index = 0 if self._matches else None
        self.view_bar.set_match_count(self._match_index, len(self._matches), text)
        if self._matches:
            view.next_match()                       # centres on (and selects) the first match
        return self._matches

    def step_match(self, step: int) -> None:
        if not self._matches:
            return
        view = self.active_view()
        node = view.next_match() if step > 0 else view.prev_match()
        if node in self._matches:     # the view selected it; node_selected updated the panels
            self._match_index = self._matches.index(node)
        self.view_bar.set_match_count(self._match_index, len(self._matches), self.view_bar.search.text())

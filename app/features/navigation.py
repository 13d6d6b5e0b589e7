"""Navigation: selecting, searching and fitting, on the single canvas or, in compare mode, on the
side the user works on.

A click on a canvas selects through `AppState.select`; a table row, a node link, the violation walk
or a search hit through `AppState.show_node`, which also asks for the node to be brought into view
(`reveal_requested`): this feature centres the canvas on it. The display follows the selection.
Search matches the fx name, the op and the module path (vpu_core.graph.search, used by the
canvas); Escape in the search field clears it, and a new model clears it (AppState).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, SignalInstance

from app.state import AppState, Search
from vpu_core.compare import Side

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLineEdit

    from app.graph_view import GraphView
    from app.widgets.compare_view import CompareView


class SearchBar(Protocol):
    """What navigation asks of the view bar: Fit, the search field, its ◀ ▶ and match count."""

    search: QLineEdit

    @property
    def fit_clicked(self) -> SignalInstance: ...

    @property
    def search_changed(self) -> SignalInstance: ...

    @property
    def next_clicked(self) -> SignalInstance: ...

    @property
    def prev_clicked(self) -> SignalInstance: ...

    def set_match_count(self, index: int | None, count: int, text: str) -> None: ...


class NodeLinks(Protocol):
    """Widgets whose rows or links name nodes (app.widgets.panels.Panels and its Compare table)."""

    @property
    def node_activated(self) -> SignalInstance: ...


class NavigationController(QObject):
    def __init__(self, state: AppState, graph_view: GraphView, compare_view: CompareView, view_bar: SearchBar,
                 node_links: NodeLinks, compare_links: NodeLinks) -> None:
        super().__init__(state)
        self.state, self.graph_view, self.compare_view = state, graph_view, compare_view
        self.view_bar = view_bar
        graph_view.node_selected.connect(lambda node: self._on_canvas("a", node))
        compare_view.node_selected.connect(self._on_canvas)
        node_links.node_activated.connect(lambda node: self.select_in(state.focus_side, node))
        compare_links.node_activated.connect(lambda side, node: self.select_in(side, node))
        view_bar.fit_clicked.connect(self.fit)
        view_bar.search_changed.connect(self.search)
        view_bar.next_clicked.connect(lambda: self.step_match(1))
        view_bar.prev_clicked.connect(lambda: self.step_match(-1))
        state.search_changed.connect(self._show_search)
        state.reveal_requested.connect(self._reveal)
        state.drawn.connect(self._reapply_search)

    def active_view(self) -> GraphView:
        """The canvas search, fit and match stepping act on (compare mode: the focused side)."""
        if self.state.showing_compare:
            return self.compare_view.views[self.state.focus_side]
        return self.graph_view

    # -- selection -------------------------------------------------------------------------------
    def select_in(self, side: Side, node: str, center: bool = True) -> bool:
        """Select `node` (any fx name; a folded parameter selects its op) on `side` ("b" only in
        compare mode) and show it; False when that graph does not draw it."""
        if center:
            return self.state.show_node(side, node)
        from vpu_core.graph.build import display_id

        graph = self.state.graph(side) if side in self.state.sides() else None
        shown = display_id(graph.model, node) if graph is not None else None
        if graph is None or shown not in graph.layout.boxes:
            return False
        view = self.compare_view.views[side] if self.state.showing_compare else self.graph_view
        if view.select_node(shown):
            self.state.select(side, shown)
            return True
        return False

    def _reveal(self, side: Side, node: str) -> None:
        """Bring a node selected elsewhere into view (opening the groups around it)."""
        if self.state.showing_compare:
            self.compare_view.select(side, node, True)
        else:
            self.graph_view.center_on(node)

    def _on_canvas(self, side: Side, node: str) -> None:
        if side in self.state.sides():
            self.state.select(side, node or None)

    def fit(self) -> None:
        self.active_view().fit()

    # -- search ----------------------------------------------------------------------------------
    def focus_search(self) -> None:
        self.view_bar.search.setFocus()
        self.view_bar.search.selectAll()

    def search(self, text: str) -> list[str]:
        view = self.active_view()
        matches = list(view.search(text)) if text and self.state.result is not None else []
        if not text:
            view.search("")                             # clears the highlight
        self.state.set_search(Search(text, tuple(matches), 0 if matches else None))
        if matches:
            view.next_match()                           # centres on (and selects) the first match
        return matches

    def step_match(self, step: int) -> None:
        search = self.state.search
        if not search.matches:
            return
        view = self.active_view()
        node = view.next_match() if step > 0 else view.prev_match()
        if node in search.matches:                      # the view selected it (state follows)
            self.state.set_search(Search(search.text, search.matches, search.matches.index(node)))

    def _show_search(self) -> None:
        search = self.state.search
        if self.view_bar.search.text() != search.text:  # cleared by the state (a new model)
            self.view_bar.search.blockSignals(True)
            self.view_bar.search.setText(search.text)
            self.view_bar.search.blockSignals(False)
        self.view_bar.set_match_count(search.index, len(search.matches), search.text)

    def _reapply_search(self) -> None:
        """A redrawn graph has lost its highlight: search again (the selection stays)."""
        search = self.state.search
        if not search.text:
            return
        matches = tuple(self.active_view().search(search.text))
        index = search.index if search.index is not None and search.index < len(matches) else None
        self.state.set_search(Search(search.text, matches, index if matches else None))

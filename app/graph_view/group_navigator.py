"""Module groups on the canvas: expand / collapse in place, reveal, breadcrumbs, the group menu.

    view.groups.expand("stages"); view.groups.collapse_to(2); view.groups.reveal("conv2d_4")
    view.groups.grouped          # the core GroupedGraph behind the canvas (None: a flat graph)

The core's GroupedGraph does the work (which nodes a closed group hides, its numbers, the
incremental layout); the navigator only decides which groups are open and asks the core for the
new (model, layout). Drawing it is the view's job (`GroupCanvas.show_regrouped`): the group that
was toggled stays where it was on screen, the zoom stays, the selection stays when it is still
drawn.

Mouse: double-click a group box to open it, double-click an open group's title strip to close
it; right-click for the menu. Keys: E open the selected group, C close it (or the group of the
selected node), 1-9 close everything to that depth, 0 open everything. The view's Qt event
handlers hand those to `double_click`, `key_press` and `menu`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QAction, QKeyEvent
from PySide6.QtWidgets import QMenu, QWidget

from vpu_core.graph.groups import group_id, group_path

if TYPE_CHECKING:
    from vpu_core.layout.grouped import GroupedGraph
    from vpu_core.graph.model import GraphModel
    from vpu_core.layout import Layout

    from .scene import GraphScene


class GroupCanvas(Protocol):
    """All a GroupNavigator asks of its view (GraphView). The view is also the parent widget of
    the group menu."""

    def graph_scene(self) -> GraphScene | None:
        """The scene drawn now."""

    def show_regrouped(self, model: GraphModel, layout: Layout, anchor: str | None = None) -> None:
        """Draw another (model, layout) of the same graph, keeping group `anchor` where it was
        on screen and the zoom, selection and overlays."""

    def select_node(self, node_id: str | None) -> bool: ...

    def selected(self) -> str | None: ...

    def center_on(self, node_id: str) -> bool: ...

    def fit(self) -> None: ...

    def fit_all(self) -> None: ...


class GroupNavigator:
    """Which module groups of one graph are open on one canvas, and the ways to change that."""

    def __init__(self, view: GroupCanvas) -> None:
        self.view = view
        self._grouped: GroupedGraph | None = None

    @property
    def grouped(self) -> GroupedGraph | None:
        """The core GroupedGraph behind the canvas (None: a flat graph)."""
        return self._grouped

    def attach(self, grouped: GroupedGraph | None, model: GraphModel, layout: Layout,
               depth: int | None, width: int, height: int,
               opened: frozenset[str] | None = None) -> tuple[GraphModel, Layout]:
        """Take over a new graph; returns the (model, layout) to draw first in a `width` x
        `height` viewport. `grouped` None: a flat graph, drawn as given. Otherwise collapsed to
        `depth`, by default the deepest depth that fits legibly; the same GroupedGraph again, or
        one of the same model drawn another way, keeps what the user opened and closed;
        `opened`: exactly these groups open (compare mode's side B follows side A)."""
        if grouped is not None:
            old = self._grouped
            if opened is not None:
                model, layout = grouped.show(opened)
            elif grouped is old and depth is None:
                model, layout = grouped.show(grouped.expanded)
            elif depth is None and old is not None and old.full_tree.groups.keys() == grouped.full_tree.groups.keys():
                # the same model drawn another way (Q/DQ hidden, other colouring, other quantizer):
                # what the user opened stays open
                model, layout = grouped.show(old.expanded & grouped.tree.groups.keys())
            elif depth is None:
                model, layout = grouped.show(grouped.fitting_view(max(width - 20, 400), max(height - 20, 300)))
            else:
                model, layout = grouped.collapse_to(depth)
        self._grouped = grouped
        return model, layout

    def opened(self) -> frozenset[str]:
        """The groups open now (none for a flat graph)."""
        return self._grouped.expanded if self._grouped is not None else frozenset()

    def show_opened(self, opened: frozenset[str]) -> None:
        """Exactly these groups open (compare mode: the other side opened or closed one)."""
        g = self._grouped
        if g is not None and opened != g.expanded:
            self.view.show_regrouped(*g.show(opened))

    # ---- expand / collapse ---------------------------------------------------------------------------
    def expand(self, path: str) -> bool:
        """Open group `path` (and the groups around it); False when there was nothing to open."""
        g = self._grouped
        if g is None or path not in g.tree.groups or g.is_open(path) and all(
                g.is_open(p) for p in g.tree.chain(path)):
            return False
        self.view.show_regrouped(*g.expand(path), anchor=path)
        return True

    def collapse(self, path: str) -> bool:
        """Close group `path` and select its box; False when it was not open."""
        g = self._grouped
        if g is None or not g.is_open(path):
            return False
        self.view.show_regrouped(*g.collapse(path), anchor=path)
        s = self.view.graph_scene()
        if s is not None and group_id(path) in s.items:
            self.view.select_node(group_id(path))
        return True

    def toggle(self, path: str) -> bool:
        g = self._grouped
        if g is None:
            return False
        return self.collapse(path) if g.is_open(path) else self.expand(path)

    def collapse_to(self, depth: int) -> None:
        """Close every group deeper than `depth`, open the ones above, and fit the view."""
        if self._grouped is not None:
            self.view.show_regrouped(*self._grouped.collapse_to(depth))
            self.view.fit()

    def expand_all(self) -> None:
        if self._grouped is not None:
            self.view.show_regrouped(*self._grouped.expand_all())

    def group_of(self, node_id: str) -> str | None:
        """The innermost (display) group a node or group box sits in."""
        g = self._grouped
        if g is None or not node_id:
            return None
        path = group_path(node_id)
        if path is not None:
            return g.tree.groups[path].parent if path in g.tree.groups else None
        return g.tree.owner.get(node_id)

    def reveal(self, node_id: str) -> bool:
        """Open the groups hiding `node_id` (a node of the flat graph, or a group box) so that
        it is drawn; True when it now is."""
        g, s = self._grouped, self.view.graph_scene()
        if g is None or s is None or node_id in s.items:
            return False
        path = group_path(node_id)
        inner = g.tree.owner.get(node_id) if path is None else (
            g.tree.groups[path].parent if path in g.tree.groups else None)
        if inner is None:
            return False
        self.view.show_regrouped(*g.expand(inner))
        s = self.view.graph_scene()
        return s is not None and (node_id in s.items or s.open_group(node_id) is not None)

    def reveal_group(self, path: str) -> None:
        """Show module group `path` (breadcrumb click): select its box or frame and centre it."""
        g = self._grouped
        if g is None:
            return
        if path not in g.tree.groups:           # a one-op module: it is drawn as its op
            module = g.full_tree.groups.get(path)
            ops = {x.id for x in g.flat.nodes if x.category in ("vpu", "cpu")}
            op = next((n for n in (module.nodes if module else ()) if n in ops), None)
            if op is not None:
                self.view.center_on(op)
            return
        parent = g.tree.groups[path].parent
        if parent is not None and not all(g.is_open(p) for p in g.tree.chain(parent)):
            self.view.show_regrouped(*g.expand(parent))
        self.view.center_on(group_id(path))

    def breadcrumbs(self, node_id: str | None) -> tuple[list[tuple[str, str]], str]:
        """The breadcrumb levels of `node_id`: ([(group path, short label)], leaf node id);
        ([], "") for none or a flat graph."""
        g = self._grouped
        if g is None or not node_id:
            return [], ""
        path = group_path(node_id)
        tree = g.full_tree
        if path is not None:
            chain, leaf = (g.tree.chain(path) if path in g.tree.groups else []), ""
        else:
            chain, leaf = tree.path_of(node_id), node_id
        labels = {**{p: grp.label for p, grp in tree.groups.items()},
                  **{p: grp.label for p, grp in g.tree.groups.items()}}
        return [(p, labels[p]) for p in chain], leaf

    # ---- mouse, keys, menu (the view's event handlers call these) ----------------------------------
    def double_click(self, pt: QPointF) -> bool:
        """A double-click at scene point `pt`: open the group box or close the frame whose title
        strip is there. False for a flat graph (the view handles it)."""
        s = self.view.graph_scene()
        if s is None or self._grouped is None:
            return False
        nid = s.pick(pt.x(), pt.y())
        box = group_path(nid) if nid is not None else None    # a closed group's box was hit
        if box is not None:
            self.expand(box)
        else:
            header = s.frame_header_at(pt.x(), pt.y())
            if header is not None:
                self.collapse(header)
        return True

    def key_press(self, event: QKeyEvent) -> bool:
        """E / C / digits; True when handled."""
        g, k = self._grouped, event.key()
        if g is None:
            return False
        sel = self.view.selected() or ""
        if k == Qt.Key.Key_E and (box := group_path(sel)) is not None:
            self.expand(box)
        elif k == Qt.Key.Key_C and sel:
            s = self.view.graph_scene()
            path = (s.open_group(sel) if s is not None else None) or self.group_of(sel)
            if path is not None:
                self.collapse(path)
        elif Qt.Key.Key_1 <= k <= Qt.Key.Key_9 and not event.modifiers():
            self.collapse_to(int(k) - int(Qt.Key.Key_0))
        elif k == Qt.Key.Key_0 and not event.modifiers():
            self.expand_all()
        else:
            return False
        return True

    def menu(self, pt: QPointF) -> QMenu | None:
        """The right-click menu at scene point `pt` (None for a flat graph)."""
        g, s = self._grouped, self.view.graph_scene()
        if g is None or s is None:
            return None
        menu = QMenu(self.view if isinstance(self.view, QWidget) else None)
        nid = s.pick(pt.x(), pt.y())
        path = group_path(nid) if nid is not None else None
        if path is not None:
            _action(menu, f"Expand {g.tree.groups[path].label}", lambda: self.expand(path))
            nid_parent = g.tree.groups[path].parent
        else:
            nid_parent = s.frame_at(pt.x(), pt.y()) if nid is None else self.group_of(nid)
        if nid_parent is not None:
            label = g.tree.groups[nid_parent].label
            _action(menu, f"Collapse {label}", lambda: self.collapse(nid_parent))
        menu.addSeparator()
        depths = QMenu("Collapse all to depth", menu)
        for d in range(1, g.tree.max_depth + 1):
            _action(depths, str(d), lambda d=d: self.collapse_to(d))
        menu.addMenu(depths)
        _action(menu, "Expand all", self.expand_all)
        menu.addSeparator()
        _action(menu, "Fit width", self.view.fit)
        _action(menu, "Fit all", self.view.fit_all)
        return menu


def _action(menu: QMenu, text: str, slot) -> QAction:
    act = menu.addAction(text)
    act.triggered.connect(lambda _=False: slot())
    return act

"""Module groups on the canvas (GraphView part): expand / collapse in place, reveal, breadcrumbs,
the metric overlay and the shared-scale highlight.

The core's GroupedGraph does the work (which nodes a closed group hides, its numbers, the
incremental layout); this only asks it for the new (model, layout) and keeps the view steady:
the group that was toggled stays where it was on screen, the zoom stays, the selection stays
when it is still drawn.

Mouse: double-click a group box to open it, double-click an open group's title strip to close
it; right-click for the menu. Keys: E open the selected group, C close it (or the group of the
selected node), 1-9 close everything to that depth, 0 open everything.
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from vpu_core.graph.build import display_id
from vpu_core.graph.groups import GROUP_PREFIX, group_id, group_path, scale_group_of
from vpu_core.graph.metrics import METRICS, MetricScale

from .legend import MetricLegend


class GroupingMixin:
    _grouped = None
    _metric: str | None = None

    # ---- state -----------------------------------------------------------------------------------
    def grouped(self):
        """The core GroupedGraph behind the canvas (None: a flat graph)."""
        return self._grouped

    def _apply(self, model, layout, anchor: str | None = None) -> None:
        """Show a new (model, layout) of the same graph, keeping `anchor` (a group path) where
        it was on screen, and the zoom, selection, metric and search."""
        old = self._gscene
        keep_sel = old.selected if old is not None else None
        fixed = None
        if anchor is not None and old is not None:                # its top centre stays put
            r = self._group_rect(old, anchor)
            if r is not None:
                top = QPointF(r.center().x(), r.top())
                fixed = (top, self.mapFromScene(top))
        zoom = self.zoom()
        self._install(model, layout)
        self.setTransform(self.transform().fromScale(zoom, zoom))
        if fixed is not None:
            r = self._group_rect(self._gscene, anchor)
            if r is not None:
                vc = QPointF(self.viewport().rect().center())
                self.centerOn(QPointF(r.center().x(), r.top()) - (QPointF(fixed[1]) - vc) / zoom)
        self._clamp_zoom()
        if keep_sel is not None and (keep_sel in self._gscene.items or self._frame_path(keep_sel)):
            self.select_node(keep_sel)
        elif keep_sel is not None:
            self.node_selected.emit("")
        if self._metric:
            self.set_metric(self._metric)
        self._update_tier()
        self.groups_changed.emit()

    @staticmethod
    def _group_rect(scene, path: str):
        it = scene.items.get(group_id(path))
        if it is not None:
            return it.box
        frame = scene.frames.get(path)
        return frame.box if frame is not None else None

    def _frame_path(self, node_id: str) -> str | None:
        path = group_path(node_id) if node_id else None
        return path if path is not None and self._gscene is not None and path in self._gscene.frames else None

    # ---- expand / collapse ---------------------------------------------------------------------------
    def expand_group(self, path: str) -> bool:
        g = self._grouped
        if g is None or path not in g.tree.groups or g.is_open(path) and all(
                g.is_open(p) for p in g.tree.chain(path)):
            return False
        self._apply(*g.expand(path), anchor=path)
        return True

    def collapse_group(self, path: str) -> bool:
        g = self._grouped
        if g is None or not g.is_open(path):
            return False
        self._apply(*g.collapse(path), anchor=path)
        if self._gscene is not None and group_id(path) in self._gscene.items:
            self.select_node(group_id(path))
        return True

    def toggle_group(self, path: str) -> bool:
        g = self._grouped
        if g is None:
            return False
        return self.collapse_group(path) if g.is_open(path) else self.expand_group(path)

    def collapse_all_to(self, depth: int) -> None:
        if self._grouped is not None:
            self._apply(*self._grouped.collapse_to(depth))
            self.fit()

    def expand_all(self) -> None:
        if self._grouped is not None:
            self._apply(*self._grouped.expand_all())

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
        g, s = self._grouped, self._gscene
        if g is None or s is None or node_id in s.items:
            return False
        path = group_path(node_id)
        inner = g.tree.owner.get(node_id) if path is None else (
            g.tree.groups[path].parent if path in g.tree.groups else None)
        if inner is None:
            return False
        self._apply(*g.expand(inner))
        return node_id in self._gscene.items or self._frame_path(node_id) is not None

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
                self.center_on(op)
            return
        parent = g.tree.groups[path].parent
        if parent is not None and not all(g.is_open(p) for p in g.tree.chain(parent)):
            self._apply(*g.expand(parent))
        self.center_on(group_id(path))

    # ---- mouse, keys, menu ------------------------------------------------------------------------------
    def _scene_pos(self, pos) -> QPointF:
        return self.mapToScene(pos.toPoint())

    def mouseDoubleClickEvent(self, event) -> None:
        s = self._gscene
        if s is None or self._grouped is None:
            return super().mouseDoubleClickEvent(event)
        pt = self._scene_pos(event.position())
        nid = s.pick(pt.x(), pt.y())
        if nid is not None and nid.startswith(GROUP_PREFIX):
            self.expand_group(group_path(nid))
        else:
            header = s.frame_header_at(pt.x(), pt.y())
            if header is not None:
                self.collapse_group(header)
        event.accept()

    def _group_key(self, event) -> bool:
        """E / C / digits; True when handled."""
        g, k = self._grouped, event.key()
        if g is None:
            return False
        sel = self.selected() or ""
        if k == Qt.Key.Key_E and group_path(sel) is not None:
            self.expand_group(group_path(sel))
        elif k == Qt.Key.Key_C and sel:
            path = self._frame_path(sel) or self.group_of(sel)
            if path is not None:
                self.collapse_group(path)
        elif Qt.Key.Key_1 <= k <= Qt.Key.Key_9 and not event.modifiers():
            self.collapse_all_to(int(k) - int(Qt.Key.Key_0))
        elif k == Qt.Key.Key_0 and not event.modifiers():
            self.expand_all()
        else:
            return False
        return True

    def contextMenuEvent(self, event) -> None:
        menu = self.group_menu(self._scene_pos(event.pos()))
        if menu is not None:
            menu.exec(event.globalPos())

    def group_menu(self, pt: QPointF) -> QMenu | None:
        """The right-click menu at scene point `pt` (None for a flat graph)."""
        g, s = self._grouped, self._gscene
        if g is None or s is None:
            return None
        menu = QMenu(self)
        nid = s.pick(pt.x(), pt.y())
        if nid is not None and group_path(nid) is not None:
            path = group_path(nid)
            self._action(menu, f"Expand {g.tree.groups[path].label}", lambda: self.expand_group(path))
            nid_parent = g.tree.groups[path].parent
        else:
            nid_parent = s.frame_at(pt.x(), pt.y()) if nid is None else self.group_of(nid)
        if nid_parent is not None:
            label = g.tree.groups[nid_parent].label
            self._action(menu, f"Collapse {label}", lambda: self.collapse_group(nid_parent))
        menu.addSeparator()
        depths = QMenu("Collapse all to depth", menu)
        for d in range(1, g.tree.max_depth + 1):
            self._action(depths, str(d), lambda d=d: self.collapse_all_to(d))
        menu.addMenu(depths)
        self._action(menu, "Expand all", self.expand_all)
        menu.addSeparator()
        self._action(menu, "Fit width", self.fit)
        self._action(menu, "Fit all", self.fit_all)
        return menu

    @staticmethod
    def _action(menu: QMenu, text: str, slot) -> QAction:
        act = menu.addAction(text)
        act.triggered.connect(lambda _=False: slot())
        return act

    # ---- breadcrumbs, metric, shared scales --------------------------------------------------------
    def _update_breadcrumbs(self, node_id: str | None) -> None:
        g = self._grouped
        if g is None or not node_id:
            self._crumbs.set_path([])
            return
        path = group_path(node_id)
        tree = g.full_tree
        if path is not None:
            chain, leaf = (g.tree.chain(path) if path in g.tree.groups else []), ""
        else:
            chain, leaf = tree.path_of(node_id), node_id
        labels = {**{p: grp.label for p, grp in tree.groups.items()},
                  **{p: grp.label for p, grp in g.tree.groups.items()}}
        self._crumbs.set_path([(p, labels[p]) for p in chain], leaf)
        self._place_overlays()

    def set_metric(self, key: str | None) -> None:
        """Colour ops by a metric of the core ("sqnr", "pow2_loss", "shift", "boundary_bytes")."""
        self._metric = key if key in METRICS else None
        s = self._gscene
        if s is None:
            return
        legend = None
        if self._metric is not None:
            info = METRICS[self._metric]
            source = self._grouped.flat if self._grouped is not None else s.model
            values = source.metrics.get(self._metric, {})
            scale = MetricScale.of(self._metric, values.values())
            neutral = info.better is None
            s.set_metric(self._metric, scale, neutral, info.unit)
            low, high = (scale.lo, scale.hi) if info.better != "low" else (scale.hi, scale.lo)
            unit = f" {info.unit}" if info.unit else ""
            legend = MetricLegend(f"{info.title}" + (f" ({len(values)} ops)" if values else " (no values)"),
                                  f"{low:.3g}{unit}", f"{high:.3g}{unit}", neutral)
        else:
            s.set_metric(None)
        self._legend.configure(self._theme, s.subgraphs, metric=legend)
        self._place_overlays()
        self._minimap.invalidate()

    def metric_key(self) -> str | None:
        return self._metric

    def set_shared(self, node_ids) -> list[str]:
        """Outline these graph nodes (fx names; folded or hidden ones on what shows them)."""
        s = self._gscene
        if s is None:
            return []
        shown = list(dict.fromkeys(display_id(s.model, n) for n in node_ids))
        s.set_shared(shown)
        return s.shared

    def shared_for(self, node_id: str | None) -> list[str]:
        """Outline every tensor forced to share a scale with `node_id` (its shared-scale group,
        from the analysis data the graph carries); [] when it is in none."""
        s = self._gscene
        if s is None:
            return []
        source = self._grouped.flat if self._grouped is not None else s.model
        group = scale_group_of(source.meta.get("scale_groups", ()), node_id, s.model) if node_id else None
        return self.set_shared(group.nodes() if group is not None else ())

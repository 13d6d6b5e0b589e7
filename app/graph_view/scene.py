"""The scene of one GraphModel + Layout: node items, edge bands, highlight, overview.

Only paints what the model and layout say; no analysis happens here.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

import numpy as np
from PySide6.QtCore import QRectF
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QGraphicsScene

from vpu_core.formatting import metric_value_text
from vpu_core.graph.model import GraphModel
from vpu_core.layout import Layout

from vpu_core.graph.fold_qdq import edge_text
from vpu_core.graph.groups import group_id, group_path

from .edges import HighlightItem, build_bands, build_labels
from .groups import FrameItem, GroupItem, make_frame_item, make_group_item
from .nodes import MATCHED, NEIGHBOUR, SELECTED, SHARED, NodeItem, StyleCache, make_node_item
from .overview import PRIORITY, OverviewItem, Raster, argb
from .style import NO_VALUE, Theme, gradient_color

if TYPE_CHECKING:
    from PySide6.QtCore import QObject
    from vpu_core.graph.metrics import MetricScale

Z_OVERVIEW = 1.0    # everything else is z 0, stacked in insertion order:
                    # edge bands, then the highlight, then the nodes


class GraphScene(QGraphicsScene):
    def __init__(self, model: GraphModel, layout: Layout, theme: Theme | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model, self.layout = model, layout
        self.theme = theme or Theme.make()
        self.cache = self._style(self.theme)
        self.setItemIndexMethod(QGraphicsScene.ItemIndexMethod.BspTreeIndex)
        self.setSceneRect(QRectF(0.0, 0.0, max(layout.width, 1.0), max(layout.height, 1.0)))
        self.setBackgroundBrush(QBrush(QColor("#ffffff")))
        self.subgraphs = len({n.subgraph for n in model.nodes if n.category == "vpu"})
        self.frames: dict[str, FrameItem] = {}
        boxes = layout.frames
        for stats in sorted(model.frames, key=lambda f: f.depth):     # outer frames first
            if stats.path in boxes:
                it = self.frames[stats.path] = make_frame_item(stats, boxes[stats.path], self.cache)
                self.addItem(it)
        self.bands = build_bands(layout.edges, lambda: self.theme, layout.width)
        for band in self.bands:
            self.addItem(band)
        texts = {(e.src, e.dst): (edge_text(e), e.violations) for e in model.edges if e.folded}
        self.labels = build_labels(layout.edges, texts, lambda: self.theme, layout.width) if texts else []
        for item in self.labels:
            self.addItem(item)
        self.headers: dict[str, FrameItem] = {}
        for path, frame in self.frames.items():                        # over the edges
            it = self.headers[path] = make_frame_item(frame.stats, layout.frames[path], self.cache, True)
            self.addItem(it)
        self.highlight = HighlightItem()
        self.addItem(self.highlight)
        self._build_nodes()
        self.overview = OverviewItem(self.sceneRect(), self._make_raster, self.rects_of)
        self.overview.setZValue(Z_OVERVIEW)
        self.overview.setVisible(False)
        self.addItem(self.overview)
        self.overview_mode = False
        self.selected: str | None = None
        self.matches: list[str] = []
        self.shared: list[str] = []
        self.metric: str | None = None
        self.frame_selected: str | None = None
        self.in_edges: dict[str, list[int]] = {}
        self.out_edges: dict[str, list[int]] = {}
        for k, e in enumerate(layout.edges):
            self.out_edges.setdefault(e.src, []).append(k)
            self.in_edges.setdefault(e.dst, []).append(k)

    # ---- construction -----------------------------------------------------------------------
    def _build_nodes(self) -> None:
        boxes = self.layout.boxes
        ids = [n.id for n in self.model.nodes if n.id in boxes]
        self.ids = ids
        # node boxes as arrays, for picking, counting visible nodes and the raster
        arr = np.array([boxes[i] for i in ids], dtype=np.float64).reshape(-1, 4)
        self.x0, self.y0 = arr[:, 0], arr[:, 1]
        self.x1, self.y1 = arr[:, 0] + arr[:, 2], arr[:, 1] + arr[:, 3]
        cache, add = self.cache, self.addItem
        self.items: dict[str, NodeItem] = {}    # type: ignore[assignment]  # by node id; Qt's items() unused
        for n in self.model.nodes:
            b = boxes.get(n.id)
            if b is not None:
                make = make_group_item if n.category == "group" else make_node_item
                it = self.items[n.id] = make(n, b[0], b[1], b[2], b[3], cache)
                add(it)

    # ---- drawing helpers -------------------------------------------------------------------
    def rects_of(self, ids: Iterable[str]) -> list[QRectF]:
        return [self.items[i].box for i in ids if i in self.items]

    def _make_raster(self) -> Raster:
        """Arrays for the zoomed-out raster: boxes, colours, edge segments."""
        nodes = [self.items[i].node for i in self.ids]
        boxes = np.stack([self.x0, self.y0, self.x1 - self.x0, self.y1 - self.y0], 1)
        colors = np.array([argb(self.cache.fill(n)[1]) for n in nodes], dtype=np.uint32)
        prio = np.array([PRIORITY.get(n.category, 1) for n in nodes], dtype=np.int64)
        viol = np.array([n.violations for n in nodes], dtype=np.int64)
        segs: list = []
        bnd: list = []
        for e in self.layout.edges:
            pts = e.points
            segs.extend(a + b for a, b in zip(pts, pts[1:]))
            bnd.extend([e.boundary is not None] * (len(pts) - 1))
        seg = np.array(segs, dtype=np.float64).reshape(-1, 4)
        return Raster(boxes, colors, prio, viol, seg, np.array(bnd, dtype=bool))

    # ---- state ---------------------------------------------------------------------------------
    def set_overview_mode(self, on: bool) -> None:
        if on != self.overview_mode:
            self.overview_mode = on
            # ~5 ms for 20k items, once per switch (a parent item would make it one call
            # but costs a per-child bounds check on every frame)
            for it in self.items.values():
                it.setVisible(not on)
            for band in (*self.bands, *self.labels):
                band.setVisible(not on)
            self.highlight.setVisible(not on)
            self.overview.setVisible(on)

    def _style(self, theme: Theme) -> StyleCache:
        """The items' shared style for this graph: what its badges count, whether its ops wear
        their partition's number (more than one partition)."""
        parts = {n.subgraph for n in self.model.nodes if n.category == "vpu" and n.subgraph is not None}
        return StyleCache(theme, self.model.meta.get("badges", "violations"), numbered=len(parts) > 1)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        old, self.cache = self.cache, self._style(theme)
        self.cache.overrides = old.overrides
        items: list[NodeItem | FrameItem] = [*self.items.values(), *self.frames.values(), *self.headers.values()]
        for item in items:
            item.cache = self.cache
        self.overview.invalidate()
        self.update()

    def pick(self, x: float, y: float, tol: float = 0.0) -> str | None:
        """Id of the node under scene point (x, y), else the nearest one within tol."""
        if not self.ids:
            return None
        dx = np.maximum(np.maximum(self.x0 - x, x - self.x1), 0.0)
        dy = np.maximum(np.maximum(self.y0 - y, y - self.y1), 0.0)
        d = dx * dx + dy * dy
        k = int(np.argmin(d))
        return self.ids[k] if d[k] <= tol * tol else None

    def count_in(self, r: QRectF) -> int:
        """Number of nodes whose box intersects scene rect r."""
        return int(np.count_nonzero((self.x1 >= r.left()) & (self.x0 <= r.right())
                                    & (self.y1 >= r.top()) & (self.y0 <= r.bottom())))

    def _set_state(self, nid: str, bit: int, on: bool) -> None:
        it = self.items.get(nid)
        if it is not None:
            it.set_state(it.state | bit if on else it.state & ~bit)

    def set_selection(self, nid: str | None) -> None:
        old = self.selected
        if old is not None:
            self._set_state(old, SELECTED, False)
            for k in self.in_edges.get(old, []):
                self._set_state(self.layout.edges[k].src, NEIGHBOUR, False)
            for k in self.out_edges.get(old, []):
                self._set_state(self.layout.edges[k].dst, NEIGHBOUR, False)
        selected = self.selected = nid if nid in self.items else None
        edges = []
        if selected is not None:
            for k in self.in_edges.get(selected, []):
                edges.append(self.layout.edges[k])
                self._set_state(self.layout.edges[k].src, NEIGHBOUR, True)
            for k in self.out_edges.get(selected, []):
                edges.append(self.layout.edges[k])
                self._set_state(self.layout.edges[k].dst, NEIGHBOUR, True)
            self._set_state(selected, SELECTED, True)
        self.highlight.set_edges(edges)
        self.overview.selected = [self.selected] if self.selected else []
        if self.overview_mode:
            self.overview.update()

    def set_matches(self, ids: list[str]) -> None:
        for nid in self.matches:
            self._set_state(nid, MATCHED, False)
        self.matches = list(ids)
        for nid in self.matches:
            self._set_state(nid, MATCHED, True)
        self.overview.matches = self.matches
        if self.overview_mode:
            self.overview.update()

    # ---- module groups, metric overlay, shared scales ------------------------------------------
    def frame_header_at(self, x: float, y: float) -> str | None:
        """Path of the innermost expanded group whose title strip is under (x, y)."""
        hit = None
        for path, it in self.frames.items():
            if it.header().contains(x, y) and (hit is None or it.stats.depth > self.frames[hit].stats.depth):
                hit = path
        return hit

    def open_group(self, node_id: str | None) -> str | None:
        """The path of the open group `node_id` ("group:<path>") when it is drawn as a frame here."""
        path = group_path(node_id) if node_id else None
        return path if path is not None and path in self.frames else None

    def group_box(self, path: str) -> QRectF | None:
        """Where module group `path` is drawn: its closed box or its open frame (None: not drawn)."""
        it = self.items.get(group_id(path))
        if it is not None:
            return it.box
        frame = self.frames.get(path)
        return frame.box if frame is not None else None

    def frame_at(self, x: float, y: float) -> str | None:
        """Path of the innermost expanded group around (x, y)."""
        hit = None
        for path, it in self.frames.items():
            if it.box.contains(x, y) and (hit is None or it.stats.depth > self.frames[hit].stats.depth):
                hit = path
        return hit

    def set_metric(self, key: str | None, scale: MetricScale | None = None, neutral: bool = False,
                   unit: str = "") -> None:
        """Colour ops by metric `key` on `scale` (a core MetricScale; None: back to partition colours)."""
        self.metric = key
        colors = {}
        if key is not None and scale is not None:
            values = self.model.metrics.get(key, {})
            for n in self.model.nodes:
                if n.category in ("vpu", "cpu"):
                    v = values.get(n.id)
                    colors[n.id] = gradient_color(scale.fraction(v), neutral) if v is not None else QColor(NO_VALUE)
        self.cache.set_overrides(colors)
        for it in self.items.values():
            if isinstance(it, GroupItem):
                bar = next((b for b in it.stats.metrics if b.metric == key), None) if key else None
                it.metric_bar = (bar, neutral, _value_text(bar.worst, unit)) if bar and bar.worst is not None else None
            it.update()
        self.overview.invalidate()

    def set_shared(self, ids: list[str]) -> None:
        """Outline the tensors (and ops) forced to one scale with the selection."""
        for nid in self.shared:
            self._set_state(nid, SHARED, False)
        self.shared = [i for i in ids if i in self.items]
        for nid in self.shared:
            self._set_state(nid, SHARED, True)

    def set_frame_selected(self, path: str | None) -> None:
        self.frame_selected = path if path in self.frames else None
        for items in (self.frames, self.headers):
            for p, it in items.items():
                it.set_selected(p == self.frame_selected)


def _value_text(value: float, unit: str) -> str:
    return metric_value_text(value, unit)

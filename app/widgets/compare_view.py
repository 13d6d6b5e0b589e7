"""Compare mode's canvas: the two graphs side by side, panned, zoomed and selected together.

Nodes are paired only through vpu_core.compare (source module + op, never generated names):
`Comparison.pairs` gives the matched ops; a Q/DQ node or a weight follows the op it belongs to
(`violation_owners`), so clicking a quantize on one side selects the op it feeds on the other.

Synchronised pan: the two layouts differ (another quantizer adds or removes Q/DQ nodes), so
the other view is not simply scrolled by the same amount. The matched ops are anchors: the
centre of the leading view is located between the anchor rows above and below it, and the
other view is centred at the same relative place between those anchors' partners. Zoom is
copied as is. Unmatched compute ops are outlined (dashed) on their side.
"""
from __future__ import annotations

import html
import re
from bisect import bisect_right
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QPainter, QPen, QTextDocument
from PySide6.QtWidgets import (QGraphicsItem, QLabel, QSizePolicy, QSplitter,
                               QStyleOptionGraphicsItem, QVBoxLayout, QWidget)

from app import theme
from app.graph_view import GraphView
from vpu_core.formatting import db_on_samples
from vpu_core.graph.groups import GROUP_PREFIX
from app.widgets.words import side_words
from vpu_core.graph.build import cpu_ops
from vpu_core.graph.placement import partition_report
from vpu_core.compare import SIDES, Side

if TYPE_CHECKING:
    from vpu_core.session import InspectionPair
    from PySide6.QtGui import QTransform
    from vpu_core.session import DisplayGraph

UNMATCHED = "#7e22ce"          # purple: no category, selection or search colour uses it
MOVED = "#c2410c"              # partition differs between the two sides
Z_MARKS = 2.0


def _nbsp_text(markup: str) -> str:
    """Non-breaking spaces in the text of `markup`, never inside its tags."""
    return re.sub(r"(^|>)([^<]*)", lambda m: m.group(1) + m.group(2).replace(" ", "&nbsp;"), markup)


def other(side: Side) -> Side:
    return "b" if side == "a" else "a"


class SyncedGraphView(GraphView):
    """A GraphView that announces every change of its viewport (scroll or zoom)."""

    viewport_changed = Signal()

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        self.viewport_changed.emit()

    def setTransform(self, matrix: QTransform, combine: bool = False) -> None:   # GraphView zooms through this
        super().setTransform(matrix, combine)
        self.viewport_changed.emit()

    def box_center(self, node: str) -> QPointF | None:
        scene = self.graph_scene()
        item = scene.items.get(node) if scene is not None else None
        return item.box.center() if item is not None else None


class MarkItem(QGraphicsItem):
    """Outlines (with a short tag) around a set of node boxes: unmatched or moved ops."""

    def __init__(self, rects: list[QRectF], color: str, tag: str) -> None:
        super().__init__()
        self.rects = [r.adjusted(-6, -6, 6, 6) for r in rects]
        self.pen = QPen(QColor(color), 2.2, Qt.PenStyle.DashLine)
        self.color = QColor(color)
        self.tag = tag
        self.font = QFont()
        self.font.setPixelSize(10)
        self.font.setBold(True)
        bounds = QRectF()
        for r in self.rects:
            bounds = bounds.united(r.adjusted(-2, -16, 2, 2))
        self._bounds = bounds
        self.setZValue(Z_MARKS)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        pen = QPen(self.pen)
        pen.setCosmetic(lod < 0.5)
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for r in self.rects:
            painter.drawRoundedRect(r, 7.0, 7.0)
        if lod >= 0.5 and self.tag:
            painter.setFont(self.font)
            painter.setPen(self.color)
            for r in self.rects:
                painter.drawText(QRectF(r.left(), r.top() - 15, r.width() + 60, 14),
                                 Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom, self.tag)


class _Anchors:
    """The matched ops of one side, by layout row, with their partners' centres."""

    def __init__(self, view: SyncedGraphView, partners: dict[str, str], other_view: SyncedGraphView) -> None:
        rows: dict[float, list[tuple[float, QPointF, QPointF]]] = {}
        scene = view.graph_scene()
        groups = {n: n for n in scene.items if n.startswith(GROUP_PREFIX)} if scene is not None else {}
        for node, partner in (*partners.items(), *groups.items()):   # a group box: the same path
            here, there = view.box_center(node), other_view.box_center(partner)
            if here is not None and there is not None:
                rows.setdefault(round(here.y(), 1), []).append((here.x(), there, here))
        self.ys = sorted(rows)
        self.rows = [rows[y] for y in self.ys]

    def _nearest(self, row: int, x: float):
        return min(self.rows[row], key=lambda entry: abs(entry[0] - x))

    def map(self, point: QPointF) -> QPointF | None:
        """Where `point` of this side lies, relative to the anchors, on the other side."""
        if not self.ys:
            return None
        i = bisect_right(self.ys, point.y())
        above, below = max(i - 1, 0), min(i, len(self.ys) - 1)
        _, p1, h1 = self._nearest(above, point.x())
        _, p2, h2 = self._nearest(below, point.x())
        span = h2.y() - h1.y()
        t = (point.y() - h1.y()) / span if span > 1e-6 else 0.0
        t = min(max(t, 0.0), 1.0) if above != below else 0.0
        here = h1 + (h2 - h1) * t
        there = p1 + (p2 - p1) * t
        return there + (point - here)


FOLDED_BELOW_W = 900      # px of a pane's canvas: narrower, its legend starts folded


class CompareView(QWidget):
    """Two SyncedGraphViews with a header each; `node_selected(side, node)` on any selection."""

    node_selected = Signal(str, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.views = {s: SyncedGraphView() for s in SIDES}
        self.headers = {s: QLabel() for s in SIDES}
        self.result: InspectionPair | None = None
        self.partners: dict[str, dict[str, str]] = {"a": {}, "b": {}}
        self.owners: dict[str, dict[str, str]] = {"a": {}, "b": {}}
        self.unmatched: dict[str, tuple[str, ...]] = {"a": (), "b": ()}
        self.moved: dict[str, list[str]] = {"a": [], "b": []}
        self._anchors: dict[str, _Anchors | None] = {"a": None, "b": None}
        self.marks: dict[str, list[MarkItem]] = {"a": [], "b": []}   # outlines drawn per side
        self._syncing = False
        self._legend_folded_once = False
        self._header_bits: dict[str, list[tuple[int, str]]] = {}    # (priority, fact) per side
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        for side in SIDES:
            pane = QWidget()
            box = QVBoxLayout(pane)
            box.setContentsMargins(0, 0, 0, 0)
            box.setSpacing(0)
            header = self.headers[side]
            header.setTextFormat(Qt.TextFormat.RichText)
            header.setObjectName("compareHeader")
            # long headers must not widen the window: they wrap between the facts instead (both
            # sides as high as the taller one, so the two canvases stay the same size)
            header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            header.setWordWrap(True)
            header.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
            header.setStyleSheet(f"background: {theme.PANEL}; border-bottom: 1px solid {theme.BORDER}; "
                                 f"padding: 4px 10px; font-size: 9pt;")   # one line at 1280×720
            box.addWidget(header)
            box.addWidget(self.views[side], 1)
            self.splitter.addWidget(pane)
            view = self.views[side]
            view.viewport_changed.connect(lambda s=side: self._sync_viewport(s))
            view.node_selected.connect(lambda node, s=side: self._on_selected(s, node))
            view.groups_changed.connect(lambda s=side: self._follow_groups(s))
        self.splitter.setHandleWidth(6)
        for header in self.headers.values():
            header.installEventFilter(self)
        self.views["a"].room_partner = self.views["b"]     # both fit clear of either side's overlays,
        self.views["b"].room_partner = self.views["a"]     # so the synced centres agree
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)

    # -- content ------------------------------------------------------------------------------
    def set_result(self, result: InspectionPair, graph_a: DisplayGraph, graph_b: DisplayGraph) -> None:
        """Show an InspectionPair with the DisplayGraphs (model + layout) of its two sides."""
        from vpu_core.compare import violation_owners

        self.result = result
        cmp = result.comparison
        self.partners = {"a": {p.a.node: p.b.node for p in cmp.pairs},
                         "b": {p.b.node: p.a.node for p in cmp.pairs}}
        self.owners = {"a": violation_owners(result.a.analysis), "b": violation_owners(result.b.analysis)}
        self.unmatched = {"a": cmp.only_a, "b": cmp.only_b}
        self.moved = {"a": [p.a.node for p in cmp.partition_changes],
                      "b": [p.b.node for p in cmp.partition_changes]}
        self._syncing = True
        try:
            # the single view's grouping: side A opens what fits, side B the same groups (one
            # model: the same module paths), and a group opened on one side opens on the other
            self.views["a"].set_graph(graph_a.model, graph_a.layout, graph_a.grouped)
            self.views["b"].set_graph(graph_b.model, graph_b.layout, graph_b.grouped,
                                      opened=self.views["a"].groups.opened())
            self._fold_big_legend()
            self._regrouped()
            self._set_headers(result)
            self.views["a"].first_view()
        finally:
            self._syncing = False
        self._sync_viewport("a")

    def _regrouped(self) -> None:
        """Marks and sync anchors for the graphs drawn now (after a result or a group toggle)."""
        self._add_marks()
        self._anchors = {s: _Anchors(self.views[s], self.partners[s], self.views[other(s)])
                         for s in SIDES}

    def _follow_groups(self, side: Side) -> None:
        """A group opened or closed on `side`: the other side shows the same groups."""
        if self._syncing or self.result is None:
            return
        self._syncing = True
        try:
            self.views[other(side)].groups.show_opened(self.views[side].groups.opened())
            self._regrouped()
        finally:
            self._syncing = False
        self._sync_viewport(side)

    def _fold_big_legend(self) -> None:
        """A half-width pane is narrow: its legend starts folded to its "Legend ▸" chip when the
        pane is narrower than FOLDED_BELOW_W (both panes of a 1280×720 window: an unfolded legend
        covered their first nodes) or the legend would take over a third of its width or a quarter
        of its height (once: a click or L unfolds it, and a later result keeps what the user chose)."""
        if self._legend_folded_once:
            return
        for view in self.views.values():
            size, vp = view.legend_size(), view.viewport().rect()
            if vp.width() < FOLDED_BELOW_W or size.width() > vp.width() / 3 or size.height() > vp.height() / 4:
                view.fold_legend(True)
                self._legend_folded_once = True

    def _add_marks(self) -> None:
        for mark in (m for side in SIDES for m in self.marks[side]):
            if mark.scene() is not None:       # a scene kept across a regroup keeps no old mark
                mark.scene().removeItem(mark)
        self.marks = {"a": [], "b": []}
        for side in SIDES:
            scene = self.views[side].graph_scene()
            if scene is None:                      # set_graph gives every view a scene
                continue
            other_label = self.label(other(side))
            for ids, color, tag in ((self.unmatched[side], UNMATCHED, f"no match in {other_label}"),
                                    (self.moved[side], MOVED, "placed differently")):
                rects = scene.rects_of(ids)
                if rects:
                    mark = MarkItem(rects, color, tag)
                    scene.addItem(mark)
                    self.marks[side].append(mark)

    def label(self, side: Side) -> str:
        cmp = self.result.comparison if self.result is not None else None
        if cmp is None:
            return side.upper()
        return cmp.a_label if side == "a" else cmp.b_label

    def _set_headers(self, result: InspectionPair) -> None:
        for side in SIDES:
            run = result.a if side == "a" else result.b
            a = run.analysis
            source = run.view.partition_source if run.view else "simulated"
            part = partition_report(a, source, run.attached.delegation, run.targets)
            words = side_words(source)
            unit = words.short    # short: one line at 720
            n_sub, n_cpu, n_v = len(part.subgraphs), len(cpu_ops(part)), len(a.violations)
            bits = [(2, f"{n_sub} {unit}{'s' if n_sub != 1 else ''}"),
                    (3, f"{n_cpu} {words.cpu}")]
            if source == "simulated":          # the VPU's rules: when the VPU judges this side
                bits.append((0, f'<b style="color:{theme.DANGER if n_v else theme.OK}">{n_v} violations</b>'))
            if a.sqnr_db is not None:
                bits.append((1, f"SQNR {db_on_samples(a.sqnr_db, a.accuracy_samples)}"))
            missing = len(self.unmatched[side])
            if missing:
                bits.append((1, f'<span style="color:{UNMATCHED}">{missing} unmatched</span>'))
            self._header_bits[side] = bits
            self.headers[side].setToolTip(re.sub(r"<[^>]+>", "", self._header_html(side, bits))
                                          .replace("&nbsp;", " "))
        self._fit_headers()

    def _header_html(self, side: Side, bits: list[tuple[int, str]]) -> str:
        # a fact never breaks inside ("SQNR 31.4 d"): non-breaking spaces within, breaks between
        return (f'<span style="color:{theme.MUTED}">{side.upper()}</span>&nbsp; '
                f'<b>{html.escape(self.label(side))}</b>&nbsp;&nbsp; '
                + " · ".join(b.replace(" ", "&nbsp;") if "<" not in b else _nbsp_text(b) for _, b in bits))

    def _one_line(self, side: Side) -> str:
        """The header with the facts that fit one line at its width, the least important left out
        first (the tooltip has them all); all of them, wrapped, when even the first do not fit."""
        header, bits = self.headers[side], self._header_bits.get(side, [])
        width = header.width() - 20                        # its padding
        for keep in sorted({p for p, _ in bits}, reverse=True):
            text = self._header_html(side, [(p, b) for p, b in bits if p <= keep])
            doc = QTextDocument()
            doc.setDefaultFont(header.font())
            doc.setDocumentMargin(0)
            doc.setHtml(text)
            if doc.idealWidth() <= width or keep == 0:
                return text if doc.idealWidth() <= width else self._header_html(side, bits)
        return self._header_html(side, bits)

    def _fit_headers(self) -> None:
        """Both headers on one line if their facts allow, as high as the taller one needs."""
        for side in SIDES:
            if side in self._header_bits:
                text = self._one_line(side)
                if self.headers[side].text() != text:
                    self.headers[side].setText(text)
        heads = list(self.headers.values())
        height = max(h.heightForWidth(max(h.width(), 1)) for h in heads)
        if height <= 0:                            # no text yet: Qt answers -1
            return
        for h in heads:
            if h.height() != height:
                h.setFixedHeight(height)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and watched in self.headers.values():
            self._fit_headers()                    # a pane's width changed: its header may wrap
        return False

    # -- selection -----------------------------------------------------------------------------
    def op_of(self, side: Side, node: str) -> str:
        """The compute op `node` belongs to (itself for an op; a Q/DQ or weight's op otherwise)."""
        return node if node in self.partners[side] or node in self.unmatched[side] \
            else self.owners[side].get(node, node)

    def partner(self, side: Side, node: str) -> str | None:
        """The node of the other side matched with `node` (through its op), if any."""
        return self.partners[side].get(self.op_of(side, node))

    def select(self, side: Side, node: str | None, center: bool = True) -> bool:
        """Select `node` on `side` (centred when asked); the other side selects its partner."""
        view = self.views[side]
        if node is None:
            return view.select_node(None)
        if center:
            ok = view.center_on(node)
        else:
            ok = view.select_node(node)
        return ok

    def _on_selected(self, side: Side, node: str) -> None:
        twin = self.views[other(side)]
        if not self._syncing:
            self._syncing = True
            try:
                partner = self.partner(side, node) if node else None
                twin.select_node(partner)
                if partner:
                    center = twin.box_center(partner)
                    if center is not None and not twin.visible_scene_rect().contains(center):
                        twin.put(center, twin.free_rect().center())
            finally:
                self._syncing = False
            self.node_selected.emit(side, node)

    # -- synchronised viewport -----------------------------------------------------------------
    def _sync_viewport(self, side: Side) -> None:
        if self._syncing or self.result is None:
            return
        lead, follow = self.views[side], self.views[other(side)]
        if lead.graph_scene() is None or follow.graph_scene() is None:
            return
        self._syncing = True
        try:
            follow.setTransform(lead.transform())
            center = lead.mapToScene(lead.viewport().rect().center())
            anchors = self._anchors.get(side)
            target = anchors.map(QPointF(center)) if anchors is not None else None
            if target is None:    # nothing matched: keep the same relative place
                r, o = lead.graph_rect(), follow.graph_rect()
                fx = (center.x() - r.left()) / max(r.width(), 1.0)
                fy = (center.y() - r.top()) / max(r.height(), 1.0)
                target = QPointF(o.left() + fx * o.width(), o.top() + fy * o.height())
            follow.centerOn(target)
        finally:
            self._syncing = False

    def views_list(self) -> list[SyncedGraphView]:
        return [self.views[s] for s in SIDES]

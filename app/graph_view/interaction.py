"""How a hand drives a GraphView: its keys, the wheel, a click on a node or a group's frame
header, and the hover tooltip. The view's Qt event handlers call these; double-click and the
context menu belong to module groups (app.graph_view.group_navigator).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPointF, Qt
from PySide6.QtWidgets import QToolTip

from vpu_core.formatting import count_text
from vpu_core.graph.groups import GROUP_PREFIX

if TYPE_CHECKING:
    from PySide6.QtGui import QHelpEvent, QKeyEvent, QMouseEvent, QWheelEvent

    from app.graph_view.scene import GraphScene
    from app.graph_view.view import GraphView

CLICK_SLOP = 4.0                # px a click may move and still select
WHEEL_STEP = 1.0015             # zoom factor per wheel unit (1/8 degree)


def key_action(view: GraphView, event: QKeyEvent) -> bool:
    """Do what the canvas key of `event` says: +/- zoom, F fit (Shift+F: all), N or F3 the next
    search match (Shift: the previous), Esc clears the selection, L folds the legend. False: not
    a canvas key."""
    k, mods = event.key(), event.modifiers()
    shift = mods & Qt.KeyboardModifier.ShiftModifier
    if k in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
        view.zoom_by(1.25)
    elif k in (Qt.Key.Key_Minus, Qt.Key.Key_Underscore):
        view.zoom_by(0.8)
    elif k == Qt.Key.Key_F:
        view.fit_all() if shift else view.fit()
    elif k in (Qt.Key.Key_N, Qt.Key.Key_F3):
        (view.prev_match if shift else view.next_match)()
    elif k == Qt.Key.Key_Escape:
        view.select_node(None)
    elif k == Qt.Key.Key_L and not mods & ~Qt.KeyboardModifier.KeypadModifier:
        view.fold_legend(not view.legend_collapsed())
    else:
        return False
    return True


def wheel_zoom(view: GraphView, event: QWheelEvent) -> None:
    """Zoom about the pointer by the wheel's turn."""
    dy = event.angleDelta().y()
    if dy:
        view.zoom_by(WHEEL_STEP ** dy, event.position())
    event.accept()


def show_tooltip(view: GraphView, event: QHelpEvent) -> None:
    """The node's tooltip at the pointer (view.node_tooltip), or none."""
    text = view.node_tooltip(QPointF(view.mapToScene(event.pos())))
    if text:
        QToolTip.showText(event.globalPos(), text, view)
    else:
        QToolTip.hideText()


def node_tooltip(scene: GraphScene | None, pt: QPointF, zoom: float) -> str:
    """The tooltip of the node at scene point `pt`: "decoder (OPTDecoder) · 113 rule violations"
    (the full count: the badge stops at 99+); "" for a node without violations or no node."""
    if scene is None:
        return ""
    nid = scene.pick(pt.x(), pt.y(), tol=10.0 / max(zoom, 1e-6))
    node = scene.items[nid].node if nid is not None and nid in scene.items else None
    if node is None or not node.violations:
        return ""
    if scene.model.meta.get("badges", "violations") != "violations":
        return f"{node.label} · {count_text(node.violations, 'op')} on the CPU"
    return f"{node.label} · {count_text(node.violations, 'VPU rule violation')}"


def is_click(press: QPointF | None, release: QMouseEvent) -> bool:
    """A left button released near where it was pressed (`press`): a click, not a drag."""
    return press is not None and release.button() == Qt.MouseButton.LeftButton \
        and (release.position() - press).manhattanLength() <= CLICK_SLOP


def clicked_id(scene: GraphScene, pt: QPointF, zoom: float) -> str | None:
    """What a click at scene point `pt` selects: a node, else an open group by its frame header
    ("group:<path>"), else nothing."""
    nid = scene.pick(pt.x(), pt.y(), tol=4.0 / max(zoom, 1e-6))
    if nid is None:
        header = scene.frame_header_at(pt.x(), pt.y())
        nid = GROUP_PREFIX + header if header is not None else None
    return nid

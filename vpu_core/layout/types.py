"""Result types of the layout and the default node-size estimate."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, NamedTuple

from vpu_core.graph.model import GraphNode

if TYPE_CHECKING:
    from vpu_core.graph.model import GraphModel

Box = tuple[float, float, float, float]          # x, y, w, h (top-left corner)
Point = tuple[float, float]
NodeSize = Callable[[GraphNode], tuple[float, float]]

# Geometry constants shared by coordinate assignment, routing and the view.
# px per label character, without Qt: room for what the bundled Sans (resources/fonts) draws at the
# canvas's 11 px labels and 9 px details (tests/test_fonts.py measures the zoo's labels against it)
CHAR_W = 7.5
NODE_PAD = 24.0       # horizontal padding inside a node
MIN_W = 90.0          # minimum width of an op node
MIN_W_SMALL = 56.0    # minimum width of a Q/DQ or parameter node
OP_H = 36.0           # op nodes: label + detail line
SMALL_H = 24.0        # Q/DQ and parameter nodes: one line
RANK_SEP = 34.0       # vertical gap between two layers
RANK_SEP_FOLDED = 28.0  # with Q/DQ folded into edges: only an edge label lives in the gap


def rank_sep(model: GraphModel) -> float:
    return RANK_SEP_FOLDED if model.meta.get("hide_qdq") else RANK_SEP
NODE_SEP = 22.0       # horizontal gap between two nodes of a layer
EDGE_SEP = 12.0       # horizontal gap next to a bend point of a long edge
MARGIN = 20.0         # empty border around the drawing


class EdgeRoute(NamedTuple):
    """One model edge as a polyline from the bottom of src to the top of dst.

    A NamedTuple (immutable, like a frozen dataclass) because it is built 20k times per
    layout and a frozen dataclass's __init__ costs ~3x more."""
    src: str
    dst: str
    boundary: str | None
    points: tuple[Point, ...]
    reversed: bool = False   # True only for an edge that closed a cycle (drawn upward)


@dataclass(frozen=True)
class Layout:
    boxes: dict[str, Box]
    edges: tuple[EdgeRoute, ...]
    width: float
    height: float
    layers: int = 0          # number of layers (ranks) used
    frames: dict[str, Box] = field(default_factory=dict)  # expanded module group -> its frame

    def center(self, node_id: str) -> Point:
        x, y, w, h = self.boxes[node_id]
        return (x + w / 2.0, y + h / 2.0)


GROUP_H = 50.0        # a collapsed module group: name, counts, VPU/CPU bar (+ metric bar)
GROUP_MIN_W = 170.0


def node_sizer(label_scale: float = 1.0) -> NodeSize:
    """Node sizes for labels drawn `label_scale` times the normal label font (presentation and
    large labels): the text room and the line heights grow with the font, so a larger font never
    has to cut a label; the padding stays."""
    if label_scale == 1.0:
        return default_node_size
    return ScaledNodeSize(CHAR_W * label_scale, OP_H * label_scale, SMALL_H * label_scale)


@dataclass(frozen=True)
class ScaledNodeSize:
    """node_sizer's sizes for a larger font: a module-level value, not a closure, because the
    grouped graph that holds it crosses from the worker process to the window (pickled)."""

    char_w: float
    op_h: float
    small_h: float

    def __call__(self, node: GraphNode) -> tuple[float, float]:
        return _size(node, self.char_w, self.op_h, self.small_h)


def default_node_size(node: GraphNode) -> tuple[float, float]:
    """Width from the longest text line (label or detail), height by category.

    Q/DQ and parameter nodes are one-line and smaller so the main ops stand out; a collapsed
    module group is a taller box with room for its bars.
    """
    return _size(node, CHAR_W, OP_H, SMALL_H)


def _size(node: GraphNode, char_w: float, op_h: float, small_h: float) -> tuple[float, float]:
    scale = char_w / CHAR_W
    if node.category == "group":
        text = max(len(node.label) + 4, len(node.detail) + 6)
        return (float(round(max(GROUP_MIN_W * scale, text * char_w + NODE_PAD))), GROUP_H * scale)
    small = node.category in ("qdq", "param") or node.is_param
    text = max(len(node.label), int(len(node.detail) * 0.9) if not small else 0)
    w = max((MIN_W_SMALL if small else MIN_W) * scale, text * char_w + NODE_PAD)
    return (float(round(w)), small_h if small else op_h)

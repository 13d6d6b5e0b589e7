"""The display-ready graph the GUI and the renderer draw.

Built by the core from a converted Q/DQ graph plus its analysis; the view only paints it.
Everything is a small frozen dataclass of plain values (no torch objects).
"""
from __future__ import annotations

from dataclasses import dataclass, field

# Node categories, in legend order.
CATEGORIES = ("vpu", "cpu", "qdq", "param", "io")


@dataclass(frozen=True)
class GraphNode:
    id: str                      # fx node name, unique
    label: str                   # short op name, e.g. "conv2d", "quantize", "x"
    detail: str = ""             # second line, e.g. "1×16×32×32 int8"
    category: str = "vpu"        # one of CATEGORIES
    subgraph: int | None = None  # VPU subgraph id (vpu nodes and the Q/DQ feeding them)
    violations: int = 0          # number of rule violations on this node
    is_param: bool = False       # parameter/constant (and its Q/DQ chain): placed beside its consumer
    folded: tuple[str, ...] = () # ids of parameter nodes folded into this one


@dataclass(frozen=True)
class GraphEdge:
    src: str
    dst: str
    boundary: str | None = None  # "vpu->cpu", "cpu->vpu" or None


@dataclass(frozen=True)
class GraphModel:
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    title: str = ""
    meta: dict = field(default_factory=dict, compare=False)

    def node(self, node_id: str) -> GraphNode:
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

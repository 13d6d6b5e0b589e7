"""The display-ready graph the GUI and the renderer draw.

Built by the core from a converted Q/DQ graph plus its analysis; the view only paints it.
Everything is a small frozen dataclass of plain values (no torch objects).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from vpu_core.analysis.results import BoundaryDirection

# What a node is drawn as: an op on the target's accelerator (inside a partition; "vpu" for every
# target) or the CPU, an op the target's lowering removed (folded away: it runs nowhere), a
# quantize / dequantize, a parameter, a graph input / output, a collapsed module group drawn as one
# box, or (the layout's own, never drawn) a frame's port (vpu_core.layout.compound).
Category = Literal["vpu", "cpu", "removed", "qdq", "param", "io", "group", "port"]
CATEGORIES: tuple[Category, ...] = ("vpu", "cpu", "removed", "qdq", "param", "io", "group")   # drawn, in legend order


@dataclass(frozen=True)
class MetricBar:
    """How a group's member ops spread over one metric's colour scale, and its worst value."""

    metric: str                  # vpu_core.graph.metrics key, e.g. "sqnr"
    counts: tuple[int, ...]      # members per bin of the metric's scale, worst bin first
    worst: float | None


@dataclass(frozen=True)
class GroupStats:
    """The numbers a module group shows, collapsed (a box) or expanded (a frame's header)."""

    path: str                    # ModuleGroup.path
    label: str                   # "layer.3.attention (BertAttention)"
    depth: int
    nodes: int                   # graph nodes inside (directly or transitively)
    ops: int                     # of which real ops (not Q/DQ, parameters, inputs)
    vpu_ops: int
    cpu_ops: int
    violations: int
    metrics: tuple[MetricBar, ...] = ()


@dataclass(frozen=True)
class GraphNode:
    id: str                      # fx node name, unique
    label: str                   # short op name, e.g. "conv2d", "quantize", "x"
    detail: str = ""             # second line, e.g. "1×16×32×32 int8"
    category: Category = "vpu"
    subgraph: int | None = None  # VPU subgraph id (vpu nodes and the Q/DQ feeding them)
    violations: int = 0          # its badge: the VPU's rule violations on it, or (coloured by
                                 # another target) 1 for an op that target leaves on the CPU
    is_param: bool = False       # parameter/constant (and its Q/DQ chain): placed beside its consumer
    folded: tuple[str, ...] = () # ids of parameter nodes folded into this one
    group: GroupStats | None = None  # category "group": the collapsed module group it stands for
    module: str = ""             # module path the node belongs to ("stages.0.path_a.0"), for search
    dtype: str = ""              # the dtype box and panel state (build.display_dtype): "int8" for a
                                 # VPU op's requantized output, a CPU op's own ("fp32"), "" fused


@dataclass(frozen=True)
class GraphEdge:
    src: str
    dst: str
    boundary: BoundaryDirection | None = None
    bytes: int = 0               # bytes a boundary edge moves (summed over the edges it stands for)
    dtype: str = ""              # folded Q/DQ: the dtype the tensor travels in, e.g. "int8"
    scale: float | None = None   # folded Q/DQ: the per-tensor scale (None: per-channel / unknown)
    violations: int = 0          # rule violations on the Q/DQ nodes folded into this edge
    folded: tuple[str, ...] = () # ids of the Q/DQ nodes folded into this edge


@dataclass(frozen=True)
class GraphModel:
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    title: str = ""
    meta: dict = field(default_factory=dict, compare=False)
    metrics: dict = field(default_factory=dict, compare=False)  # metric key -> {node id: value}
    frames: tuple[GroupStats, ...] = ()  # expanded module groups (drawn as frames around members)

    def node(self, node_id: str) -> GraphNode:
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

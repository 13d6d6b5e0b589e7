"""`layout_graph`: the pipeline layering -> ordering -> coordinates -> routing."""
from __future__ import annotations

import gc

from vpu_core.graph.model import GraphModel

from .layering import build_layered
from .ordering import order_layers
from .coordinates import assign_x, assign_y
from .routing import route_edges
from .types import MARGIN, Layout, NodeSize, default_node_size, rank_sep


def layout_graph(model: GraphModel, node_size: NodeSize | None = None) -> Layout:
    """Layered top-to-bottom layout of `model`. Deterministic: same input, same output."""
    # The layout allocates ~10^5 small lists and tuples and frees none of them before it
    # returns; cyclic GC passes over them are pure overhead (~15% at 20k nodes).
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _layout(model, node_size or default_node_size)
    finally:
        if was_enabled:
            gc.enable()


def _layout(model: GraphModel, size: NodeSize) -> Layout:
    g = build_layered(model)
    layers = order_layers(g)
    n_dummy = g.n - g.n_real
    sizes = [size(nd) for nd in model.nodes]
    width = [float(s[0]) for s in sizes] + [0.0] * n_dummy
    height = [float(s[1]) for s in sizes] + [0.0] * n_dummy
    x = assign_x(g, layers, width)
    tops, row_h = assign_y(layers, height, rank_sep(model))
    boxes: dict[str, tuple[float, float, float, float]] = {}
    layer = g.layer
    for v, nid in enumerate(g.ids):
        l, w, h = layer[v], width[v], height[v]
        boxes[nid] = (x[v] - w / 2.0, tops[l] + (row_h[l] - h) / 2.0, w, h)
    right = max((x[v] + width[v] / 2.0 for v in range(g.n)), default=0.0)
    edges = route_edges(model, g, x, width, height, tops, row_h, boxes)
    bottom = (tops[-1] + row_h[-1]) if tops else 0.0
    return Layout(boxes=boxes, edges=edges, width=right + MARGIN + 16.0,
                  height=bottom + MARGIN + 10.0, layers=len(layers))

"""Layered (Sugiyama-style) layout of a `GraphModel`, written for big Q/DQ graphs.

Why our own layout instead of a library
---------------------------------------
Quantized transformers and large CNNs give Q/DQ graphs of 5,000-20,000 nodes. Measured on
the 2-core target machine: Netron's dagre ~18 s and Graphviz dot ~5 min at 20k nodes;
igraph's Sugiyama exceeded 4 GB of memory, grandalf took minutes, OGDF is GPL. The graphs
we draw have a very regular shape (a long data-flow spine, each op fed by a short weight
chain, residual skips), which a plain-Python layered layout exploits to stay well under a
second at 20k nodes with no extra dependency. Graphviz, when installed, is used only as a
quality reference (`tools/layouts/dot_reference.py`, a developer tool), never at run time.

Pipeline (one module each, all deterministic)
  layering     longest-path layers; parameters (weights and their Q/DQ chain) and plain
               sources sink to just above their consumer; dummy vertices split long edges
  ordering     DFS initial order, barycenter sweeps with parameters biased to the left of
               the spine, transpositions only where crossings remain
  coordinates  x by a priority method in two passes over the layers (weighted medians of the
               neighbours, each layer fitted exactly by weighted isotonic regression: straight
               spine, straight long edges), y per layer row
  routing      polylines from the bottom of the source to the top of the target through
               the dummies' bend points; diagonal only between rows, so never across a node
  metrics      geometric crossing count (same rules for dot), overlap and invariant checks
  compound     module groups: each open group laid out on its own inside a frame, with ports
               for the edges that cross its border; expanding / collapsing one re-places only
               its ancestors (vpu_core.layout.grouped.GroupedGraph drives it)

Public API:  layout_graph(model, node_size=None) -> Layout;  Layout, EdgeRoute,
default_node_size, count_crossings, check_layout, layout_stats.
"""
from .engine import layout_graph
from .metrics import check_layout, count_crossings, layout_stats, overlapping_boxes
from .types import EdgeRoute, Layout, default_node_size

__all__ = ["layout_graph", "Layout", "EdgeRoute", "default_node_size", "count_crossings",
           "check_layout", "layout_stats", "overlapping_boxes"]

"""A display graph with its module hierarchy: expand and collapse groups, get (model, layout).

    grouped = GroupedGraph(flat_model, tree, violations)
    model, layout = grouped.collapse_to(1)          # top-level blocks as boxes
    model, layout = grouped.toggle("encoder")       # open one in place (only its ancestors move)
    depth = grouped.fitting_depth(1200, 700)        # deepest level that fits a window legibly

The GUI, `render --collapse` and the benchmark all use this one object. Pure Python.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

import gc

from vpu_core.graph.groups import Visibility, VisibleModels, group_node, group_stats
from vpu_core.analysis.hierarchy import ModuleTree, dissolve
from vpu_core.graph.model import GraphModel, GraphNode, GroupStats
from vpu_core.layout.compound import CompoundLayout
from vpu_core.layout.types import Layout, NodeSize

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis

LEGIBLE_ZOOM = 0.7      # labels read well from here (11 px font → 7.7 px on screen)
MAX_TRIES = 12          # groups tried when opening the biggest ones that still fit


REPORT_PAGE = (900.0, 1400.0)    # px of a report page the collapsed picture should fit at 1:1


def report_view(grouped: GroupedGraph) -> frozenset[str]:
    """What the report shows open: the top-level blocks, and the biggest ones opened while the
    picture still fits a page at full size."""
    return grouped.fitting_view(*REPORT_PAGE, zoom=1.0)


def grouped_graph(analysis: Analysis, model: GraphModel,
                  node_size: NodeSize | None = None) -> GroupedGraph | None:
    """The GroupedGraph of a display graph built from `analysis` (None: no module hierarchy)."""
    from vpu_core.analysis.hierarchy import module_tree

    tree = module_tree(analysis)
    if not tree.groups:
        return None
    if model.meta.get("badges", "violations") != "violations":
        return GroupedGraph(model, tree, None, node_size)    # another target's: its CPU ops, as drawn
    counts: dict[str, int] = {}
    for v in analysis.violations:
        counts[v.node] = counts.get(v.node, 0) + 1
    return GroupedGraph(model, tree, counts, node_size)


def display_tree(model: GraphModel, tree: ModuleTree) -> ModuleTree:
    """The groups worth a box: a module with at most one op inside (a Conv2d, a ReLU) is shown
    as that op, so it is dissolved into its parent."""
    ops = {n.id for n in model.nodes if n.category in ("vpu", "cpu")}
    return dissolve(tree, lambda g: sum(1 for n in g.nodes if n in ops) <= 1)


class _GroupBoxes:
    """path -> the GraphNode of its collapsed box, made once per group."""

    def __init__(self, stats: dict[str, GroupStats]) -> None:
        self.stats = stats
        self.boxes: dict[str, GraphNode] = {}

    def __call__(self, path: str) -> GraphNode:
        node = self.boxes.get(path)
        if node is None:
            node = self.boxes[path] = group_node(self.stats[path])
        return node


class GroupedGraph:
    def __init__(self, model: GraphModel, tree: ModuleTree, violations: dict[str, int] | None = None,
                 node_size: NodeSize | None = None) -> None:
        self.flat, self.full_tree, self.tree = model, tree, display_tree(model, tree)
        self.stats = group_stats(model, self.tree, violations)
        model.meta["group_stats"] = self.stats        # for panels that only see the flat model
        # the layout and the visible models get the boxes from their own object, not a bound
        # method of this one: no reference cycle, so a replaced graph is freed at once instead of
        # by the next full collection (seconds over a 20k-node graph's layout caches)
        self.box = _GroupBoxes(self.stats)
        self.compound = CompoundLayout(model, self.tree, self.box, node_size)
        self._visible = VisibleModels(model, self.stats, self.box)
        self.expanded: frozenset[str] = frozenset()

    # -- state ---------------------------------------------------------------------------------------
    def show(self, expanded: Iterable[str]) -> tuple[GraphModel, Layout]:
        """The graph with exactly the groups in `expanded` open (a group whose parent is
        closed stays hidden inside it)."""
        self.expanded = frozenset(p for p in expanded if p in self.tree.groups)
        # ~10^5 short-lived tuples and lists: a cyclic GC pass over the big, long-lived layout
        # caches in the middle of it would cost more than the whole toggle
        was = gc.isenabled()
        gc.disable()
        try:
            vis = Visibility(self.tree, self.expanded)
            shown = self._visible.build(vis)
            return shown, self.compound.layout(vis, shown)
        finally:
            if was:
                gc.enable()

    def is_open(self, path: str) -> bool:
        return path in self.expanded

    def expand(self, path: str) -> tuple[GraphModel, Layout]:
        """Open `path` and every group around it (so it is visible)."""
        return self.show(self.expanded | set(self.tree.chain(path)))

    def collapse(self, path: str) -> tuple[GraphModel, Layout]:
        return self.show(self.expanded - {path})

    def toggle(self, path: str) -> tuple[GraphModel, Layout]:
        return self.collapse(path) if path in self.expanded else self.expand(path)

    def collapse_to(self, depth: int) -> tuple[GraphModel, Layout]:
        """Groups at `depth` and below drawn closed (1 = the top-level blocks)."""
        return self.show(self.tree.at_depth_below(depth))

    def expand_all(self) -> tuple[GraphModel, Layout]:
        return self.show(self.tree.groups)

    # -- choosing what to open ---------------------------------------------------------------------------
    def fits(self, layout: Layout, width: float, height: float, zoom: float = LEGIBLE_ZOOM) -> bool:
        return layout.width * zoom <= width and layout.height * zoom <= height

    def fitting_depth(self, width: float, height: float, zoom: float = LEGIBLE_ZOOM) -> int:
        """The deepest collapse depth whose whole picture fits `width` × `height` pixels at
        `zoom` or more; at least 1 (the top-level blocks), at most everything open."""
        best, keep = 1, self.expanded
        for depth in range(2, self.tree.max_depth + 2):
            _, layout = self.collapse_to(depth)
            if not self.fits(layout, width, height, zoom):
                break
            best = depth
        self.expanded = keep
        return best

    def fitting_view(self, width: float, height: float, zoom: float = LEGIBLE_ZOOM) -> frozenset[str]:
        """What a new model opens with: the fitting depth, then the biggest closed groups opened
        one by one while the whole picture still fits (an encoder holding 98 % of the model is
        opened, a stem of 15 nodes stays closed)."""
        keep = self.expanded
        opened = set(self.tree.at_depth_below(self.fitting_depth(width, height, zoom)))
        tries = 0
        while tries < MAX_TRIES:
            closed = [p for p, g in self.tree.groups.items() if p not in opened
                      and (g.parent is None or g.parent in opened) and g.children + tuple(
                          n for n in g.nodes if self.tree.owner.get(n) == p)]
            if not closed:
                break
            biggest = max(closed, key=lambda p: len(self.tree.groups[p].nodes))
            tries += 1
            _, layout = self.show(opened | {biggest})
            if not self.fits(layout, width, height, zoom):
                break
            opened.add(biggest)
        self.expanded = keep
        return frozenset(opened)

"""What an inspection returns (vpu_core.session): the frozen results the GUI, CLI, report and
bench read, and the display graph (graph model + layout) drawn for a view of an analysis."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from vpu_core.config import RunConfig, ViewOptions

if TYPE_CHECKING:  # the analysis imports torch; this module's callers may not have it yet
    from vpu_core.analysis.results import Analysis
    from vpu_core.compare import Comparison
    from vpu_core.graph.model import GraphModel
    from vpu_core.layout import Layout
    from vpu_core.layout.grouped import GroupedGraph
    from vpu_core.targets.results import TargetResult


@dataclass(frozen=True)
class DisplayGraph:
    """What a canvas draws: the graph model and its layout; `grouped` expands and collapses
    module groups (None when the graph has no module hierarchy)."""

    model: GraphModel
    layout: Layout
    grouped: GroupedGraph | None = None


@dataclass(frozen=True)
class Inspection:
    """The result of one inspection: plain values only (no torch objects)."""

    config: RunConfig
    analysis: Analysis
    graph: DisplayGraph | None      # drawn for `view`; None when no view was asked for
    view: ViewOptions | None
    seconds: float
    stages_run: tuple[str, ...] = ()    # the stages computed for it, in order (none: all cached)
    targets: dict[str, TargetResult] = field(default_factory=dict)   # target name -> its judgement,
                                        # for the targets asked for (vpu_core.targets)

    @property
    def has_delegation(self) -> bool:
        return self.analysis.delegation is not None


@dataclass(frozen=True)
class InspectionPair:
    """Compare mode: two configurations of one model and the core's comparison of them."""

    a: Inspection
    b: Inspection
    comparison: Comparison
    seconds: float


def display_graph(analysis: Analysis, view: ViewOptions = ViewOptions()) -> DisplayGraph:
    """Build and lay out the display graph of an analysis (pure Python, milliseconds)."""
    from vpu_core.graph.build import build_graph_model
    from vpu_core.layout.grouped import grouped_graph
    from vpu_core.layout import layout_graph
    from vpu_core.layout.types import node_sizer

    model = build_graph_model(analysis, fold_params=view.fold_params,
                              partition_source=view.partition_source, hide_qdq=view.hide_qdq)
    size = node_sizer(view.label_scale)
    grouped = grouped_graph(analysis, model, size)
    if grouped is not None and view.collapse_depth is not None:
        shown, layout = grouped.collapse_to(view.collapse_depth)
        return DisplayGraph(shown, layout, grouped)
    return DisplayGraph(model, layout_graph(model, size), grouped)

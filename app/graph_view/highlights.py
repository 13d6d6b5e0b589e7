"""What a canvas marks on top of the partition colours: the metric overlay and the shared-scale
outline.

    view.highlights.set_metric("sqnr")      # ops coloured by SQNR, the gradient in the legend
    view.highlights.metric                  # "sqnr" (None: coloured by the partition)
    view.highlights.shared_for("add")       # outline every tensor forced to share add's scale

The numbers come from the core (vpu_core.graph.metrics, the scale groups of the analysis the
graph carries); this only picks them for the nodes drawn and hands colours to the scene. The
metric stays on for every graph the view draws next (`reapply`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Protocol

from vpu_core.graph.build import display_id
from vpu_core.graph.groups import scale_group_of
from vpu_core.formatting import metric_legend_texts
from vpu_core.graph.metrics import METRICS, metric_range

from .legend import MetricLegend

if TYPE_CHECKING:
    from vpu_core.graph.model import GraphModel

    from .scene import GraphScene


class HighlightCanvas(Protocol):
    """All Highlights asks of its view (GraphView)."""

    def graph_scene(self) -> GraphScene | None:
        """The scene drawn now."""

    def full_model(self) -> GraphModel | None:
        """The whole graph behind the canvas, every module group open (the metrics and scale
        groups are of its nodes)."""

    def show_metric_legend(self, legend: MetricLegend | None) -> None:
        """Show the metric's gradient under the canvas legend (None: no gradient)."""


class Highlights:
    """The metric overlay and the shared-scale outline of one canvas."""

    def __init__(self, view: HighlightCanvas) -> None:
        self.view = view
        self.metric: str | None = None

    def set_metric(self, key: str | None) -> None:
        """Colour ops by a metric of the core ("sqnr", "pow2_loss", "shift", "boundary_bytes");
        None (or an unknown key): by the partition."""
        self.metric = key if key in METRICS else None
        s, full = self.view.graph_scene(), self.view.full_model()
        if s is None or full is None:        # nothing drawn
            return
        legend = None
        if self.metric is not None:
            info = METRICS[self.metric]
            values = full.metrics.get(self.metric, {})
            span = metric_range(self.metric, values.values())
            neutral = info.better is None
            s.set_metric(self.metric, span.scale, neutral, info.unit)
            low, high, note = metric_legend_texts(span, info.unit, neutral)
            drawn = s.model.metrics.get(self.metric, {})
            no_value = any(n.category in ("vpu", "cpu") and n.id not in drawn for n in s.model.nodes)
            legend = MetricLegend(f"{info.title}" + (f" ({len(values)} ops)" if values else " (no values)"),
                                  low, high, neutral, note, no_value)
        else:
            s.set_metric(None)
        self.view.show_metric_legend(legend)

    def reapply(self) -> None:
        """Colour the graph the view draws now by the metric that is on (if any)."""
        if self.metric:
            self.set_metric(self.metric)

    def set_shared(self, node_ids: Iterable[str]) -> list[str]:
        """Outline these graph nodes (fx names; folded or hidden ones on what shows them);
        returns the ids outlined."""
        s = self.view.graph_scene()
        if s is None:
            return []
        shown = list(dict.fromkeys(display_id(s.model, n) for n in node_ids))
        s.set_shared(shown)
        return s.shared

    def shared_for(self, node_id: str | None) -> list[str]:
        """Outline every tensor forced to share a scale with `node_id` (its shared-scale group,
        from the analysis data the graph carries); [] when it is in none."""
        s, source = self.view.graph_scene(), self.view.full_model()
        if s is None or source is None:      # nothing drawn
            return []
        group = scale_group_of(source.meta.get("scale_groups", ()), node_id, s.model) if node_id else None
        return self.set_shared(group.nodes() if group is not None else ())

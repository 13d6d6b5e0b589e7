"""What an inspection returns (vpu_core.session): the frozen results the GUI, CLI, report and
bench read, and the display graph (graph model + layout) drawn for a view of an analysis.

An Inspection holds the Analysis (what `analyze()` computes, vpu_core.analysis) and, beside it,
what later layers computed for that analysis when asked (`Attached`): the real XNNPACK
delegation (the XNNPACK target's verdict, vpu_core.targets.xnnpack), the integer simulation
(vpu_core.intsim), the op-list what-if and partition economics (vpu_core.whatif), the run on this
CPU and its timing model (the XNNPACK target, vpu_core.timing). Each is cached by its own store
under the analysis key; the session attaches them in one place (Session.attach)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from vpu_core.config import SIMULATED, RunConfig, ViewOptions
from vpu_core.stages import TimingKey

if TYPE_CHECKING:  # the analysis imports torch; this module's callers may not have it yet
    from collections.abc import Mapping

    from vpu_core.analysis.results import Analysis, PartitionReport
    from vpu_core.compare import Comparison
    from vpu_core.intsim.results import IntSimReport
    from vpu_core.graph.model import GraphModel
    from vpu_core.layout import Layout
    from vpu_core.layout.grouped import GroupedGraph
    from vpu_core.targets.results import RuntimeReport, TargetResult
    from vpu_core.timing.results import SplitTiming
    from vpu_core.whatif.results import Economics, OpCandidate, PartitionWhatIf


@dataclass(frozen=True)
class DisplayGraph:
    """What a canvas draws: the graph model and its layout; `grouped` expands and collapses
    module groups (None when the graph has no module hierarchy)."""

    model: GraphModel
    layout: Layout
    grouped: GroupedGraph | None = None


@dataclass(frozen=True)
class Attached:
    """What later layers computed for one analysis, each when asked for (None: not asked)."""

    delegation: PartitionReport | None = None    # the real XNNPACK delegation (--target xnnpack)
    int_sim: IntSimReport | None = None      # its VPU partitions run in integers (--int-sim)
    whatif: PartitionWhatIf | None = None    # op-list candidates and partition economics
    runtime: RuntimeReport | None = None     # the lowered program run on this CPU (--run)
    timing: SplitTiming | None = None        # the timing model of the partition, with --run
    timings_s: dict[TimingKey, float] = field(default_factory=dict)   # the attached stages' times

    @property
    def op_candidates(self) -> tuple[OpCandidate, ...]:
        """The op-list candidates, ranked (none when the what-if was not asked for)."""
        return self.whatif.op_candidates if self.whatif is not None else ()

    @property
    def economics(self) -> Economics | None:
        """The partition economics of the analysis' partition (None: not asked for)."""
        return self.whatif.economics if self.whatif is not None else None


NOTHING_ATTACHED = Attached()


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
    attached: Attached = NOTHING_ATTACHED   # what later layers computed for `analysis`
    cache_load_s: float | None = None       # seconds this session took to read `analysis` from
                                            # the disk cache (None: computed here)

    @property
    def timings_s(self) -> dict[TimingKey, float]:
        """Seconds per stage: the analysis' own (its pipeline and analyze), reading it from the
        disk cache ("cache_load") and those of what is attached to it (the XNNPACK delegation,
        the what-if)."""
        read: dict[TimingKey, float] = {} if self.cache_load_s is None else {"cache_load": self.cache_load_s}
        return {**self.analysis.timings_s, **read, **self.attached.timings_s}

    @property
    def has_delegation(self) -> bool:
        return self.attached.delegation is not None

    def can_colour_by(self, source: str) -> bool:
        """Its graph can be drawn coloured by `source` (the VPU's "simulated" or a target's name)
        without judging anything: the verdict is here."""
        return (source == SIMULATED or source in self.targets
                or (source == "xnnpack" and self.has_delegation))


@dataclass(frozen=True)
class InspectionPair:
    """Compare mode: two configurations of one model and the core's comparison of them."""

    a: Inspection
    b: Inspection
    comparison: Comparison
    seconds: float


def display_graph(analysis: Analysis, view: ViewOptions = ViewOptions(),
                  attached: Attached = NOTHING_ATTACHED,
                  targets: Mapping[str, TargetResult] | None = None) -> DisplayGraph:
    """Build and lay out the display graph of an analysis (pure Python, milliseconds); of what is
    attached, the real XNNPACK delegation colours it (view.partition_source "xnnpack") and a run
    on this CPU adds the "measured µs" metric; `targets` holds the verdict (and estimate) of any
    other target the view colours by (ValueError when it is not there)."""
    from vpu_core.graph.build import build_graph_model
    from vpu_core.layout.grouped import grouped_graph
    from vpu_core.layout import layout_graph
    from vpu_core.layout.types import node_sizer

    model = build_graph_model(analysis, fold_params=view.fold_params,
                              partition_source=view.partition_source, hide_qdq=view.hide_qdq,
                              measured_us=measured_us(attached.runtime), delegation=attached.delegation,
                              targets=targets)
    size = node_sizer(view.label_scale)
    grouped = grouped_graph(analysis, model, size)
    if grouped is not None and view.collapse_depth is not None:
        shown, layout = grouped.collapse_to(view.collapse_depth)
        return DisplayGraph(shown, layout, grouped)
    return DisplayGraph(model, layout_graph(model, size), grouped)


def measured_us(runtime: RuntimeReport | None) -> dict[str, float]:
    """Each node's measured µs in a run on this CPU (none without a run, or when it was refused)."""
    return runtime.op_us() if runtime is not None and not runtime.refused else {}

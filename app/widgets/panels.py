"""The dock contents: node panel, report tables and plots, updated together from one Analysis."""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QSplitter, QTabWidget

from app.widgets.compare_table import CompareTable
from app.widgets.node_panel import NodePanel
from app.widgets.deferred import Deferred
from app.widgets.tables import PartitionTable, RequantTable, ViolationsTable
from app.widgets.words import side_words
from vpu_core.config import SIMULATED
from vpu_core.graph.build import cpu_ops
from vpu_core.graph.placement import partition_report
from app.widgets.int_sim_panel import IntSimPanel
from vpu_core.inspection import NOTHING_ATTACHED

if TYPE_CHECKING:
    from collections.abc import Mapping
    from types import ModuleType

    from vpu_core.targets.results import TargetResult
    from vpu_core.whatif.try_on_vpu import VpuFix
    from vpu_core.analysis.results import Analysis
    from vpu_core.inspection import Attached
    from vpu_core.compare import Comparison
    from vpu_core.graph.model import GraphModel
    from app.widgets.plots import ChannelPlot, Pow2Comparison, ScaleHistogram, ShiftHistogram


def _plots() -> ModuleType:
    """app.widgets.plots, and pyqtgraph with it: imported when the first plot tab is shown."""
    from app.widgets import plots
    return plots


class Panels(QObject):
    """Owns the widgets of the three docks; `node_activated` = a table row or node link clicked."""

    node_activated = Signal(str)
    try_on_vpu = Signal(str)           # the node panel's "Try it on the VPU" for this node

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.node_panel = NodePanel()
        self.node_panel.node_link_clicked.connect(self.node_activated)
        self.node_panel.try_clicked.connect(self.try_on_vpu)
        # the node dock: the node's facts above, its integer simulation below
        self.int_sim_panel = IntSimPanel()
        self.node_area = QSplitter(Qt.Orientation.Vertical)
        self.node_area.addWidget(self.node_panel)
        self.node_area.addWidget(self.int_sim_panel)
        self.node_area.setStretchFactor(0, 3)
        self.node_area.setStretchFactor(1, 2)
        for index in (0, 1):
            self.node_area.setCollapsible(index, False)
        self.violations, self.partition, self.requant = ViolationsTable(), PartitionTable(), RequantTable()
        self.tables = QTabWidget()
        for table, title in ((self.violations, "Violations"), (self.partition, "Partition"),
                             (self.requant, "Requant shifts")):
            self.tables.addTab(table, title)
            table.node_activated.connect(self.node_activated)
        self.compare = CompareTable()                       # compare mode only
        self.compare_index = self.tables.addTab(self.compare, "Compare")
        self.tables.setTabVisible(self.compare_index, False)
        # pyqtgraph's plots, built when their tab is first shown (app.widgets.deferred says why)
        self.scale_hist: Deferred[ScaleHistogram] = Deferred(lambda: _plots().ScaleHistogram())
        self.shift_hist: Deferred[ShiftHistogram] = Deferred(lambda: _plots().ShiftHistogram())
        self.channel_plot: Deferred[ChannelPlot] = Deferred(lambda: _plots().ChannelPlot())
        self.pow2_plot: Deferred[Pow2Comparison] = Deferred(lambda: _plots().Pow2Comparison())
        self.plots = QTabWidget()
        for widget, title in ((self.scale_hist, "Scales"), (self.shift_hist, "Shifts"),
                              (self.channel_plot, "Node"), (self.pow2_plot, "Float vs 2^k")):
            self.plots.addTab(widget, title)
        for index, tip in enumerate(("log2 of every scale: activations and weight channels",
                                     "Requantization right shifts n (M = 2^-n) over the model",
                                     "Per-channel weight scales and shifts of the selected node",
                                     "Observer's float scale vs the power-of-two scale used")):
            self.plots.setTabToolTip(index, tip)

    def set_analysis(self, analysis: Analysis, source: str = "simulated",
                     attached: Attached = NOTHING_ATTACHED,
                     targets: Mapping[str, TargetResult] | None = None) -> None:
        """Fill the tables and plots; `source` is the partition the graph is coloured by;
        `attached`: what was computed beside the analysis (its integer simulation); `targets` the
        verdicts judged (Inspection.targets)."""
        for table in (self.violations, self.requant):
            table.set_analysis(analysis)
        for plot in (self.scale_hist, self.shift_hist, self.pow2_plot):
            plot.apply(lambda widget: widget.set_analysis(analysis))
        self.partition.set_analysis(analysis, source, attached.delegation, targets)
        self.int_sim_panel.set_report(attached.int_sim, pending=analysis.predicted)
        self.int_sim_panel.setVisible(source == SIMULATED)     # what the VPU computes: its target only
        count = len(analysis.violations)
        self.tables.setTabText(0, f"Violations ({count})" if count else "Violations")
        self.tables.setTabVisible(0, source == SIMULATED)       # the VPU's rules: when it is the target
        part = partition_report(analysis, source, attached.delegation, targets)
        self.tables.setTabText(1, f"Partition ({len(cpu_ops(part))} {side_words(source).cpu})")

    def set_comparison(self, comparison: Comparison | None, names: dict | None) -> None:
        """Show (comparison) or hide (None) the Compare tab."""
        if comparison is not None:
            self.compare.set_comparison(comparison, names)
            unmatched = len(comparison.only_a) + len(comparison.only_b)
            rows = len(comparison.pairs) + unmatched        # what the tab lists (an unmatched op differs)
            self.tables.setTabText(self.compare_index,
                                   f"Compare ({len(comparison.differing) + unmatched} of {rows} differ)")
        self.tables.setTabVisible(self.compare_index, comparison is not None)

    def show_summary(self, analysis: Analysis, model: GraphModel, source: str = "simulated",
                     attached: Attached = NOTHING_ATTACHED,
                     targets: Mapping[str, TargetResult] | None = None) -> None:
        self.node_panel.show_summary(analysis, model, source, attached, targets)
        self.channel_plot.apply(lambda plot: plot.set_node(analysis, model, None))
        self._int_sim_of(attached)
        self.int_sim_panel.show_summary()

    def show_node(self, analysis: Analysis, model: GraphModel, node: str, prefix: str = "",
                  source: str = "simulated", fix: VpuFix | None = None,
                  attached: Attached = NOTHING_ATTACHED,
                  targets: Mapping[str, TargetResult] | None = None) -> None:
        """`fix`: the profile edit that would move this CPU node to the VPU (its link);
        `attached`: what was computed beside the analysis the node belongs to; `targets` the
        verdicts judged."""
        self.node_panel.show_node(analysis, model, node, prefix, source, fix, attached, targets)
        self.channel_plot.apply(lambda plot: plot.set_node(analysis, model, node))
        self._int_sim_of(attached)
        self.int_sim_panel.show_node(node)

    def _int_sim_of(self, attached: Attached) -> None:
        """Compare mode shows nodes of either side: follow the side the node belongs to."""
        report = attached.int_sim
        if self.int_sim_panel.report is not report:
            self.int_sim_panel.set_report(report)

    def show_running(self, model: str, quantizer: str) -> None:
        self.node_panel.show_running(model, quantizer)

    def clear(self, text: str) -> None:
        """No result (yet): empty tables and plots, `text` in the node panel."""
        for tree in (self.violations.tree, self.partition.tree, self.requant.tree):
            tree.clear()
        self.node_panel.show_waiting(text)

"""The node panel: everything the analysis knows about the selected node, or a model summary.

The HTML comes from app.widgets.node_html (plain functions, testable without a window); node
names in it are links that select that node.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl, Signal
from PySide6.QtWidgets import QTextBrowser

from app.widgets.node_html import breakable_html, node_html, running_html, summary_html, waiting_html
from vpu_core.inspection import NOTHING_ATTACHED

if TYPE_CHECKING:
    from collections.abc import Mapping

    from vpu_core.targets.results import TargetResult
    from vpu_core.whatif.try_on_vpu import VpuFix
    from vpu_core.analysis.results import Analysis
    from vpu_core.inspection import Attached
    from vpu_core.graph.model import GraphModel

MIN_WIDTH = 300          # narrower, the tables of the panel wrap one word per line


class NodePanel(QTextBrowser):
    """Read-only rich text; `node_link_clicked` fires for links to other nodes."""

    node_link_clicked = Signal(str)
    try_clicked = Signal(str)          # "Try it on the VPU" of a CPU node
    def __init__(self) -> None:
        super().__init__()
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.setMinimumWidth(MIN_WIDTH)
        self.anchorClicked.connect(self._on_anchor)
        self.document().setDocumentMargin(14)
        self.current_node: str | None = None
        self.show_waiting("Starting…")

    def show_waiting(self, text: str) -> None:
        self.current_node = None
        self.setHtml(waiting_html(text))

    def show_summary(self, analysis: Analysis, model: GraphModel | None = None, source: str = "simulated",
                     attached: Attached = NOTHING_ATTACHED,
                     targets: Mapping[str, TargetResult] | None = None) -> None:
        self.current_node = None
        self.setHtml(breakable_html(summary_html(analysis, model, source, attached, targets)))

    def show_running(self, model: str, quantizer: str) -> None:
        if self.current_node is None:
            self.setHtml(running_html(model, quantizer))

    def show_node(self, analysis: Analysis, model: GraphModel, node_id: str, prefix: str = "",
                  source: str = "simulated", fix: VpuFix | None = None,
                  attached: Attached = NOTHING_ATTACHED,
                  targets: Mapping[str, TargetResult] | None = None) -> None:
        """`prefix`: HTML shown above the node (compare mode: how it matches the other side);
        `fix`: the profile edit that moves this CPU node to the VPU ("Try it on the VPU");
        `attached`: what was computed beside the analysis (a run on this CPU)."""
        self.current_node = node_id
        self.setHtml(breakable_html(prefix + node_html(analysis, model, node_id, source, fix, attached, targets)))

    def _on_anchor(self, url: QUrl) -> None:
        text = url.toString()
        if text.startswith("node:"):
            self.node_link_clicked.emit(text[len("node:"):])
        elif text.startswith("try:"):
            self.try_clicked.emit(text[len("try:"):])

"""The status bar's summary line: the shown result in numbers, or what went wrong.

A QLabel that never widens the window (its text is cut at the edge, the full line is the
tooltip). Its numbers come from the same PartitionReport as the node panel's summary
(vpu_core.graph.placement.partition_report), so the two always agree.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import html
import re

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy

from app import theme
from vpu_core.formatting import human_bytes
from vpu_core.graph.placement import partition_report
from vpu_core.reports.summary_text import mac_share_text, no_weighted_op_short

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis, Summary
    from vpu_core.graph.model import GraphModel
    from vpu_core.session import InspectionPair

SEP = "&nbsp;&nbsp;·&nbsp;&nbsp;"


def violations_chip(n: int, summary: Summary | None = None) -> str:
    """"0 violations"; when no conv / linear runs on the VPU, with the sentence that says so."""
    chip = f'<b style="color:{theme.DANGER if n else theme.OK}">{n} violation{"s" if n != 1 else ""}</b>'
    warning = no_weighted_op_short(summary)
    return chip + (f' <span style="color:{theme.WARN}">— {html.escape(warning)}</span>' if warning else "")


def mac_share_chip(summary: Summary | None) -> str:
    """The lead number: "VPU 94.1 % of 2.5 MMAC" (the model's multiply-accumulates on the VPU)."""
    if summary is None:
        return ""
    color = theme.CATEGORY_COLORS["vpu"] if summary.vpu_mac_share >= 0.5 else theme.WARN
    return f'<b style="color:{color}">VPU {html.escape(mac_share_text(summary))}</b>'


def single_html(analysis: Analysis, model: GraphModel, source: str = "simulated", profile: str = "") -> str:
    part = partition_report(analysis, source)
    xnn = part.source == "xnnpack"
    subs = len(part.subgraphs)
    unit = "XNNPACK delegate" if xnn else "VPU subgraph"
    sqnr = f"{analysis.sqnr_db:.1f} dB" if analysis.sqnr_db is not None else "—"
    head = f"<b>{html.escape(analysis.model)}</b> · {analysis.quantizer.upper()}"
    summary = analysis.summary if not xnn else None     # the MAC share of the simulated VPU
    # most telling first: a narrow window cuts the line at its end (the tooltip has all of it)
    chips = [head + (f" · {html.escape(profile)}" if profile else ""),          # the profile in use
             *([mac_share_chip(summary)] if summary is not None else []),
             violations_chip(len(analysis.violations), analysis.summary),
             f'<span style="color:{theme.CATEGORY_COLORS["vpu"]}">■</span> {subs} {unit}' + ("s" if subs != 1 else ""),
             f'<span style="color:{theme.CATEGORY_COLORS["cpu"]}">■</span> {len(part.cpu_nodes)} '
             + ("not delegated" if xnn else "CPU fallback ops"),
             f"SQNR {sqnr}", f"{len(part.boundaries)} boundaries ({human_bytes(part.transfer_bytes)})",
             f"{len(analysis.nodes)} nodes ({len(model.nodes)} shown)"]
    return SEP.join(chips)


def compare_html(pair: InspectionPair) -> str:
    cmp, a, b = pair.comparison, pair.a.analysis, pair.b.analysis
    chips = [f"<b>{html.escape(a.model)}</b> · compare",
             f"<b>A {html.escape(cmp.a_label)}</b> {violations_chip(len(a.violations))}",
             f"<b>B {html.escape(cmp.b_label)}</b> {violations_chip(len(b.violations))}",
             f"{len(cmp.pairs)} matched ops, {len(cmp.differing)} differ",
             f"{len(cmp.partition_changes)} placed differently",
             f"{len(cmp.only_a) + len(cmp.only_b)} unmatched"]
    return SEP.join(chips)


def failure_html(message: str, showing: str = "") -> str:
    suffix = f"&nbsp;&nbsp;— showing {html.escape(showing)}" if showing else ""
    return f'<span style="color:{theme.DANGER}">Run failed: {html.escape(message)}</span>{suffix}'


class StatusSummary(QLabel):
    def __init__(self) -> None:
        super().__init__("Starting…")
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def setText(self, text: str) -> None:     # noqa: N802  (Qt's name)
        super().setText(text)
        plain = html.unescape(re.sub(r"<[^>]+>", "", text.replace("&nbsp;", " ")))
        self.setToolTip(plain)

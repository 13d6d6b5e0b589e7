"""The status bar's summary line: the shown result in numbers, or what went wrong.

A QLabel that never widens the window. The line is a row of chips, each with a priority
(`ChipLine`): when the bar is too narrow, whole chips are left out, least important first (the
node count before the SQNR, the SQNR before the model's name), never cut mid-number ("SQNR 29.(");
only a single chip that alone is too wide is elided with "…", and a failure's message (a long
path, say) is elided in its middle, down to half the bar, rather than leave out what is still on
screen ("showing the previous result (resnet8)"). The full line is the tooltip. Its
numbers come from the same PartitionReport as the node panel's summary
(vpu_core.graph.placement.partition_report), so the two always agree.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import html
import re

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel, QSizePolicy

from app import theme
from app.widgets.words import side_words
from vpu_core.formatting import count_text, db_on_samples, human_bytes, quantizer_label, time_text
from vpu_core.graph.build import cpu_ops
from vpu_core.graph.placement import partition_report
from vpu_core.inspection import NOTHING_ATTACHED
from vpu_core.reports.summary_text import (mac_share_caveat, mac_share_standing, mac_share_text,
                                           no_weighted_op_short)

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from PySide6.QtGui import QResizeEvent
    from vpu_core.analysis.results import Analysis, PartitionReport, PredictionChange, Summary
    from vpu_core.graph.model import GraphModel
    from vpu_core.inspection import Attached
    from vpu_core.session import InspectionPair
    from vpu_core.targets.results import TargetResult

SEP = "&nbsp;&nbsp;·&nbsp;&nbsp;"


class ChipLine(str):
    """The status line as HTML (what QLabel.setText takes), knowing its chips: (priority, html)
    in display order, priority 0 kept longest. `squeeze`: the chip (one span of text) elided in
    its middle rather than leave out the chips after it."""

    chips: tuple[tuple[int, str], ...]
    squeeze: int | None

    def __new__(cls, chips: Iterable[tuple[int, str]], squeeze: int | None = None) -> "ChipLine":
        chips = tuple(chips)
        line = super().__new__(cls, SEP.join(text for _, text in chips))
        line.chips, line.squeeze = chips, squeeze
        return line


def violations_chip(n: int, summary: Summary | None = None) -> str:
    """"0 violations" (the VPU's rules: shown when the VPU is the target); when no conv / linear
    runs on the VPU, with the sentence that says so."""
    chip = f'<b style="color:{theme.DANGER if n else theme.OK}">{n} violation{"s" if n != 1 else ""}</b>'
    warning = no_weighted_op_short(summary)
    return chip + (f' <span style="color:{theme.WARN}">— {html.escape(warning)}</span>' if warning else "")


STANDING_COLORS = {"runs": theme.CATEGORY_COLORS["vpu"], "low": theme.WARN, "blocked": theme.DANGER}


def mac_share_chip(summary: Summary | None, violations: int = 0) -> str:
    """The lead number: "VPU 94.1 % of 2.5 MMAC" (the model's multiply-accumulates on the VPU),
    coloured by what it means (vpu_core.reports.summary_text.mac_share_standing): with rules
    broken it is red and says it holds only once they are fixed."""
    if summary is None:
        return ""
    color = STANDING_COLORS[mac_share_standing(summary, violations)]
    caveat = mac_share_caveat(summary, violations)
    return (f'<b style="color:{color}">VPU {html.escape(mac_share_text(summary))}</b>'
            + (f' <span style="color:{color}">{html.escape(caveat)}</span>' if caveat else ""))


def single_html(analysis: Analysis, model: GraphModel, source: str = "simulated", profile: str = "",
                attached: Attached = NOTHING_ATTACHED,
                targets: Mapping[str, TargetResult] | None = None) -> ChipLine:
    """The status line of one result, spoken for its primary target `source` (the one the graph
    is coloured by): the target and its partitions lead, then its estimate (an Ethos-U's NPU
    time), its CPU ops; the VPU's MAC share, rule violations and hardware profile only when the
    VPU is that target. `attached`: what was computed beside it (a run on this CPU); `targets`:
    the targets judged."""
    part = partition_report(analysis, source, attached.delegation, targets)
    words = side_words(source)
    vpu = source == "simulated"
    subs = len(part.subgraphs)
    ops = cpu_ops(part)
    removed = len(part.cpu_nodes) - len(ops)
    sqnr = db_on_samples(analysis.sqnr_db, analysis.accuracy_samples) if analysis.sqnr_db is not None else "—"
    head = f"<b>{html.escape(analysis.model)}</b> · {html.escape(quantizer_label(analysis))}"
    runtime = attached.runtime
    latency = runtime.latency if runtime is not None else None   # None when the run was refused
    run_chip = [] if runtime is None else [     # Run ▸ Run on this CPU
        (1, f'<span style="color:{theme.DANGER}">CPU run refused: {html.escape(runtime.refused or "no latency was measured")}</span>'
         if runtime.refused or latency is None
         else f"<b>CPU {time_text(latency.median_ms * 1e3)}</b> median (XNNPACK)")]
    summary = analysis.summary if vpu else None     # the MAC share of the VPU's partition, its caveats
    judged = (targets or {}).get(source)
    estimate = estimate_chip(judged.estimate) if judged is not None else ""
    green = theme.CATEGORY_COLORS["vpu"]
    target = (f'<span style="color:{green}">■</span> <b>{html.escape(words.label)}</b> '
              + count_text(subs, "partition"))
    return ChipLine([
        (0, head + (f" · {html.escape(profile)}" if profile and vpu else "")),   # the VPU's profile
        (0, target),
        *([(0, mac_share_chip(summary, len(analysis.violations)))] if summary is not None
          else [(0, share)] if (share := target_share_chip(analysis, part, words.on)) else []),
        *([(0, estimate)] if estimate else []),
        *([(2, violations_chip(len(analysis.violations), analysis.summary))] if vpu else []),
        (1, f'<span style="color:{theme.CATEGORY_COLORS["cpu"]}">■</span> {len(ops)} {words.cpu_ops}'),
        *([(4, f'<span style="color:{theme.MUTED}">{removed} removed while lowering</span>')] if removed else []),
        (3, f"SQNR {sqnr}"),
        (5, f"{len(part.boundaries)} boundaries ({human_bytes(part.transfer_bytes)})"),
        (6, f"{len(analysis.nodes)} nodes ({len(model.nodes)} shown)"), *run_chip])


def target_share_chip(analysis: Analysis, part: PartitionReport, accelerator: str) -> str:
    """Another target's share of the model's MACs, as the headline counts it (ops it placed in a
    partition, Summary.node_macs): "NPU 100 % of 12.5 MMAC"; "" when the analysis has no MACs
    per op (a result cached before they were kept)."""
    from vpu_core.reports.summary_text import share_text
    from vpu_core.reports.whatif_text import human_macs

    node_macs = analysis.summary.node_macs if analysis.summary is not None else {}
    total = sum(node_macs.values())
    if not total:
        return ""
    on = sum(m for n, m in node_macs.items() if isinstance(part.assignment.get(n), int))
    color = theme.CATEGORY_COLORS["vpu"] if on * 2 >= total else theme.WARN
    return f'<b style="color:{color}">{html.escape(accelerator)} {share_text(on / total)} of {human_macs(total)}</b>'


def estimate_chip(estimate: object) -> str:
    """A target's time estimate: "NPU 0.053 ms, Vela 5.1.0 estimate" (Vela's, labelled as the
    compiler's); "" for a target without one in time."""
    ms, version = getattr(estimate, "inference_ms", None), getattr(estimate, "vela_version", None)
    if ms is None or version is None:
        return ""
    return (f'<b style="color:{theme.CATEGORY_COLORS["vpu"]}">NPU {ms:.3f} ms</b>'
            f'<span style="color:{theme.MUTED}">, Vela {html.escape(str(version))} estimate</span>')


def compare_html(pair: InspectionPair) -> ChipLine:
    cmp, a, b = pair.comparison, pair.a.analysis, pair.b.analysis
    return ChipLine([
        (0, f"<b>{html.escape(a.model)}</b> · compare"),
        (1, f"<b>A {html.escape(cmp.a_label)}</b> {violations_chip(len(a.violations))}"),
        (1, f"<b>B {html.escape(cmp.b_label)}</b> {violations_chip(len(b.violations))}"),
        (3, f"{len(cmp.pairs)} matched ops, {len(cmp.differing)} differ"),
        (2, f"{len(cmp.partition_changes)} placed differently"),
        (4, f"{len(cmp.only_a) + len(cmp.only_b)} unmatched")])


def failure_html(message: str, showing: str = "") -> ChipLine:
    chips = [(0, f'<span style="color:{theme.DANGER}">Run failed: {html.escape(message)}</span>')]
    if showing:
        chips.append((1, f"showing {html.escape(showing)}"))
    return ChipLine(chips, squeeze=0 if showing else None)


def _plain(text: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", text.replace("&nbsp;", " ")))


class StatusSummary(QLabel):
    """The summary line: shows the chips of the line it is given that fit, by priority."""

    PAD = 14                                  # the label's own padding (theme: 0 6px) and a margin

    def __init__(self) -> None:
        super().__init__()
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.line: ChipLine = ChipLine([(0, "Starting…")])
        self._widths: dict[str, float] = {}
        self.setText("Starting…")

    def setText(self, text: str) -> None:     # noqa: N802  (Qt's name)
        self.line = text if isinstance(text, ChipLine) else ChipLine([(0, text)])
        self.setToolTip(_plain(self.line))
        self._fit()

    def shown_chips(self) -> list[str]:
        """The chips on screen now (their HTML), in display order (for tests)."""
        return self._shown

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        room = self.width() - self.PAD
        chips, squeeze = self.line.chips, self.line.squeeze
        order = sorted(range(len(chips)), key=lambda k: (chips[k][0], k))
        keep, used = self._pick(order, room, set(), 0.0)
        texts = {i: chips[i][1] for i in keep}
        if squeeze is not None and len(keep) < len(chips):
            # the squeezed chip keeps at least half the bar and gives the rest to the chips it pushed out
            wider, others = self._pick([i for i in order if i != squeeze], room, {squeeze}, room / 2)
            if len(wider) > len(keep):
                keep, used = wider, room
                texts = {i: chips[i][1] for i in keep}
                texts[squeeze] = self._elided_middle(chips[squeeze][1], room - (others - room / 2))
        self._shown = [texts[i] for i in sorted(keep)]
        text = SEP.join(self._shown)
        if len(keep) == 1 and used > room:       # one chip, too wide alone: elide its words
            plain = _plain(text)
            text = html.escape(self.fontMetrics().elidedText(plain, Qt.TextElideMode.ElideRight,
                                                             max(room, 20)))
        super().setText(text)

    def _pick(self, order: list[int], room: float, keep: set[int], used: float) -> tuple[set[int], float]:
        """Add chips in `order` while they fit in `room` (the first one always)."""
        keep, sep = set(keep), self._width(SEP)
        for i in order:
            need = self._width(self.line.chips[i][1]) + (sep if keep else 0.0)
            if keep and used + need > room:
                continue                         # a less important chip may still fit
            keep.add(i)
            used += need
        return keep, used

    def _elided_middle(self, chip: str, width: float) -> str:
        """`chip` (one span of text) cut in its middle to `width` px, its span kept."""
        m = re.fullmatch(r"(<span[^>]*>)?([^<]*)(</span>)?", chip)
        head, inner, tail = (m.group(1) or "", m.group(2), m.group(3) or "") if m else ("", _plain(chip), "")
        cut = self.fontMetrics().elidedText(html.unescape(inner), Qt.TextElideMode.ElideMiddle, int(max(width, 20)))
        return head + html.escape(cut) + tail

    def _width(self, text: str) -> float:
        if text not in self._widths:
            doc = QTextDocument()
            doc.setDefaultFont(self.font())
            doc.setDocumentMargin(0)
            doc.setHtml(text)
            self._widths[text] = doc.idealWidth()
        return self._widths[text]

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._widths.clear()
            self._fit()


def predicted_html(analysis: Analysis, model: GraphModel, quantizing: bool) -> ChipLine:
    """The summary of a predicted partition (the float graph, before PT2E): no verdict, no SQNR."""
    part = analysis.partition
    subs = len(part.subgraphs)
    state = "predicted — quantizing…" if quantizing else "predicted — not quantized (Run for the rules)"
    return ChipLine([
        (0, f'<b style="color:{theme.WARN}">{state}</b>'),
        (0, f"<b>{html.escape(analysis.model)}</b> · {analysis.quantizer.upper()}"),
        (5, f"{len(analysis.nodes)} nodes ({len(model.nodes)} shown)"),
        (3, f'<span style="color:{theme.CATEGORY_COLORS["vpu"]}">■</span> ' + count_text(subs, "VPU partition")),
        (1, f'<span style="color:{theme.CATEGORY_COLORS["cpu"]}">■</span> {len(part.cpu_nodes)} CPU ops'),
        (4, f"{len(part.boundaries)} boundaries ({human_bytes(part.transfer_bytes)})")])


def with_prediction_changes(line: ChipLine, changes: tuple[PredictionChange, ...], analysis: Analysis) -> ChipLine:
    """`line` plus a chip naming the ops the quantized analysis placed otherwise than its prediction."""
    from vpu_core.formatting import node_label

    first = changes[0]
    info = analysis.nodes.get(first.node)
    where = node_label(info) if info is not None else first.node
    more = f" and {len(changes) - 1} more" if len(changes) > 1 else ""
    moved = f"{first.predicted.upper()} → {first.final.upper() or 'gone'}"
    chip = (f'<span style="color:{theme.WARN}">{count_text(len(changes), "op")} '
            f'placed otherwise than predicted: {html.escape(where)} ({moved}: {html.escape(first.reason)})'
            f'{more}</span>')
    return ChipLine([*line.chips, (1, chip)])

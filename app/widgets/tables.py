"""Dock tables: violations grouped by rule, the partition report, the requantization sites.

Rows name nodes as the user knows them, by module path and op ("stages.0.path_a.0 · conv2d",
vpu_core.formatting.node_label), never by the generated fx name alone (that is in the tooltip).
Every such row carries the node in `NODE_ROLE`; clicking it emits `node_activated(name)` and the
window centres the graph on it. Constraint 1 (the op list) is listed with the rules: its
"violations" are the ops that fall back to the CPU.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QBrush, QColor, QFont
from PySide6.QtWidgets import (QLabel, QLineEdit, QTreeWidget, QTreeWidgetItem, QVBoxLayout,
                               QWidget)

from app import theme
from app.widgets.target_html import vela_of
from app.widgets.tree_items import child_items, top_level_items
from app.widgets.words import boundary_text, side_words
from app.widgets.wrapping import Col, ColumnFit
from vpu_core.graph.placement import partition_report
from vpu_core.formatting import compact_ints, count_text, human_bytes, node_label
from vpu_core.targets.arm.report_text import cycles_text
from vpu_core.reports.summary_text import CAUSE_WORDS

if TYPE_CHECKING:
    from collections.abc import Mapping

    from vpu_core.analysis.results import Analysis, CpuCause, PartitionReport
    from vpu_core.targets.arm.results import VelaEstimate
    from vpu_core.targets.results import TargetResult

NODE_ROLE = Qt.ItemDataRole.UserRole + 1
REQUANT_HEADERS = ("Node", "Right shifts n", "Exact", "Max error", "Range")


def _tree(headers: list[str]) -> QTreeWidget:
    tree = QTreeWidget()
    tree.setHeaderLabels(headers)
    tree.setAlternatingRowColors(True)
    tree.setRootIsDecorated(True)
    return tree


def _item(parent, texts, node: str | None = None) -> QTreeWidgetItem:
    item = QTreeWidgetItem(parent, [str(t) for t in texts])
    if node:
        item.setData(0, NODE_ROLE, node)
        item.setToolTip(0, f"{texts[0]}\n{node} — click to show it in the graph")
    return item


# The node column: what it needs, at most 45 % of the table; the text column takes the rest and wraps.
NAME_COL = Col(min=110, share=0.45, wrap=True, middle=True, lines=3)
TEXT_COL = Col(min=120, stretch=True, wrap=True)


def label(analysis: Analysis, node: str) -> str:
    """The table name of `node`: module path · op (the fx name when the analysis lacks it)."""
    info = analysis.nodes.get(node)
    return node_label(info) if info is not None else node


def _bold(item: QTreeWidgetItem, color: str | None = None) -> None:
    font = QFont(item.font(0))
    font.setBold(True)
    for col in range(item.columnCount()):
        item.setFont(col, font)
    if color:
        item.setForeground(0, QBrush(QColor(color)))


class _NodeTable(QWidget):
    node_activated = Signal(str)
    tree: QTreeWidget

    def _connect(self, tree: QTreeWidget) -> None:
        tree.itemClicked.connect(self._on_item)
        tree.itemActivated.connect(self._on_item)

    def _on_item(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        node = item.data(0, NODE_ROLE)
        if node:
            self.node_activated.emit(str(node))

    def _fit_columns(self, cols: list[Col], wrap_titles: bool = False) -> None:
        self.fit = ColumnFit(self.tree, cols, wrap_titles=wrap_titles)

    def _refit(self) -> None:
        """After filling: natural widths from the content, then the room shared out."""
        self.fit.compute_natural_widths()
        self.fit.apply()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.fit.apply()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self.fit.apply()


class ViolationsTable(_NodeTable):
    """Violations grouped by rule with counts; the filter matches node, message or rule."""

    def __init__(self) -> None:
        super().__init__()
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter violations by node, rule or message…")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._apply_filter)
        self.count_label = QLabel("")
        self.count_label.setObjectName("muted")
        # its own wrapped line: a long count ("rules not checked yet · 36 predicted on the CPU")
        # never widens the dock (it widened it by 60 px for the rest of the session)
        self.count_label.setWordWrap(True)
        self.tree = _tree(["Rule / node", "Message"])
        self._fit_columns([NAME_COL, TEXT_COL])
        self._connect(self.tree)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.filter)
        layout.addWidget(self.count_label)
        layout.addWidget(self.tree)
        self._groups: list[tuple[QTreeWidgetItem, Any]] = []      # (group row, RuleResult or the op-list rule)

    def set_analysis(self, analysis: Analysis) -> None:
        """The rules with violations first, then the rules that pass, then constraint 1's CPU ops
        (not violations: ops that fall back), folded when there are real violations to read."""
        self.tree.clear()
        self._groups = []
        self._predicted = bool(getattr(analysis, "predicted", False))   # no rule checked yet
        by_rule: dict[str, list] = {}
        for v in analysis.violations:
            by_rule.setdefault(v.rule, []).append(v)
        ordered = sorted(analysis.rules, key=lambda r: not by_rule.get(r.rule.id))   # stable: rule order kept
        for result in ordered:
            group = self._group()
            for v in by_rule.get(result.rule.id, ()):
                row = _item(group, [label(analysis, v.node), v.message], node=v.node)
                row.setToolTip(1, v.message)
            self._groups.append((group, result))
            group.setExpanded(0 < group.childCount() <= 200)
        if analysis.partition_rule is not None:      # constraint 1: the ops on the CPU
            group = self._group()
            for c in analysis.partition.cpu_nodes:
                row = _item(group, [label(analysis, c.node), c.reason], node=c.node)
                row.setToolTip(1, c.reason)
            self._groups.append((group, analysis.partition_rule))
            group.setExpanded(not analysis.violations and 0 < group.childCount() <= 200)
        self._apply_filter(self.filter.text())
        self._refit()

    def _group(self) -> QTreeWidgetItem:
        """A rule's row: its title and count across the whole table (it wraps; no column cuts it)."""
        group = _item(self.tree, ["", ""])
        group.setFirstColumnSpanned(True)
        return group

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        total = shown_total = on_cpu = 0
        for group, result in self._groups:
            if not hasattr(result, "rule"):          # constraint 1's group: CPU ops, not violations
                on_cpu += group.childCount()
            rule = getattr(result, "rule", result)
            rule_match = needle in rule.id.lower() or needle in rule.title.lower()
            shown = 0
            for child in child_items(group):
                texts = (child.text(0), child.text(1), str(child.data(0, NODE_ROLE) or ""))
                hit = not needle or rule_match or any(needle in t.lower() for t in texts)
                child.setHidden(not hit)
                shown += hit
            total += group.childCount()
            shown_total += shown
            self._label_group(group, result, shown)
            group.setHidden(bool(needle) and shown == 0 and not rule_match)
        summary = count_text(total - on_cpu, "violation") + (f" · {on_cpu} on the CPU" if on_cpu else "")
        if getattr(self, "_predicted", False):
            summary = f"rules not checked yet · {on_cpu} predicted on the CPU"
        self.count_label.setText(f"{shown_total} of {total} shown" if needle else summary)

    @staticmethod
    def _label_group(group: QTreeWidgetItem, result, shown: int) -> None:
        rule = getattr(result, "rule", result)        # a RuleResult, or constraint 1's RuleInfo
        count = group.childCount()
        more = f" ({shown} shown)" if shown != count else ""
        if rule is result:
            status = (f"{count} op{'s' if count != 1 else ''} on the CPU (not violations: they fall back){more}"
                      if count else "✓ every op on the VPU")
            color = theme.WARN if count else theme.OK
        elif not result.enabled:
            status, color = "switched off in the profile", theme.MUTED
        elif count:
            status, color = f"{count} violation{'s' if count != 1 else ''}{more}", theme.DANGER
        else:
            status, color = "✓ no violations", theme.OK
        group.setText(0, f"{rule.constraint}. {rule.title} — {status}")
        group.setText(1, status)
        group.setToolTip(0, f"{rule.id}: {rule.reason}")
        _bold(group)
        group.setForeground(0, QBrush(QColor(color)))

    def group_counts(self) -> dict[str, int]:
        """rule id -> number of rows (violations; for constraint 1 the CPU ops)."""
        return {getattr(result, "rule", result).id: group.childCount() for group, result in self._groups}


class PartitionTable(_NodeTable):
    """The primary target's verdict: totals, its partitions, its CPU ops with reasons (the ops its
    lowering removed apart), boundary edges with bytes."""

    def __init__(self) -> None:
        super().__init__()
        self.tree = _tree(["Item", "Detail", "Bytes"])
        # a 300 px dock: the Bytes column steps aside (each row's tooltip keeps its bytes)
        self._fit_columns([replace(NAME_COL, min=130), TEXT_COL, Col(min=60, fold=1)], wrap_titles=True)
        self._connect(self.tree)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.tree)

    def set_analysis(self, analysis: Analysis, source: str = "simulated",
                     delegation: PartitionReport | None = None,
                     targets: Mapping[str, TargetResult] | None = None) -> None:
        """`source` = the partition the graph is coloured by: its report comes first; `delegation`
        the real XNNPACK one (Inspection.attached.delegation), when it was computed; `targets` the
        verdicts of the other targets judged (an Ethos-U's with Vela's cycles per partition)."""
        self.tree.clear()
        # the primary target's verdict only: the table speaks for the target the user chose
        judged = (targets or {}).get(source)
        part = partition_report(analysis, source, delegation, targets)
        self._report(self.tree, part, analysis, judged)
        for top in top_level_items(self.tree):
            _bold(top)
            top.setExpanded(top.childCount() <= 300)
        self._refit()

    def _report(self, parent, part, analysis, judged: TargetResult | None = None) -> None:
        xnn = part.source == "xnnpack"
        words = side_words(judged.target if judged is not None else part.source)
        unit = f"{words.unit}s"
        cpu = "CPU ops"
        removed = [c for c in part.cpu_nodes if c.cause == "removed"]
        vela = vela_of(judged)
        detail = (f"{part.lowered_counts.get('delegated_nodes', 0)} lowered nodes delegated, "
                  f"{part.lowered_counts.get('non_delegated_nodes', 0)} not" if xnn
                  else f"profile {part.profile} · {len(part.vpu_ops)} VPU ops" if part.source == "simulated"
                  else f"{part.profile}" + (f" · {vela.label}" if vela is not None else ""))
        totals = _item(parent, ["Totals", detail, ""])
        _item(totals, [unit, str(len(part.subgraphs)), ""])
        _item(totals, [cpu, str(len(part.cpu_nodes) - len(removed)), ""])
        if removed:
            _item(totals, ["Removed while lowering", str(len(removed)), ""])
        edges = _item(totals, ["Boundary edges", str(len(part.boundaries)), f"{part.transfer_bytes:,}"])
        edges.setToolTip(1, f"{part.transfer_bytes:,} bytes cross the boundary")
        self._cpu_nodes(parent, part, cpu, analysis)     # what fell back (and why) first: the question asked
        self._boundaries(parent, part, analysis, judged.target if judged is not None else part.source)
        if vela is not None:
            _item(totals, ["NPU time (Vela)", f"{vela.inference_ms:.3f} ms · {cycles_text(vela.total_cycles)}", ""])
        self._subgraphs(parent, part, analysis.nodes, words.short, unit, vela)

    def _subgraphs(self, parent, part, infos: dict, word: str, unit: str, vela: VelaEstimate | None = None) -> None:
        group = _item(parent, [f"{unit} ({len(part.subgraphs)})", "", ""])
        costs = {p.index: p for p in vela.partitions} if vela is not None else {}
        for sub in part.subgraphs:
            ops = [n for n in sub.nodes if n in infos and infos[n].kind == "call_function"
                   and infos[n].qparams is None]            # the ops, not their Q/DQ and weights
            names = " → ".join(infos[n].op.split(".", 1)[0] for n in ops[:6]) + (" …" if len(ops) > 6 else "")
            detail = f"{len(ops)} op{'s' if len(ops) != 1 else ''} ({len(sub.nodes)} nodes): {names}"
            cost = costs.get(sub.id)
            if cost is not None:       # Vela's estimate of this partition, first: the number asked for
                detail = (f"{cycles_text(cost.cycles)} · {cost.inference_ms:.3f} ms · SRAM "
                          f"{human_bytes(cost.sram_bytes)} — {detail}")
            row = _item(group, [f"{word} {sub.id}", detail, ""], node=(ops or sub.nodes or [None])[0])
            row.setToolTip(1, ", ".join(ops) + (f"\n{vela.label}: {cost.cycles:,} cycles ({cost.npu_cycles:,} NPU), "
                                               f"{cost.macs:,} MACs, flash {human_bytes(cost.flash_bytes)}"
                                               if cost is not None and vela is not None else ""))
        group.setForeground(0, QBrush(QColor(theme.OK)))

    def _cpu_nodes(self, parent, part, title: str, analysis) -> None:
        """The CPU ops, grouped by cause (limit and memory first: the hardware's own "no")."""
        ops = [c for c in part.cpu_nodes if c.cause != "removed"]
        group = _item(parent, [f"{title} ({len(ops)})", "", ""])
        group.setForeground(0, QBrush(QColor(theme.WARN)))
        by_cause: dict[CpuCause, list] = {}
        for c in ops:
            by_cause.setdefault(c.cause, []).append(c)
        order = ("limit", "memory", "float", "op_list", "dtype")
        grouped = part.source != "xnnpack"        # the real delegation gives no causes
        for cause in sorted(by_cause, key=lambda k: order.index(k) if k in order else len(order)):
            nodes = by_cause[cause]
            sub = _item(group, [f"{CAUSE_WORDS.get(cause, cause)} ({len(nodes)})", cause, ""]) if grouped else group
            for c in nodes:
                detail = c.reason + (f" · {c.runs_as}" if c.runs_as else "")
                row = _item(sub, [label(analysis, c.node), detail, ""], node=c.node)
                row.setToolTip(1, detail)
            if sub is not group:
                sub.setExpanded(len(nodes) <= 300)
        removed = [c for c in part.cpu_nodes if c.cause == "removed"]
        if removed:         # folded away while lowering: no op runs for them, CPU or accelerator
            gone = _item(parent, [f"Removed while lowering ({len(removed)})", "", ""])
            for c in removed:
                _item(gone, [label(analysis, c.node), c.reason, ""], node=c.node)

    def _boundaries(self, parent, part, analysis, source: str) -> None:
        group = _item(parent, [f"Boundaries ({len(part.boundaries)})", "", f"{part.transfer_bytes:,}"])
        for b in part.boundaries:
            shape = "×".join(str(d) for d in b.shape)
            detail = boundary_text(b.direction, source) + (f" · {shape} {b.dtype}" if shape else "")
            row = _item(group, [f"{label(analysis, b.src)} → {label(analysis, b.dst)}", detail, f"{b.bytes:,}"],
                        node=b.dst)
            row.setToolTip(0, f"{b.src} → {b.dst} — click to show {b.dst} in the graph")
            row.setToolTip(1, f"{detail} · {b.bytes:,} bytes")

    def top_titles(self) -> list[str]:
        return [top.text(0) for top in top_level_items(self.tree)]


class RequantTable(_NodeTable):
    """One row per requantization site: shifts per channel, exactness, range."""

    def __init__(self) -> None:
        super().__init__()
        self.tree = _tree(list(REQUANT_HEADERS))
        self.tree.setRootIsDecorated(False)
        # narrow: Range, then Max error step aside (the row's tooltip keeps them)
        self._fit_columns([NAME_COL, Col(min=70, stretch=True, wrap=True), Col(min=44),
                           Col(min=64, fold=2), Col(min=56, fold=1)])
        self._connect(self.tree)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.tree)

    def set_analysis(self, analysis: Analysis) -> None:
        self.tree.clear()
        for site in analysis.requant:
            shifts = site.shifts if site.shifts is not None else site.nearest_shifts
            text = compact_ints(shifts) if shifts else "—"
            texts = [label(analysis, site.node), text if site.exact else f"≈ {text}",
                     "yes" if site.exact else "no", f"{site.max_rel_error:.2%}",
                     "out of range" if site.out_of_range else "ok"]
            row = _item(self.tree, texts, node=site.node)
            tip = " · ".join(f"{h}: {t}" for h, t in zip(REQUANT_HEADERS[1:], texts[1:]))
            for col in range(1, len(texts)):
                row.setToolTip(col, tip)
            if not site.exact:
                row.setForeground(2, QBrush(QColor(theme.DANGER)))
            if site.out_of_range:
                row.setForeground(4, QBrush(QColor(theme.DANGER)))
        self._refit()

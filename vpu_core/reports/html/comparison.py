"""The comparison section: two configurations of one model, side by side (vpu_core.compare)."""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, TypeGuard

from vpu_core.formatting import db_text, human_bytes, tensor_text
from vpu_core.reports.html import style
from vpu_core.reports.html.html_kit import card, code, details, esc, pill, placement_pill, table
from vpu_core.reports.html.numbers import LOG2_BIN, figure, log2_scales
from vpu_core.reports.html.sections import (rule_status, rules_broken, violation_groups,
                                           vpu_op_share)
from vpu_core.reports.html.svg_charts import Bar, Series, bin_edges, count_bins, hbar_groups, histogram

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.compare import Comparison, OpPair, OpSide

SIDE_B_COLOR = "#2563eb"
OPEN_LIMIT = 80      # the diff table starts expanded up to this many matched ops


def comparison_section(a: Analysis, b: Analysis, cmp: Comparison) -> str:
    la, lb = cmp.a_label, cmp.b_label
    parts = [_verdict(a, b, la, lb), _summary_table(a, b, la, lb), "<h3>Rules broken by each</h3>",
             _rules_table(a, b, la, lb)]
    if b.violations:   # side A's violations are in the rules section above
        parts.append(details(f"Every violation of {esc(lb)} <span class=\"muted\">— {len(b.violations)}, "
                             "grouped by rule</span>", violation_groups(b), data={"side": "b"}))
    parts.append(f'<div class="grid2" style="margin-top:18px">{_scale_overlay(a, b, la, lb)}'
                 f"{_placement_overview(cmp)}</div>")
    parts.append(_sqnr_pairs(a, b, cmp))
    parts.append(_diff_block(cmp))
    parts.append(_unmatched(cmp))
    return card("comparison", f"Comparison: {la} vs {lb}", "".join(parts), lede=(
        "The same model under two configurations. Ops are matched by the module they come from and "
        "the op they compute, never by generated node names."))


def _verdict(a: Analysis, b: Analysis, la: str, lb: str) -> str:
    """Two sentences a stakeholder can repeat: rules broken on each side, and the accuracy price."""
    def broken(x: Analysis, label: str) -> str:
        n = len(x.violations)
        if not n:
            return f"<b>{esc(label)}</b> breaks no VPU rule"
        return (f"<b>{esc(label)}</b> breaks {rules_broken(x)} of {len(x.rules)} VPU rules "
                f"({n} violation{'s' if n != 1 else ''})")

    text = f"{broken(a, la)}; {broken(b, lb)}."
    if _finite(a.sqnr_db) and _finite(b.sqnr_db):
        diff = a.sqnr_db - b.sqnr_db
        if abs(diff) >= 0.05:
            (better, hi), (worse, lo) = sorted(((la, a.sqnr_db), (lb, b.sqnr_db)), key=lambda x: -x[1])
            text += (f" End to end, <b>{esc(better)}</b> is {hi - lo:.1f} dB more accurate than "
                     f"{esc(worse)} ({db_text(hi)} vs {db_text(lo)}).")
    return f'<p class="verdict">{text}</p>'


def _summary_table(a: Analysis, b: Analysis, la: str, lb: str) -> str:
    def share(x: Analysis) -> str:
        on, total = vpu_op_share(x)
        return f"{on} / {total}" + (f" ({100.0 * on / total:.0f}%)" if total else "")

    def exact(x: Analysis) -> str:
        return f"{sum(1 for s in x.requant if s.exact)} / {len(x.requant)}"

    rows = [
        ("Quantizer", a.quantizer, b.quantizer, None),
        ("Batch mode", _batch(a), _batch(b), None),
        ("Violations", len(a.violations), len(b.violations), "low"),
        ("Rules broken", f"{rules_broken(a)} / {len(a.rules)}", f"{rules_broken(b)} / {len(b.rules)}", None),
        ("Ops on the VPU", share(a), share(b), None),
        ("VPU subgraphs", len(a.partition.subgraphs), len(b.partition.subgraphs), "low"),
        ("CPU fallback ops", len(a.partition.cpu_nodes), len(b.partition.cpu_nodes), "low"),
        ("Boundary traffic", a.partition.transfer_bytes, b.partition.transfer_bytes, "low"),
        ("Exact right-shift sites", exact(a), exact(b), None),
        ("SQNR end to end", a.sqnr_db, b.sqnr_db, "high"),
    ]
    out = []
    for label, va, vb, better in rows:
        ca, cb = _fmt(label, va), _fmt(label, vb)
        if better and isinstance(va, (int, float)) and isinstance(vb, (int, float)) and va != vb:
            a_wins = va < vb if better == "low" else va > vb
            ca = f'<span class="{"better" if a_wins else "worse"}">{ca}</span>'
            cb = f'<span class="{"worse" if a_wins else "better"}">{cb}</span>'
        out.append([esc(label), ca, cb])
    return table(["", la, lb], out)


def _batch(x: Analysis) -> str:
    return "dynamic" if x.dynamic_batch else "static"


def _fmt(label: str, value) -> str:
    if label == "Boundary traffic":
        return esc(human_bytes(value))
    if label.startswith("SQNR"):
        return esc(db_text(value))
    return esc(value)


def _rules_table(a: Analysis, b: Analysis, la: str, lb: str) -> str:
    by_id = {r.rule.id: r for r in b.rules}
    rows = []
    for ra in a.rules:
        rb = by_id.get(ra.rule.id)
        rows.append([esc(ra.rule.constraint), esc(ra.rule.title), code(ra.rule.id), rule_status(ra),
                     rule_status(rb) if rb is not None else "—"])
    return table(["#", "Constraint", "Rule id", la, lb], rows)


def _scale_overlay(a: Analysis, b: Analysis, la: str, lb: str) -> str:
    va, vb = log2_scales(a, "activation"), log2_scales(b, "activation")
    edges = bin_edges(va + vb, LOG2_BIN)
    svg = histogram(edges, [Series(la, count_bins(va, edges), style.VPU),
                            Series(lb, count_bins(vb, edges), SIDE_B_COLOR)],
                    x_label="log2(activation scale)", integer_ticks=True)
    return figure("Activation scales, both configurations", "integer log2 = power of two", svg)


def _placement_overview(cmp: Comparison) -> str:
    both_vpu = sum(1 for p in cmp.pairs if p.a.placement == p.b.placement == "vpu")
    both_cpu = sum(1 for p in cmp.pairs if p.a.placement == p.b.placement == "cpu")
    moved = len(cmp.partition_changes)
    rows = [[pill("VPU", "vpu") + " on both", esc(both_vpu)],
            [pill("CPU", "cpu") + " on both", esc(both_cpu)],
            ["placement differs", esc(moved)],
            ["qparams differ", esc(sum(1 for p in cmp.pairs if p.qparams_differ))],
            ["rules broken differ", esc(sum(1 for p in cmp.pairs if p.rules_differ))],
            [f"only in {esc(cmp.a_label)} / only in {esc(cmp.b_label)}",
             esc(f"{len(cmp.only_a)} / {len(cmp.only_b)}")]]
    body = table(["Matched ops", "Count"], rows, numeric={1})
    return (f'<figure class="chart"><figcaption>{esc(len(cmp.pairs))} matched ops '
            f'<span class="muted">— {esc(len(cmp.differing))} differ</span></figcaption>{body}</figure>')


def _sqnr_pairs(a: Analysis, b: Analysis, cmp: Comparison) -> str:
    """Per-layer SQNR of every matched op measured on both sides, two bars per op."""
    la, lb = cmp.a_label, cmp.b_label
    groups = []
    for p in cmp.pairs:
        va, vb = a.layer_sqnr.get(p.a.node), b.layer_sqnr.get(p.b.node)
        if not (_finite(va) and _finite(vb)):
            continue
        groups.append((p.a.node, (Bar(la, va, style.VPU, f"{p.a.node} · {la}: {va:.1f} dB"),
                                  Bar(lb, vb, SIDE_B_COLOR, f"{p.b.node} · {lb}: {vb:.1f} dB"))))
    if not groups:
        return ""
    legend = (f'<div class="legend"><span><span class="sw" style="background:{style.VPU}"></span>'
              f'{esc(la)}</span><span><span class="sw" style="background:{SIDE_B_COLOR}"></span>'
              f'{esc(lb)}</span></div>')
    chart = hbar_groups(groups, unit="SQNR (dB)")
    return f'<h3>Per-layer SQNR, both configurations</h3>{legend}<div class="scroll">{chart}</div>'


def _finite(x: object) -> TypeGuard[float]:
    return isinstance(x, (int, float)) and math.isfinite(x)


def _diff_block(cmp: Comparison) -> str:
    if not cmp.pairs:
        return '<p class="muted">No op could be matched between the two graphs.</p>'
    rows, classes = [], []
    for p in cmp.pairs:
        rows.append([_op_cell(p), _side_cell(p.a), _side_cell(p.b), _diff_cell(p)])
        classes.append("pair diff" if p.differs else "pair")
    tbl = table(["Op (module)", cmp.a_label, cmp.b_label, "Differs in"], rows, row_classes=classes)
    summary = (f"Matched ops <span class=\"muted\">— {len(cmp.pairs)} pairs, "
               f"{len(cmp.differing)} differ (red edge)</span>")
    return "<h3>Op by op</h3>" + details(summary, tbl, open_=len(cmp.pairs) <= OPEN_LIMIT)


def _op_cell(p: OpPair) -> str:
    where = esc(p.key) if p.key else '<span class="muted">(no module path)</span>'
    return f"{code(p.op)}<div class=\"muted small\">{where}</div>"


def _side_cell(s: OpSide) -> str:
    lines = [f"{placement_pill(s.placement, s.subgraph)} {code(s.node)}"]
    for label, t in (("out", s.output), ("w", s.weight), ("b", s.bias)):
        if t is not None:
            lines.append(f'<div class="small"><span class="muted">{label}</span> '
                         f'{esc(tensor_text(t))}</div>')
    if s.rules:
        lines.append('<div class="chips" style="margin-top:3px">'
                     + "".join(pill(r, "fail") for r in s.rules) + "</div>")
    return "".join(lines)


def _diff_cell(p: OpPair) -> str:
    flags = [name for name, on in (("partition", p.partition_differs), ("qparams", p.qparams_differ),
                                   ("rules", p.rules_differ)) if on]
    return "".join(pill(f, "rule") + " " for f in flags) if flags else '<span class="muted">same</span>'


def _unmatched(cmp: Comparison) -> str:
    if not cmp.only_a and not cmp.only_b:
        return '<p class="muted small">Every op has a counterpart on the other side.</p>'
    parts = ["<h3>Unmatched ops</h3>"]
    for label, names in ((cmp.a_label, cmp.only_a), (cmp.b_label, cmp.only_b)):
        chips = "".join(code(n) for n in names) or '<span class="muted">none</span>'
        parts.append(f'<p><b>Only in {esc(label)}:</b> <span class="chips">{chips}</span></p>')
    return "".join(parts)

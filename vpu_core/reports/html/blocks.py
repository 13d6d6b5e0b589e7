"""The report's view of a big graph: the model collapsed to its blocks, one row per block with
its node count, VPU share and violations (the same blocks the collapsed picture shows)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from vpu_core.reports.html.html_kit import code, esc, pill, table

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.layout.grouped import GroupedGraph
    from vpu_core.graph.model import GroupStats
    from vpu_core.targets.results import TargetResult


def report_blocks(analysis: Analysis, primary: TargetResult | None = None
                  ) -> tuple[GroupedGraph, frozenset[str], list[GroupStats]] | None:
    """(GroupedGraph, expanded groups, GroupStats of the blocks shown closed) of the report's
    collapsed picture (placed by the `primary` target, the VPU when None), or None when the model
    has no module hierarchy."""
    from vpu_core.config import SIMULATED
    from vpu_core.graph.build import build_graph_model
    from vpu_core.layout.grouped import grouped_graph, report_view

    source = SIMULATED if primary is None or primary.target == "vpu" else primary.target
    model = build_graph_model(analysis, partition_source=source,
                              targets={primary.target: primary} if primary is not None else None)
    grouped = grouped_graph(analysis, model)
    if grouped is None:
        return None
    opened = report_view(grouped)
    model, _ = grouped.show(opened)
    blocks = [n.group for n in model.nodes if n.group is not None]
    return grouped, opened, blocks


def blocks_html(analysis: Analysis, primary: TargetResult | None = None) -> str:
    side = "VPU" if primary is None or primary.target == "vpu" else primary.title
    vpu = side == "VPU"
    got = report_blocks(analysis, primary)
    if got is None or not got[2]:
        return ""
    rows = []
    for s in got[2]:
        share = s.vpu_ops / s.ops if s.ops else 0.0
        bar = (f'<span class="sharebar" title="{s.vpu_ops} of {s.ops} ops on the {esc(side)}">'
               f'<span style="width:{100 * share:.0f}%"></span></span> {100 * share:.0f} %')
        viol = pill(f"{s.violations}", "fail") if s.violations else pill("0", "ok")
        rows.append([f"<b>{esc(s.label)}</b><div class='muted small'>{code(s.path)}</div>",
                     esc(s.nodes), esc(s.ops), bar if s.ops else '<span class="muted">no ops</span>',
                     esc(s.cpu_ops), *([viol] if vpu else [])])
    heads = ["Block", "Nodes", "Ops", f"On the {side}", "CPU ops", *(["VPU violations"] if vpu else [])]
    return "<h3>Blocks</h3>" + table(heads, rows, numeric={1, 2, 4})

"""HTML for the node panel about the canvas' own objects: a module group, and the tensors a node
shares its scale with. Plain functions of the core's data, so they can be tested without a window.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import html

from vpu_core.formatting import call_text, scale_text as scale_label
from vpu_core.graph.groups import group_path, scale_group_of

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.graph.model import GraphModel

MUTED, DANGER, OK, WARN = "#5b636d", "#d92d20", "#2f9e44", "#b85c00"


def _esc(value) -> str:
    return html.escape(str(value))


def _link(name: str) -> str:
    return f'<a href="node:{_esc(name)}" style="text-decoration:none">{_esc(name)}</a>'


def _section(title: str) -> str:
    return (f'<p style="margin:16px 0 4px 0; color:{MUTED}; font-size:9pt; font-weight:600">'
            f'{_esc(title.upper())}</p>')


def group_html(model: GraphModel, node_id: str) -> str | None:
    """A module group's numbers (`node_id` "group:<path>"); None for anything else."""
    path = group_path(node_id or "")
    stats = (model.meta.get("group_stats") or {}).get(path) if model is not None and path else None
    if stats is None or path is None:
        return None
    from vpu_core.graph.legend import accelerator_word

    share = f"{100 * stats.vpu_ops / stats.ops:.0f} %" if stats.ops else "—"
    viol = (f'<b style="color:{DANGER}">{stats.violations}</b>' if stats.violations
            else f'<span style="color:{OK}">0</span>')
    vpu_rules = model.meta.get("badges", "violations") == "violations"   # the VPU is the target
    rows = [("Module", _esc(call_text(path))), ("Nodes inside", str(stats.nodes)), ("Ops", str(stats.ops)),
            (f"On the {accelerator_word(model.meta.get('partition_source', 'simulated'))}",
             f"{stats.vpu_ops} ops ({share})"),
            ("On the CPU", f'<span style="color:{WARN if stats.cpu_ops else OK}">{stats.cpu_ops}</span> ops'),
            *([("VPU rule violations", viol)] if vpu_rules else [])]
    for bar in stats.metrics:
        if bar.worst is not None:
            rows.append((f"worst {bar.metric}", f"{bar.worst:.4g}"))
    cells = "".join(f'<tr><td style="color:{MUTED}; padding:2px 12px 2px 0">{_esc(k)}</td><td>{v}</td></tr>'
                    for k, v in rows)
    return (f'<h2 style="margin:0">{_esc(stats.label)}</h2>'
            f'<p style="color:{MUTED}; margin:2px 0 8px 0">module group · depth {stats.depth}</p>'
            f'<table cellspacing="0" cellpadding="0">{cells}</table>'
            f'<p style="color:{MUTED}; margin-top:10px">Double-click the box to open it; double-click '
            'an open group\'s title to close it (or E / C).</p>')


def shared_scale_html(analysis: Analysis, node_id: str, model: GraphModel | None = None) -> str:
    """The tensors forced to one scale together with `node_id`, each with the scale it got."""
    group = scale_group_of(getattr(analysis, "scale_groups", ()), node_id, model)
    if group is None:
        return ""
    state = (f'<span style="color:{OK}">one scale: {scale_label(group.members[0].scales[0])}</span>'
             if group.shared and group.members[0].scales else
             f'<b style="color:{DANGER}">scales differ</b> (constraint 6 wants one)')
    rows = "".join(
        f'<tr><td style="padding:2px 10px 2px 0">{_link(m.producer) if m.producer else "input"}</td>'
        f'<td style="padding:2px 10px 2px 0; color:{MUTED}">{_link(m.tensor)}</td>'
        f'<td>{", ".join(scale_label(s) for s in m.scales) or "?"}</td></tr>' for m in group.members)
    ops = ", ".join(_link(o) for o in group.ops)
    return (_section(f"Shared scale · {len(group.members)} tensors") +
            f'<p style="margin:0 0 4px 0">{state} — tied by {ops}</p>'
            f'<table cellspacing="0" cellpadding="0"><tr><td style="color:{MUTED}">producer</td>'
            f'<td style="color:{MUTED}">tensor</td><td style="color:{MUTED}">scale</td></tr>{rows}</table>')

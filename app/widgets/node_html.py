"""The node panel's content as HTML: the model summary, or everything known about one node.

Plain functions of (Analysis, GraphModel, node id, partition source), testable without a window.
Every number is formatted by vpu_core.formatting and every placement decided by
vpu_core.graph.placement, so the panel says what the status bar and the tables say. Node names
are links ("node:<name>"): clicking one selects that node.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

import html
import re

from app import theme
from vpu_core.formatting import (argument_text, compact_ints, db_on_samples, dtype_short, human_bytes, module_name,
                                 quant_params_rows, quantizer_phrase, scale_detail, scales_detail, shape_text,
                                 time_text, value_text, zero_points_text)
from app.widgets.wrapping import breakable
from app.widgets.target_html import estimate_facts, target_rows
from app.widgets.words import boundary_text, side_words
from vpu_core.config import SIMULATED
from vpu_core.graph.build import cpu_ops
from vpu_core.graph.placement import partition_report, placement
from vpu_core.reports.summary_text import (CAUSE_WORDS, causes_text, mac_share_caveat, mac_share_text,
                                           no_weighted_op_sentence, weights_text)
from vpu_core.inspection import NOTHING_ATTACHED

if TYPE_CHECKING:
    from collections.abc import Mapping

    from vpu_core.targets.results import TargetResult
    from vpu_core.whatif.try_on_vpu import VpuFix
    from vpu_core.analysis.results import Analysis, InputInfo, PartitionReport, Summary
    from vpu_core.graph.model import GraphModel
    from vpu_core.inspection import Attached
    from vpu_core.targets.results import RuntimeReport

_CAT_TEXT = {"vpu": "VPU", "cpu": "CPU", "removed": "removed while lowering", "qdq": "Q/DQ",
             "param": "parameter", "io": "graph I/O"}


def esc(value: object) -> str:
    return html.escape(str(value))


def node_link(name: str) -> str:
    """A link that selects the node; long generated names may wrap after an underscore."""
    text = esc(name).replace("_", "_\u200b")
    return f'<a href="node:{esc(name)}" style="color:{theme.ACCENT}; text-decoration:none">{text}</a>'


def section(title: str, body: str) -> str:
    return (f'<p style="margin:16px 0 4px 0; color:{theme.MUTED}; font-size:9pt; font-weight:600">'
            f'{esc(title.upper())}</p>{body}')


def rows(pairs: Iterable[tuple[str, str]]) -> str:
    cells = "".join(f'<tr><td style="color:{theme.MUTED}; padding:2px 12px 2px 0" valign="top">{esc(k)}</td>'
                    f'<td style="padding:2px 0">{v}</td></tr>' for k, v in pairs if v not in (None, ""))
    return f'<table cellspacing="0" cellpadding="0">{cells}</table>'


def badge(text: str, color: str) -> str:
    return (f'<span style="background:{color}; color:{theme.text_on(color)}; font-weight:600">'
            f'&nbsp;{esc(text)}&nbsp;</span>')


def count_text(count: int, color: str) -> str:
    return f'<b style="color:{color}">{count}</b>' if count else f'<span style="color:{theme.OK}">0</span>'


def _breakable(text: str) -> str:
    """Long dotted names may wrap after a dot rather than mid-word."""
    return esc(text).replace(".", ".\u200b")


_TAG = re.compile(r"(<[^>]*>)")


def breakable_html(markup: str) -> str:
    """The panel's HTML with a zero-width break opportunity after every "_" and "." inside an
    identifier ("normalized_shape", "scaled_dot_product_attention.default", module paths), in
    the text only (never in a tag or a link target): a narrow panel wraps between the parts of a
    name, never mid-word ("normalized_shap / e"). Numbers ("0.03125") stay whole."""
    parts = _TAG.split(markup)
    for i in range(0, len(parts), 2):                  # the text between tags
        parts[i] = breakable(parts[i])
    return "".join(parts)


# -- summary (nothing selected) -----------------------------------------------------------------

def summary_html(analysis: Analysis, model: GraphModel | None = None, source: str = "simulated",
                 attached: Attached = NOTHING_ATTACHED,
                 targets: Mapping[str, TargetResult] | None = None) -> str:
    """The model at a glance, for the primary target `source` (the one the graph is coloured by):
    its partitions, CPU ops and (an Ethos-U) the compiler's estimate; the VPU's rules, MAC share
    and hardware profile only when the VPU is that target. `attached`: what was computed beside
    the analysis (a refused run on this CPU); `targets`: the targets judged."""
    part = partition_report(analysis, source, attached.delegation, targets)
    vpu = source == SIMULATED
    words = side_words(source)
    profile = f" · profile {esc(analysis.partition.profile)}" if vpu else ""
    head = (f'<h2 style="margin:0">{esc(analysis.model)}</h2>'
            f'<p style="color:{theme.MUTED}; margin-top:2px">{esc(words.label)} target · '
            f'{esc(quantizer_phrase(analysis))} · '
            f'{"dynamic" if analysis.dynamic_batch else "static"} batch{profile}</p>')
    s = analysis.summary
    ops, removed = cpu_ops(part), len(part.cpu_nodes) - len(cpu_ops(part))
    placed = [(f"{words.unit}s", str(len(part.subgraphs))), (words.cpu_ops, count_text(len(ops), theme.WARN)),
              *([("Removed while lowering", str(removed))] if removed else [])]
    if vpu and s is not None:
        lead = [("MACs on the VPU", mac_share_html(s, len(analysis.violations))), ("Weights", esc(weights_text(s))),
                ("CPU ops by cause", esc(causes_text(s.cpu_ops_by_cause, short=False)))]
    else:                                   # another target's verdict leads, with its estimate
        lead, placed = [*placed, *estimate_facts((targets or {}).get(source))], []
    warning = no_weighted_op_sentence(s)
    violations = count_text(len(analysis.violations), theme.DANGER) + (
        f'<br><span style="color:{theme.WARN}">{esc(warning)}</span>' if warning else "")
    facts = [*lead,
             ("Graph nodes", f"{len(analysis.nodes)}" + (f" ({len(model.nodes)} shown)" if model else "")),
             ("Inputs", inputs_html(analysis.inputs)), *placed,
             ("Boundary transfers", f"{len(part.boundaries)} edges, {human_bytes(part.transfer_bytes)}"),
             *([("VPU rule violations", violations)] if vpu else []),
             ("SQNR (model output)", esc(db_on_samples(analysis.sqnr_db, analysis.accuracy_samples))
              if analysis.sqnr_db is not None else "—")]
    if vpu and attached.delegation is not None:
        facts.append(("XNNPACK (real)", _other_partition(attached.delegation)))
    if attached.runtime is not None and attached.runtime.refused:
        facts.append(("Run on this CPU", f'<span style="color:{theme.DANGER}">refused:</span> '
                                         f"{esc(attached.runtime.refused)}"))
    tables = "the Violations / Partition tables" if vpu else "the Partition table"
    about = "partition decision, rule violations and shift counts" if vpu else \
        f"partition decision and {esc(words.label)}'s reason for a CPU op"
    hint = (f'<p style="color:{theme.MUTED}; margin-top:14px">Click a node in the graph, or a row in '
            f'{tables}, to see its operation, arguments, quantization parameters, {about} here.<br>'
            '<b>F</b> fits the graph · <b>Ctrl+F</b> searches (names, ops, module paths) · '
            'drop a .py or .pt2 file to open it.</p>')
    if not vpu:
        return head + rows(facts) + hint
    rules_table = f'<table cellspacing="0" cellpadding="3" width="100%">{rules_rows(analysis)}</table>'
    return head + rows(facts) + section("VPU rules", rules_table) + hint


def inputs_html(inputs: tuple[InputInfo, ...]) -> str:
    """"x 16×3×32×32 float32" per input; a dynamic dim is marked."""
    out = []
    for i in inputs:
        dims = [f"{d}*" if k in i.dynamic_dims else str(d) for k, d in enumerate(i.shape)]
        shape = esc('×'.join(dims) or 'scalar')
        out.append(f'{esc(i.name)} <span style="font-family:{theme.MONO_CSS}">{shape}</span>'
                   f" <span style='color:{theme.MUTED}'>{esc(i.dtype)}</span>")
    note = f"<br><span style='color:{theme.MUTED}'>* dynamic</span>" if any(i.dynamic_dims for i in inputs) else ""
    return "<br>".join(out) + note


def _other_partition(part) -> str:
    n = len(part.subgraphs)
    return f"{n} partition{'s' if n != 1 else ''}, {count_text(len(cpu_ops(part)), theme.WARN)} CPU ops"


def rules_rows(analysis: Analysis) -> str:
    """Constraint 1 (the op list, enforced by the partition) first, then the seven checked rules."""
    out = []
    if analysis.partition_rule is not None:
        n = len(analysis.partition.cpu_nodes)
        status = (f'<b style="color:{theme.WARN}">{n} on CPU</b>' if n
                  else f'<span style="color:{theme.OK}">✓</span>')
        out.append(_rule_row(analysis.partition_rule, status))
    for result in analysis.rules:
        if not result.enabled:
            status = f'<span style="color:{theme.MUTED}">off</span>'
        elif result.violations:
            status = f'<b style="color:{theme.DANGER}">{result.violations} ✗</b>'
        else:
            status = f'<span style="color:{theme.OK}">✓</span>'
        out.append(_rule_row(result.rule, status))
    return "".join(out)


def _rule_row(rule, status: str) -> str:
    return (f'<tr><td width="22" style="color:{theme.MUTED}">{rule.constraint}</td>'
            f'<td>{esc(rule.title)}</td><td align="right">{status}</td></tr>')


def running_html(model: str, quantizer: str) -> str:
    return (f'<h2 style="margin:0">{esc(model)}</h2><p style="color:{theme.MUTED}">'
            f'Quantizing with the {esc(quantizer.upper())} quantizer and checking the VPU rules…</p>'
            f'<p style="color:{theme.MUTED}">The graph appears as soon as the run finishes. '
            'Select a node to see its details here.</p>')


def waiting_html(text: str) -> str:
    return f'<h2 style="margin:0">VPU Inspector</h2><p style="color:{theme.MUTED}">{esc(text)}</p>'


# -- one node ---------------------------------------------------------------------------------------

def node_html(analysis: Analysis, model: GraphModel, node_id: str, source: str = "simulated",
              fix: VpuFix | None = None, attached: Attached = NOTHING_ATTACHED,
              targets: Mapping[str, TargetResult] | None = None) -> str:
    """One node; a module group ("group:<path>") shows the group's numbers instead. `fix`
    (vpu_core.whatif.try_on_vpu, computed by the caller's feature): its "Try it on the VPU" link;
    `attached`: what was computed beside the analysis (its time in a run on this CPU)."""
    from app.graph_view.info_html import group_html, shared_scale_html

    info = analysis.nodes.get(node_id)
    gnode = _graph_node(model, node_id)
    if info is None:
        return group_html(model, node_id) or f"<p>No information for node {esc(node_id)}.</p>"
    members = (node_id, *(gnode.folded if gnode else ()))
    # where it runs and why comes first: at 1280×720 the panel shows a few rows before scrolling
    judged = (targets or {}).get(source)
    parts = [_header(info, gnode, source), _partition(analysis, node_id, source, fix, attached.delegation, targets),
             target_section(judged, members), _measured(attached.runtime, members),
             _operation(info, gnode, side_words(source).on), _arguments(info), _quantization(analysis, info, members),
             *((_violations(analysis, members), _requant(analysis, node_id)) if source == SIMULATED else ()),
             shared_scale_html(analysis, node_id, model), _accuracy(analysis, info),
             _folded(analysis, gnode), _source(info)]
    return "".join(p for p in parts if p)


def _graph_node(model, node_id):
    if model is None:
        return None
    try:
        return model.node(node_id)
    except KeyError:
        return None


def _header(info, gnode, source: str) -> str:
    category = gnode.category if gnode else ""
    color = theme.CATEGORY_COLORS.get(category, theme.MUTED)
    words = side_words(source)
    text = _CAT_TEXT.get(category, category)
    if gnode is not None and gnode.subgraph is not None and category in ("vpu", "qdq", "param"):
        text = f"{words.unit} {gnode.subgraph}" if category == "vpu" else f"{text} · partition {gnode.subgraph}"
    elif category == "cpu":
        text = "CPU" if source == SIMULATED else f"CPU ({words.label} leaves it there)"
    label = gnode.label if gnode else info.op
    warn = ""
    if gnode is not None and gnode.violations and source == SIMULATED:     # the VPU's rules: its own badge
        warn = " " + badge(f"{gnode.violations} violation{'s' if gnode.violations > 1 else ''}", theme.DANGER)
    where = f"{_breakable(module_name(info))} · " if module_name(info) else ""
    return (f'<h2 style="margin:0">{esc(label)}</h2>'
            f'<p style="margin:2px 0 0 0; color:{theme.MUTED}">{where}node {esc(info.name)}</p>'
            f'<p style="margin:6px 0 0 0">{badge(text, color) if text else ""}{warn}</p>')


def _dtype_row(info, gnode, on: str = "VPU") -> str:
    """The dtype the node's box states (GraphNode.dtype), and the Q/DQ graph's when it differs;
    `on`: the target's accelerator ("VPU", "NPU", "XNNPACK")."""
    on = f"the {on}" if on in ("VPU", "NPU") else on
    ref = esc(info.dtype)
    if gnode is None or gnode.category not in ("vpu", "cpu"):
        return ref
    if not gnode.dtype:
        return f"none: fused into the next op on {on} ({ref} in the Q/DQ graph)" if ref else ""
    if gnode.dtype == dtype_short(info.dtype):
        return ref
    return f"{esc(gnode.dtype)} on {on} ({ref} in the Q/DQ graph)" if ref else esc(gnode.dtype)


def _operation(info, gnode=None, on: str = "VPU") -> str:
    named = {r for arg in info.arguments for r in arg.refs}
    inputs = [n for n in info.inputs if n not in named]    # the arguments list the others by name
    return section("Operation", rows([
        ("op", _breakable(info.op)), ("target", _breakable(info.target) if info.target != info.op else ""),
        ("module", _module_row(info)), ("kind", esc(info.kind)),
        ("shape", esc(shape_text(info.shape))), ("dtype", _dtype_row(info, gnode, on)),
        ("inputs", ", ".join(node_link(n) for n in inputs)),
        ("outputs", ", ".join(node_link(n) for n in info.outputs)),
    ]))


def _module_row(info) -> str:
    """The module path; an op of the model's own forward says so (it is drawn at the top level)."""
    name = module_name(info)
    if name and not info.module:
        return f"{_breakable(name)} <span style=\"color:{theme.MUTED}\">(the model's own forward)</span>"
    return _breakable(name)


def _arguments(info) -> str:
    """The op's arguments by their schema names: stride, padding, … (tensors as links)."""
    pairs = []
    for arg in info.arguments:
        if arg.refs and isinstance(arg.value, str):
            value = node_link(arg.value)
        elif arg.refs:
            value = "[" + ", ".join(node_link(r) for r in arg.refs) + "]"
        else:
            value = f'<span style="font-family:{theme.MONO_CSS}">{esc(argument_text(arg))}</span>'
        pairs.append((arg.name, value))
    return section("Arguments", rows(pairs)) if pairs else ""


def _quantization(analysis, info, members) -> str:
    pairs = [(k, esc(v)) for k, v in quant_params_rows(info.qparams)] if info.qparams else []
    for t in analysis.tensors:
        if t.node == info.name and info.qparams:      # its own qparams are listed above already
            if t.float_scales and t.float_scales != t.scales:
                pairs.append(("float scale (observer)", esc(scales_detail(t.float_scales))))
            continue
        if t.node in members or t.consumer == info.name:
            # an activation listed against an op is that op's output
            kind = "output" if t.kind == "activation" and t.node not in members else t.kind
            pairs.append((f"{kind} scale", esc(scales_detail(t.scales))))
            if t.float_scales and t.float_scales != t.scales:
                pairs.append((f"{kind} float scale", esc(scales_detail(t.float_scales))))
            pairs.append((f"{kind} zero point", esc(zero_points_text(t.zero_points))))
            pairs.append((f"{kind} dtype", esc(t.dtype)))
    return section("Quantization", rows(pairs)) if pairs else ""


def placement_html(analysis: Analysis, node_id: str, source: str, delegation: PartitionReport | None = None,
                   targets: Mapping[str, TargetResult] | None = None) -> str:
    where = placement(analysis, node_id, source, delegation, targets)
    words = side_words(source)
    if where.runs_on == "vpu":
        return f'<b style="color:{theme.OK}">{words.on}</b>, {words.short} {where.subgraph}'
    if where.runs_on == "cpu":     # an Arm reason names its target, which the row's label already does
        reason = where.reason.removeprefix(f"not delegated to {words.label}: ")
        if where.removed:
            return f'<b style="color:{theme.MUTED}">removed</b> — {esc(reason)} (no op runs for it)'
        return f'<b style="color:{theme.WARN}">{words.cpu}</b> — {esc(reason)}'
    return esc(where.reason)


def target_section(judged: TargetResult | None, members: tuple[str, ...]) -> str:
    """The colouring target's section: where it runs and why, with its compiler's numbers."""
    title, pairs = target_rows(judged, members)
    return section(title, rows(pairs)) if pairs else ""


def try_html(fix: VpuFix | None) -> str:
    """The "Try it on the VPU" link of a CPU node whose cause a profile edit removes (T does the
    same): opens What-if with the edit made, ready to Apply."""
    if fix is None:
        return ""
    return (f'<a href="try:{esc(fix.node)}" style="color:{theme.ACCENT}; font-weight:600; '
            f'text-decoration:none">Try it on the VPU ▸</a> <span style="color:{theme.MUTED}">'
            f"({esc(fix.text)}; T)</span>")


def _partition(analysis: Analysis, node_id: str, source: str, fix: VpuFix | None = None,
               delegation: PartitionReport | None = None,
               targets: Mapping[str, TargetResult] | None = None) -> str:
    part = partition_report(analysis, source, delegation, targets)
    label = side_words(source).label
    pairs = [(label, placement_html(analysis, node_id, source, delegation, targets)), *_why_rows(part, node_id)]
    link = try_html(fix) if source == "simulated" and fix is not None and fix.node == node_id else ""
    if link:
        pairs.append(("what-if", link))
    for b in part.boundaries:
        if node_id in (b.src, b.dst):
            other = b.dst if b.src == node_id else b.src
            pairs.append(("boundary", f"{esc(boundary_text(b.direction, source))} with {node_link(other)}: "
                                      f"{b.bytes:,} bytes"))
    if source == SIMULATED and delegation is not None:
        pairs.append(("XNNPACK", placement_html(analysis, node_id, "xnnpack", delegation)))
    return section("Partition", rows(pairs))


def _why_rows(part, node_id: str) -> list[tuple[str, str]]:
    """The kernel an alias runs as, and for a CPU op its cause and every failing limit."""
    rows = []
    runs_as = part.aliases.get(node_id, "")
    if runs_as:
        rows.append(("kernel", esc(runs_as[0].upper() + runs_as[1:])))
    cpu = next((c for c in part.cpu_nodes if c.node == node_id), None)
    if cpu is None or part.source != "simulated":     # a target's reason is its own section
        return rows
    rows.append(("cause", f"<b>{esc(cpu.cause)}</b> — {esc(CAUSE_WORDS.get(cpu.cause, cpu.cause))}"))
    for f in cpu.limits:
        rows.append(("limit" if f is cpu.limits[0] else "", f'<span style="color:{theme.WARN}">✗</span> '
                     f'{esc(f.text)} <span style="color:{theme.MUTED}; font-family:{theme.MONO_CSS}">'
                     f'({esc(f.limit)})</span>'))
    return rows


def _violations(analysis, members) -> str:
    found = [v for v in analysis.violations if v.node in members]
    if not found:
        return section("VPU rules", f'<p style="color:{theme.OK}; margin:0">No violations on this node.</p>')
    rules = {r.rule.id: r.rule for r in analysis.rules}
    blocks = []
    for v in found:
        rule = rules.get(v.rule)
        title = f"{rule.constraint}. {rule.title}" if rule else v.rule
        values = "<br>".join(f"{esc(k)} = {esc(value_text(val))}" for k, val in v.values)
        where = f" (on {node_link(v.node)})" if v.node != members[0] else ""
        blocks.append(
            f'<p style="margin:6px 0 2px 0"><b style="color:{theme.DANGER}">✗ {esc(title)}</b>{where}</p>'
            f'<p style="margin:0 0 2px 12px">{esc(v.message)}</p>'
            + (f'<p style="margin:0 0 2px 12px; font-family:{theme.MONO_CSS}">{values}</p>' if values else "")
            + (f'<p style="margin:0 0 4px 12px; color:{theme.MUTED}">Why: {esc(rule.reason)}</p>' if rule else ""))
    return section(f"Violations ({len(found)})", "".join(blocks))


def _requant(analysis, node_id: str) -> str:
    site = next((r for r in analysis.requant if r.node == node_id), None)
    if site is None:
        return ""
    if site.shifts is not None:
        shifts = f"n = {esc(compact_ints(site.shifts))}"
    else:
        shifts = (f'<span style="color:{theme.DANGER}">no exact shift</span> — nearest n = '
                  f'{esc(compact_ints(site.nearest_shifts))}, max error {site.max_rel_error:.2%}')
    pairs = [("right shifts", shifts),
             ("range", f'<span style="color:{theme.DANGER}">outside the profile range</span>'
              if site.out_of_range else "within the profile range"),
             ("s_in", esc(scale_detail(site.s_in)) if site.s_in else ""),
             ("s_w", esc(scales_detail(site.s_w)) if site.s_w else ""),
             ("s_out", esc(scale_detail(site.s_out)) if site.s_out else "")]
    return section("Requantization (M = s_in·s_w / s_out = 2^-n)", rows(pairs))


def _accuracy(analysis, info) -> str:
    sqnr = analysis.layer_sqnr.get(info.name, info.sqnr_db)
    if sqnr is None:
        return ""
    return section("Accuracy", rows([("SQNR vs float", esc(db_on_samples(sqnr, analysis.accuracy_samples)))]))


def _measured(runtime: RuntimeReport | None, members) -> str:
    """Its time in the program run on this CPU (Run ▸ Run on this CPU), folded nodes included."""
    if runtime is None or runtime.refused:
        return ""
    times = [o for o in runtime.ops if o.node in members]
    if not times:
        return section("Measured on this CPU", rows([("time", esc("not timed (fused into a neighbour "
                                                                 "or removed while lowering)"))]))
    places = [f"XNNPACK delegate {o.delegate}" for o in times if o.delegate is not None]
    if any("::" in k for o in times for k in o.kernels):         # ExecuTorch's portable kernels
        places.append("portable kernels")
    where = ", ".join(dict.fromkeys(places))
    total, own = sum(o.total_us for o in times), sum(o.us for o in times)
    pairs = [("time", f"<b>{esc(time_text(total))}</b> " + esc(f"({time_text(own)} kernels + "
                                                              f"{time_text(total - own)} delegate overhead)")),
             ("ran in", esc(where) + f'<br><span style="color:{theme.MUTED}">'
                        + esc(", ".join(k for o in times for k in o.kernels)) + "</span>")]
    return section("Measured on this CPU", rows(pairs))


def _folded(analysis, gnode) -> str:
    if gnode is None or not gnode.folded:
        return ""
    items = []
    for name in gnode.folded:
        info = analysis.nodes.get(name)
        text = f"{esc(info.op) if info else ''} {esc(shape_text(info.shape)) if info and info.shape else ''}"
        items.append(f"{node_link(name)} <span style='color:{theme.MUTED}'>{text}</span>")
    return section(f"Folded parameters ({len(items)})", "<br>".join(items))


def _source(info) -> str:
    if not info.source:
        return ""
    return section("Source", f'<p style="margin:0; font-family:{theme.MONO_CSS}">{esc(info.source)}</p>')


def mac_share_html(s: Summary, violations: int) -> str:
    """"94.1 % of 2.5 MMAC", in red with "once its 117 rule violations are fixed" when broken
    rules keep the VPU from running it (the status bar's chip says the same)."""
    caveat = mac_share_caveat(s, violations)
    if not caveat:
        return f"<b>{esc(mac_share_text(s))}</b>"
    return f'<b style="color:{theme.DANGER}">{esc(mac_share_text(s))}</b> {esc(caveat)}'

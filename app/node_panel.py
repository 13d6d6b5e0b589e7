"""The node panel: everything the analysis knows about the selected node, or a model summary.

The HTML is produced by plain functions of (Analysis, GraphModel, node id) so it can be tested
without a window. Node names are links: clicking one selects that node in the graph.
"""
from __future__ import annotations

import html
import math

from PySide6.QtCore import QUrl, Signal
from PySide6.QtWidgets import QTextBrowser

from app import theme

_CAT_TEXT = {"vpu": "VPU", "cpu": "CPU fallback", "qdq": "Q/DQ", "param": "parameter", "io": "graph I/O"}


def esc(value) -> str:
    return html.escape(str(value))


def node_link(name: str) -> str:
    return f'<a href="node:{esc(name)}" style="color:{theme.ACCENT}; text-decoration:none">{esc(name)}</a>'


def pow2_text(value) -> str:
    """"0.03125" → "0.03125 = 2^-5" when the value is an exact power of two; else unchanged."""
    text = str(value)
    if "2^" in text:
        return text
    try:
        number = float(text)
    except ValueError:
        return text
    if number > 0 and math.isfinite(number):
        k = math.log2(number)
        if k == int(k):
            return f"{text} = 2^{int(k)}"
    return text


def _section(title: str, body: str) -> str:
    return (f'<p style="margin:16px 0 4px 0; color:{theme.MUTED}; font-size:9pt; font-weight:600">'
            f'{esc(title.upper())}</p>{body}')


def _rows(pairs) -> str:
    cells = "".join(f'<tr><td style="color:{theme.MUTED}; padding:2px 12px 2px 0" valign="top">{esc(k)}</td>'
                    f'<td style="padding:2px 0">{v}</td></tr>' for k, v in pairs if v not in (None, ""))
    return f'<table cellspacing="0" cellpadding="0">{cells}</table>'


def _badge(text: str, color: str) -> str:
    return (f'<span style="background:{color}; color:{theme.text_on(color)}; font-weight:600">'
            f'&nbsp;{esc(text)}&nbsp;</span>')


def compact_ints(values) -> str:
    """"7, 7, 8, 8, 8" → "7 ×2, 8 ×3" (counts per distinct value, in order of value)."""
    values = list(values)
    if len(values) <= 8:
        return ", ".join(str(v) for v in values)
    counts: dict[int, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return ", ".join(f"{v} ×{c}" for v, c in sorted(counts.items()))


def _scales_text(scales) -> str:
    if not scales:
        return ""
    if len(scales) == 1:
        return pow2_text(f"{scales[0]:.6g}")
    lo, hi = min(scales), max(scales)
    return f"{len(scales)} channels, {lo:.4g} … {hi:.4g}"


# -- summary (nothing selected) -----------------------------------------------------------------

def summary_html(analysis, model=None) -> str:
    part = analysis.partition
    n_violations = len(analysis.violations)
    head = (f'<h2 style="margin:0">{esc(analysis.model)}</h2>'
            f'<p style="color:{theme.MUTED}; margin-top:2px">{esc(analysis.quantizer.upper())} quantizer · '
            f'{"dynamic" if analysis.dynamic_batch else "static"} batch · profile {esc(part.profile)}</p>')
    facts = _rows([
        ("Graph nodes", f"{len(analysis.nodes)}" + (f" ({len(model.nodes)} shown)" if model else "")),
        ("VPU subgraphs", str(len(part.subgraphs))),
        ("CPU fallback nodes", _count_text(len(part.cpu_nodes), theme.WARN)),
        ("Boundary transfers", f"{len(part.boundaries)} edges, {part.transfer_bytes:,} bytes"),
        ("Rule violations", _count_text(n_violations, theme.DANGER)),
        ("SQNR (model output)", f"{analysis.sqnr_db:.1f} dB" if analysis.sqnr_db is not None else "—"),
        ("XNNPACK (real)", _delegation_summary(analysis.delegation)),
    ])
    rules = "".join(_rule_row(r) for r in analysis.rules)
    rules_table = f'<table cellspacing="0" cellpadding="3" width="100%">{rules}</table>'
    hint = (f'<p style="color:{theme.MUTED}; margin-top:14px">Click a node in the graph, or a row in '
            'the Violations / Partition tables, to see its operation, quantization parameters, '
            'partition decision, rule violations and shift counts here.<br>'
            '<b>F</b> fits the graph · <b>Ctrl+F</b> searches · drop a .py or .pt2 file to open it.</p>')
    return head + facts + _section("VPU rules", rules_table) + hint


def _delegation_summary(delegation) -> str:
    if delegation is None:
        return ""
    n = len(delegation.subgraphs)
    return (f"{n} delegate{'s' if n != 1 else ''}, "
            f"{_count_text(len(delegation.cpu_nodes), theme.WARN)} ops not delegated")


def _count_text(count: int, color: str) -> str:
    return f'<b style="color:{color}">{count}</b>' if count else f'<span style="color:{theme.OK}">0</span>'


def _rule_row(result) -> str:
    if not result.enabled:
        status = f'<span style="color:{theme.MUTED}">off</span>'
    elif result.violations:
        status = f'<b style="color:{theme.DANGER}">{result.violations} ✗</b>'
    else:
        status = f'<span style="color:{theme.OK}">✓</span>'
    return (f'<tr><td width="22" style="color:{theme.MUTED}">{result.rule.constraint}</td>'
            f'<td>{esc(result.rule.title)}</td><td align="right">{status}</td></tr>')


def running_html(model: str, quantizer: str) -> str:
    return (f'<h2 style="margin:0">{esc(model)}</h2><p style="color:{theme.MUTED}">'
            f'Quantizing with the {esc(quantizer.upper())} quantizer and checking the VPU rules…</p>'
            f'<p style="color:{theme.MUTED}">The graph appears as soon as the run finishes. '
            'Select a node to see its details here.</p>')


# -- one node ---------------------------------------------------------------------------------------

def node_html(analysis, model, node_id: str) -> str:
    from app.graph_view.info_html import group_html, shared_scale_html

    info = analysis.nodes.get(node_id)
    gnode = _graph_node(model, node_id)
    if info is None:
        return group_html(model, node_id) or f"<p>No information for node {esc(node_id)}.</p>"
    members = (node_id, *(gnode.folded if gnode else ()))
    source = model.meta.get("partition_source", "simulated") if model is not None else "simulated"
    parts = [_header(info, gnode, source), _operation(info), _quantization(analysis, info, members),
             _partition(analysis, node_id, gnode), _violations(analysis, members),
             _requant(analysis, node_id), shared_scale_html(analysis, node_id, model),
             _accuracy(analysis, info), _folded(analysis, gnode), _source(info)]
    return "".join(p for p in parts if p)


def _graph_node(model, node_id):
    if model is None:
        return None
    try:
        return model.node(node_id)
    except KeyError:
        return None


def _header(info, gnode, source: str = "simulated") -> str:
    category = gnode.category if gnode else ""
    color = theme.CATEGORY_COLORS.get(category, theme.MUTED)
    badge = _CAT_TEXT.get(category, category)
    if gnode is not None and gnode.subgraph is not None and category in ("vpu", "qdq", "param"):
        badge += f" · subgraph {gnode.subgraph}"
    if source == "xnnpack" and category in ("vpu", "cpu"):     # coloured by the real delegation
        badge = f"XNNPACK delegate {gnode.subgraph}" if category == "vpu" else "not delegated (CPU)"
    label = gnode.label if gnode else info.op
    warn = ""
    if gnode is not None and gnode.violations:
        warn = " " + _badge(f"{gnode.violations} violation{'s' if gnode.violations > 1 else ''}", theme.DANGER)
    return (f'<h2 style="margin:0">{esc(label)}</h2>'
            f'<p style="margin:2px 0 0 0; color:{theme.MUTED}">{esc(info.name)}</p>'
            f'<p style="margin:6px 0 0 0">{_badge(badge, color)}{warn}</p>')


def _breakable(text: str) -> str:
    """Long dotted op names may wrap after a dot rather than mid-word."""
    return esc(text).replace(".", ".\u200b")


def _operation(info) -> str:
    args = "<br>".join(esc(a) for a in info.args) if info.args else ""
    return _section("Operation", _rows([
        ("op", _breakable(info.op)), ("target", _breakable(info.target) if info.target != info.op else ""),
        ("kind", esc(info.kind)), ("shape", esc(info.shape)), ("dtype", esc(info.dtype)),
        ("arguments", f'<span style="font-family:monospace">{args}</span>' if args else ""),
        ("inputs", ", ".join(node_link(n) for n in info.inputs)),
        ("outputs", ", ".join(node_link(n) for n in info.outputs)),
    ]))


def _quantization(analysis, info, members) -> str:
    pairs = [(k, esc(pow2_text(v) if "scale" in k else v)) for k, v in info.qparams]
    for t in analysis.tensors:
        if t.node == info.name and info.qparams:      # its own qparams are listed above already
            if t.float_scales and t.float_scales != t.scales:
                pairs.append(("float scale (observer)", esc(_scales_text(t.float_scales))))
            continue
        if t.node in members or t.consumer == info.name:
            # an activation listed against an op is that op's output
            kind = "output" if t.kind == "activation" and t.node not in members else t.kind
            pairs.append((f"{kind} scale", esc(_scales_text(t.scales))))
            if t.float_scales and t.float_scales != t.scales:
                pairs.append((f"{kind} float scale", esc(_scales_text(t.float_scales))))
            zps = sorted(set(t.zero_points))
            pairs.append((f"{kind} zero point", esc(", ".join(str(z) for z in zps[:6]))))
            pairs.append((f"{kind} dtype", esc(t.dtype)))
    return _section("Quantization", _rows(pairs)) if pairs else ""


def _partition(analysis, node_id: str, gnode) -> str:
    part = analysis.partition
    assigned = part.assignment.get(node_id)
    cpu = next((c for c in part.cpu_nodes if c.node == node_id), None)
    if cpu is not None:
        decision = f'<b style="color:{theme.WARN}">CPU fallback</b> — {esc(cpu.reason)}'
    elif isinstance(assigned, int) and not isinstance(assigned, bool):
        decision = f'<b style="color:{theme.OK}">VPU</b>, subgraph {assigned}'
    elif gnode is not None and gnode.category in ("param", "io"):
        decision = "belongs to its consumer" if gnode.category == "param" else "graph input / output"
    else:
        decision = esc(assigned) if assigned is not None else "not partitioned"
    rows = [("VPU" if analysis.delegation is not None else "decision", decision)]
    for b in part.boundaries:
        if node_id in (b.src, b.dst):
            other = b.dst if b.src == node_id else b.src
            rows.append(("boundary", f"{esc(b.direction)} with {node_link(other)}: {b.bytes:,} bytes"))
    if analysis.delegation is not None:
        rows.append(("XNNPACK", _delegation_text(analysis.delegation, node_id, gnode)))
    return _section("Partition", _rows(rows))


def _delegation_text(delegation, node_id: str, gnode) -> str:
    """What ExecuTorch's XnnpackPartitioner really did with this node."""
    assigned = delegation.assignment.get(node_id)
    cpu = next((c for c in delegation.cpu_nodes if c.node == node_id), None)
    if cpu is not None:
        return f'<b style="color:{theme.WARN}">not delegated</b> — {esc(cpu.reason)}'
    if isinstance(assigned, int) and not isinstance(assigned, bool):
        return f'<b style="color:{theme.OK}">delegated</b>, XNNPACK delegate {assigned}'
    if gnode is not None and gnode.category in ("param", "io"):
        return "belongs to its consumer" if gnode.category == "param" else "graph input / output"
    return esc(assigned) if assigned is not None else "not lowered"


def _violations(analysis, members) -> str:
    found = [v for v in analysis.violations if v.node in members]
    if not found:
        return _section("VPU rules", f'<p style="color:{theme.OK}; margin:0">No violations on this node.</p>')
    rules = {r.rule.id: r.rule for r in analysis.rules}
    blocks = []
    for v in found:
        rule = rules.get(v.rule)
        title = f"{rule.constraint}. {rule.title}" if rule else v.rule
        values = "<br>".join(f"{esc(k)} = {esc(_fmt(val))}" for k, val in v.values)
        where = f" (on {node_link(v.node)})" if v.node != members[0] else ""
        blocks.append(
            f'<p style="margin:6px 0 2px 0"><b style="color:{theme.DANGER}">✗ {esc(title)}</b>{where}</p>'
            f'<p style="margin:0 0 2px 12px">{esc(v.message)}</p>'
            + (f'<p style="margin:0 0 2px 12px; font-family:monospace">{values}</p>' if values else "")
            + (f'<p style="margin:0 0 4px 12px; color:{theme.MUTED}">Why: {esc(rule.reason)}</p>' if rule else ""))
    return _section(f"Violations ({len(found)})", "".join(blocks))


def _fmt(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)) and len(value) > 4:
        return ", ".join(_fmt(v) for v in value[:4]) + f", … ({len(value)} values)"
    if isinstance(value, (list, tuple)):
        return ", ".join(_fmt(v) for v in value)
    return str(value)


def _requant(analysis, node_id: str) -> str:
    site = next((r for r in analysis.requant if r.node == node_id), None)
    if site is None:
        return ""
    if site.shifts is not None:
        shifts = f"n = {esc(compact_ints(site.shifts))}"
    else:
        shifts = (f'<span style="color:{theme.DANGER}">no exact shift</span> — nearest n = '
                  f'{esc(compact_ints(site.nearest_shifts))}, max error {site.max_rel_error:.2%}')
    rows = [("right shifts", shifts),
            ("range", f'<span style="color:{theme.DANGER}">outside the profile range</span>'
             if site.out_of_range else "within the profile range"),
            ("s_in", esc(pow2_text(f"{site.s_in:.6g}")) if site.s_in else ""),
            ("s_w", esc(_scales_text(site.s_w))), ("s_out", esc(pow2_text(f"{site.s_out:.6g}")) if site.s_out else "")]
    return _section("Requantization (M = s_in·s_w / s_out = 2^-n)", _rows(rows))


def _accuracy(analysis, info) -> str:
    sqnr = analysis.layer_sqnr.get(info.name, info.sqnr_db)
    if sqnr is None:
        return ""
    return _section("Accuracy", _rows([("SQNR vs float", f"{sqnr:.1f} dB")]))


def _folded(analysis, gnode) -> str:
    if gnode is None or not gnode.folded:
        return ""
    items = []
    for name in gnode.folded:
        info = analysis.nodes.get(name)
        text = f"{esc(info.op) if info else ''} {esc(info.shape) if info and info.shape else ''}"
        items.append(f"{esc(name)} <span style='color:{theme.MUTED}'>{text}</span>")
    return _section(f"Folded parameters ({len(items)})", "<br>".join(items))


def _source(info) -> str:
    if not info.source:
        return ""
    return _section("Source", f'<p style="margin:0; font-family:monospace">{esc(info.source)}</p>')


class NodePanel(QTextBrowser):
    """Read-only rich text; `node_link_clicked` fires for links to other nodes."""

    node_link_clicked = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self.anchorClicked.connect(self._on_anchor)
        self.document().setDocumentMargin(14)
        self.current_node: str | None = None
        self.setHtml(f'<h2>VPU Inspector</h2><p style="color:{theme.MUTED}">Starting…</p>')

    def show_summary(self, analysis, model=None) -> None:
        self.current_node = None
        self.setHtml(summary_html(analysis, model))

    def show_running(self, model: str, quantizer: str) -> None:
        if self.current_node is None:
            self.setHtml(running_html(model, quantizer))

    def show_node(self, analysis, model, node_id: str, prefix: str = "") -> None:
        """`prefix`: HTML shown above the node (compare mode: how it matches the other side)."""
        self.current_node = node_id
        self.setHtml(prefix + node_html(analysis, model, node_id))

    def _on_anchor(self, url: QUrl) -> None:
        text = url.toString()
        if text.startswith("node:"):
            self.node_link_clicked.emit(text[len("node:"):])

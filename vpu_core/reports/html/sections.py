"""Report sections about one analysis: summary, graph image, rules, partition."""
from __future__ import annotations

import base64
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vpu_core.compare import default_label, node_role, violation_owners
from vpu_core.formatting import db_text, human_bytes, node_label, quantizer_label, samples_text, value_text
from vpu_core.reports.html import style
from vpu_core.stages import TimingKey
from vpu_core.reports.html.html_kit import card, code, details, esc, facts, kpi, pill, table
from vpu_core.reports.summary_text import (CAUSE_WORDS, causes_text, human_macs, mac_share_caveat,
                                           mac_share_standing, no_weighted_op_sentence, poor_sqnr_sentence,
                                           share_text, weights_text)

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis, PartitionReport, RuleResult
    from vpu_core.targets.results import TargetResult

# the stages the HTML report times, in the order they run
SHOWN_TIMINGS: tuple[TimingKey, ...] = ("export", "import", "prepare", "calibrate", "convert", "analyze")
OPEN_LIMIT = 30        # violation groups up to this size start expanded


def _quantizer_title(name: str) -> str:
    """"xnnpack — ExecuTorch XNNPACKQuantizer": who made the graph, as its backend registered it."""
    from vpu_core.quantizers.registry import info, is_quantizer

    return f"{name} — {info(name).title}" if is_quantizer(name) else name


def op_count(a: Analysis) -> Counter:
    return Counter(node_role(info) for info in a.nodes.values())


def vpu_op_share(a: Analysis) -> tuple[int, int]:
    """(ops placed on the VPU, all compute ops)."""
    ops = [n for n, info in a.nodes.items() if node_role(info) == "op"]
    on_vpu = sum(1 for n in ops if _is_sub(a.partition.assignment.get(n)))
    return on_vpu, len(ops)


def _is_sub(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def rules_broken(a: Analysis) -> int:
    return sum(1 for r in a.rules if r.violations)


# -- summary ---------------------------------------------------------------------------------------

def summary_section(a: Analysis, tag: str = "") -> str:
    on_vpu, ops = vpu_op_share(a)
    share = f"{100.0 * on_vpu / ops:.0f}%" if ops else "—"
    p = a.partition
    tiles = "".join([
        *mac_share_tiles(a),
        kpi("Violations", str(len(a.violations)), f"{rules_broken(a)} of {len(a.rules)} rules broken",
            "bad" if a.violations else "good"),
        kpi("Ops on the VPU", share, f"{on_vpu} of {ops} ops", "vpu"),
        kpi("VPU subgraphs", str(len(p.subgraphs)), "connected VPU regions", "vpu"),
        kpi("CPU fallback", str(len(p.cpu_nodes)), "ops without a VPU kernel", "cpu" if p.cpu_nodes else ""),
        kpi("Boundary traffic", esc(human_bytes(p.transfer_bytes)), f"{len(p.boundaries)} boundary edges",
            "cpu" if p.boundaries else ""),
        kpi("SQNR end to end", esc(db_text(a.sqnr_db)),
            f"float vs quantized output · {esc(samples_text(a.accuracy_samples))}"),
    ])
    return card("summary", "Summary", f'<div class="kpis">{tiles}</div>' + no_weighted_op_html(a) + poor_sqnr_html(a)
                + facts(summary_facts(a)), tag=tag,
                lede="What happens to this model when it is quantized for the VPU, at a glance.")


def mac_share_tiles(a: Analysis) -> list[str]:
    """The lead tile: the share of the model's multiply-accumulates the VPU runs."""
    s = a.summary
    if s is None:
        return []
    value = share_text(s.vpu_mac_share) if s.macs_total else "—"
    caveat = mac_share_caveat(s, len(a.violations))
    sub = (f"of {esc(human_macs(s.macs_total))} · {esc(weights_text(s))}" if s.macs_total
           else "the model has no multiply-accumulate") + (f" · {esc(caveat)}" if caveat else "")
    tone = {"runs": "vpu", "low": "cpu", "blocked": "bad"}[mac_share_standing(s, len(a.violations))]
    return [kpi("MACs on the VPU", esc(value), sub, tone)]


def poor_sqnr_html(a: Analysis) -> str:
    """The one sentence a poor end-to-end SQNR owes ("" when it is fine or not measured)."""
    sentence = poor_sqnr_sentence(a.sqnr_db)
    return f'<p class="warnline">{esc(sentence)}</p>' if sentence else ""


def no_weighted_op_html(a: Analysis) -> str:
    """The one sentence a run owes when no conv / linear runs on the VPU ("" otherwise)."""
    sentence = no_weighted_op_sentence(a.summary)
    return f'<p class="warnline">{esc(sentence)}</p>' if sentence else ""


def summary_facts(a: Analysis) -> list[tuple[str, str]]:
    counts = op_count(a)
    nodes = (f"{len(a.nodes)} in total · {counts['op']} ops · {counts['qdq']} quantize/dequantize · "
             f"{counts['param']} parameters · {counts['io']} inputs/outputs")
    exact = sum(1 for s in a.requant if s.exact)
    bad_range = sum(1 for s in a.requant if s.out_of_range)
    t = a.timings_s
    total = sum(float(t.get(k, 0.0)) for k in SHOWN_TIMINGS)
    timings = " · ".join(f"{k} {float(t.get(k, 0.0)):.2f} s" for k in SHOWN_TIMINGS)
    return [
        ("Model", code(a.model)),
        ("Quantizer", esc(quantizer_label(a) if a.already_quantized else _quantizer_title(a.quantizer))),
        ("Batch mode", "dynamic batch (symbolic batch dimension)" if a.dynamic_batch else "static batch"),
        ("Hardware profile", code(a.partition.profile)),
        *((("CPU ops by cause", esc(causes_text(a.summary.cpu_ops_by_cause, short=False))),)
          if a.summary is not None else ()),
        ("Nodes", esc(nodes)),
        ("Requantization sites", esc(f"{len(a.requant)} sites · {exact} exact right shifts · "
                                     f"{bad_range} out of the shift range")),
        ("Timings", esc(f"{timings} · total {total:.2f} s")),
    ]


# -- graph -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class GraphImage:
    """A rendered graph: PNG bytes or SVG text, with the size to show it at (CSS px). `flat`:
    the same graph uncollapsed, when `data` is its collapsed picture and the flat one is still
    readable (None: too big to read as one picture)."""
    data: bytes | str
    width: float | None = None      # None: the image's own size
    height: float | None = None
    flat: GraphImage | None = None
    flat_nodes: int = 0             # nodes of the flat picture (said when it is left out)


def as_graph_image(image: GraphImage | bytes | str | None) -> GraphImage | None:
    if image is None or isinstance(image, GraphImage):
        return image
    return GraphImage(image)


MIN_SHOWN = 0.8        # of a graph picture's own size: its 11 px labels shown at ≥ 8.8 px


def image_tag(image: GraphImage | bytes | str | None, alt: str) -> str:
    """The image as an <img> with a data: URI (self-contained; SVG ids cannot clash with ours)."""
    image = as_graph_image(image)
    if image is None:
        return '<p class="muted">No graph image was rendered.</p>'
    if isinstance(image.data, str):
        data, mime = image.data.encode("utf-8"), "image/svg+xml"
    else:
        data, mime = bytes(image.data), "image/png"
    uri = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
    size = "".join(f' {k}="{round(v)}"' for k, v in (("width", image.width), ("height", image.height)) if v)
    if image.width:              # shrunk to its frame, but never below MIN_SHOWN: labels stay ≥ 9 px
        size += f' style="min-width:{round(MIN_SHOWN * image.width)}px"'
    return f'<img src="{uri}" alt="{esc(alt)}"{size}>'


def legend_html(side: str = "VPU", violations: bool = True) -> str:
    """The canvas' colour language (app/graph_view/style.py), for the images above, in the words
    of the target that colours them (`side`: "NPU"; `violations`: the VPU's rule badges shown)."""
    from vpu_core.graph import colours

    items = [f'<li><span class="sw" style="background:{colours.ACCELERATOR_FILL}"></span>on the {esc(side)} '
             '<span class="muted">(every partition one green, numbered when there are several)</span></li>']
    items += [f'<li><span class="sw" style="background:{color}"></span>{esc(name)}</li>'
              for name, color in style.GRAPH_LEGEND]
    items.append(f'<li><span class="sw" style="background:{colours.REMOVED_FILL};border:1px dashed #98a2b3">'
                 "</span>removed while lowering (runs nowhere)</li>")
    items.append(f'<li><span class="edge"></span>{esc(side)} ↔ CPU boundary edge</li>')
    if violations:
        items.append('<li><span class="badge">2</span>VPU rule violations on the node</li>')
    items.append('<li><span class="sharebar" style="width:22px"><span style="width:60%"></span></span>'
                 f' module group: share of its ops on the {esc(side)} | CPU (▸ closed box, ▾ open frame)</li>')
    return f'<ul class="legend vertical">{"".join(items)}</ul>'


def _name(a: Analysis, node: str) -> str:
    """A node as the window's tables name it ("albert_layer_groups.0.albert_layers.0.attention.query #2
    · linear", formatting.node_label), the fx name kept for its tooltip."""
    info = a.nodes.get(node)
    return node_label(info) if info is not None else node


def hotspots_html(a: Analysis, limit: int = 8) -> str:
    """The ops with the most violations (their weights' and output Q/DQ's counted with them)."""
    owners = violation_owners(a)
    counts = Counter(owners.get(v.node, v.node) for v in a.violations)
    if not counts:
        return '<p class="muted small">No violations anywhere in the graph.</p>'
    rows = [f'<li title="{esc(op)}"><span class="badge">{n}</span>{esc(_name(a, op)).replace(".", ".<wbr>")}</li>'
            for op, n in counts.most_common(limit)]
    more = len(counts) - limit
    tail = f'<li class="muted small">… and {more} more ops</li>' if more > 0 else ""
    return f'<ul class="legend vertical">{"".join(rows)}{tail}</ul>'


def graph_section(a: Analysis, image: GraphImage | bytes | str | None, b: Analysis | None = None,
                  image_b: GraphImage | bytes | str | None = None, primary: TargetResult | None = None) -> str:
    """The graph picture(s), its legend and what stands out: the VPU's worst violations, or under
    another primary target the ops it leaves on the CPU (the picture is coloured by it)."""
    vpu = primary is None or primary.target == "vpu"
    side_word = "VPU" if primary is None or primary.target == "vpu" else _side(primary)
    columns = [_graph_column(a, image, "side-a" if b is not None else "", primary)]
    if b is not None:
        columns.append(_graph_column(b, image_b, "side-b"))
    if primary is None or primary.target == "vpu":
        standout = (f'<h3>Most violations{" · " + esc(default_label(a)) if b else ""}</h3>{hotspots_html(a)}'
                    + (f'<h3>Most violations · {esc(default_label(b))}</h3>{hotspots_html(b)}' if b else ""))
    else:
        standout = f"<h3>On the CPU under {esc(primary.title)}</h3>{_cpu_list(a, primary)}"
    side = f'<aside class="graphside"><h3>Legend</h3>{legend_html(side_word, vpu)}{standout}</aside>'
    body = f'<div class="graphgrid cols{len(columns)}">{"".join(columns)}{side}</div>'
    badges = "; red badges count the VPU's rule violations" if vpu else ""
    return card("graph", "Quantized graph", body, lede=(
        "The converted Q/DQ graph, top to bottom, collapsed to its blocks (module groups): each box "
        f"shows its node count and a bar of the share of its ops on the {esc(side_word)} (green) and "
        "the CPU (amber); the table below lists them. Parameters are folded into the op that uses "
        f"them; colour says where each node runs{badges}."))


def _side(r: TargetResult) -> str:
    from vpu_core import targets

    return targets.info(r.target).side if r.target in targets.names() else r.title


def _cpu_list(a: Analysis, r: TargetResult, limit: int = 8) -> str:
    cpu = r.verdict.fallback_nodes
    if not cpu:
        return '<p class="muted small">No op falls back to the CPU.</p>'
    rows = [f'<li title="{esc(c.reason)}">{esc(_name(a, c.node)).replace(".", ".<wbr>")}</li>' for c in cpu[:limit]]
    tail = f'<li class="muted small">… and {len(cpu) - limit} more ops</li>' if len(cpu) > limit else ""
    return f'<ul class="legend vertical">{"".join(rows)}{tail}</ul>'


def _graph_column(a: Analysis, image, side_class: str, primary: TargetResult | None = None) -> str:
    from vpu_core.reports.html.blocks import blocks_html

    title = f'<h3 class="{side_class}">{esc(default_label(a))}</h3>' if side_class else ""
    image = as_graph_image(image)
    flat = ""
    if image is not None and image.flat is not None:
        flat = (f'<details class="flatgraph"><summary>The flat graph ({image.flat_nodes} nodes, every '
                f'Q/DQ node)</summary><div class="graphbox">{image_tag(image.flat, f"flat graph of {a.model}")}'
                "</div></details>")
    elif image is not None and image.flat_nodes:
        flat = (f'<p class="muted small">The flat graph ({image.flat_nodes} nodes) is too tall to read '
                "as one picture: open the model in the app, or <code>vpu-inspector render</code> it.</p>")
    return (f'<div>{title}<div class="graphbox">{image_tag(image, f"Q/DQ graph of {a.model}")}</div>'
            f"{flat}{blocks_html(a, primary)}</div>")


# -- rules -----------------------------------------------------------------------------------------

def rule_status(r: RuleResult) -> str:
    if not r.enabled:
        return pill("off in profile", "off")
    return pill(f"{r.violations} broken", "fail") if r.violations else pill("pass", "ok")


def rules_section(a: Analysis, tag: str = "") -> str:
    rows = [[esc(r.rule.constraint), esc(r.rule.title), code(r.rule.id), rule_status(r),
             esc(r.violations)] for r in a.rules]
    if a.partition_rule is not None:     # constraint 1, enforced by the partition: its ops on the CPU
        n, rule = len(a.partition.cpu_nodes), a.partition_rule
        rows.insert(0, [esc(rule.constraint), esc(rule.title), code(rule.id),
                        pill(f"{n} op{'s' if n != 1 else ''} on the CPU", "cpu") if n else pill("pass", "ok"),
                        esc("—")])
    body = table(["#", "Constraint", "Rule id", "Status", "Violations"], rows, numeric={4})
    groups = violation_groups(a)
    if groups:
        body += "<h3>Violations by rule</h3>" + groups
    else:
        body += '<p class="muted">The quantized graph satisfies every enabled rule.</p>'
    return card("rules", "Hardware rules", body, tag=tag, lede=(
        "Constraint 1 is the partition's (ops outside the VPU op list run on the CPU); constraints "
        "2–8 are checked on the converted Q/DQ graph only. Each violation names the node and the "
        "offending values; the op column shows which model op it belongs to."))


def violation_groups(a: Analysis) -> str:
    """One collapsible group per broken rule: the hardware reason, then every violation."""
    owners = violation_owners(a)
    return "".join(_rule_group(a, r, owners) for r in a.rules if r.violations)


def _rule_group(a: Analysis, r: RuleResult, owners: dict[str, str]) -> str:
    hits = [v for v in a.violations if v.rule == r.rule.id]
    rows = []
    for v in hits:
        op = owners.get(v.node, v.node)
        source = a.nodes[op].source if op in a.nodes else ""
        where = f'<div class="muted small">{esc(source)}</div>' if source else ""
        op_cell = where if op == v.node else code(op) + where   # no need to repeat the node
        values = ", ".join(f"{k} = {value_text(x, limit=6)}" for k, x in v.values)
        rows.append([code(v.node), op_cell, esc(v.message), f'<span class="small">{esc(values)}</span>'])
    body = (f'<div class="reason"><b>Why the hardware wants it:</b> {esc(r.rule.reason)}</div>'
            + table(["Node", "Op · module", "Violation", "Offending values"], rows,
                    row_classes=["violation"] * len(rows)))
    summary = (f'{pill(f"#{r.rule.constraint}", "rule")} {esc(r.rule.title)} '
               f'<span class="muted">— {len(hits)} violation{"s" if len(hits) != 1 else ""}</span>')
    return details(summary, body, open_=len(hits) <= OPEN_LIMIT, data={"rule": r.rule.id})


# -- partition -------------------------------------------------------------------------------------

def partition_section(a: Analysis, tag: str = "", delegation: PartitionReport | None = None) -> str:
    """The simulated partition, and the real XNNPACK `delegation` when it was computed."""
    body = partition_body(a, a.partition)
    if delegation is not None:
        body += "<h3>Real XNNPACK delegation (ExecuTorch)</h3>" + partition_body(a, delegation)
    return card("partition", "Partition", body, tag=tag, lede=(
        "Ops in the profile's VPU op list run on the VPU in connected subgraphs; every other op "
        "falls back to the CPU, and each edge between the two moves a tensor across."))


def partition_body(a: Analysis, p: PartitionReport) -> str:
    to_cpu = sum(b.bytes for b in p.boundaries if b.direction == "vpu->cpu")
    to_vpu = sum(b.bytes for b in p.boundaries if b.direction == "cpu->vpu")
    tiles = "".join([
        kpi("VPU subgraphs", str(len(p.subgraphs)), f"{sum(len(s.nodes) for s in p.subgraphs)} nodes", "vpu"),
        kpi("CPU nodes", str(len(p.cpu_nodes)), "fallback ops", "cpu" if p.cpu_nodes else ""),
        kpi("Boundary edges", str(len(p.boundaries)), "VPU ↔ CPU crossings"),
        kpi("VPU → CPU", esc(human_bytes(to_cpu)), "per inference"),
        kpi("CPU → VPU", esc(human_bytes(to_vpu)), "per inference"),
    ])
    parts = [f'<div class="kpis">{tiles}</div>', "<h3>VPU subgraphs</h3>",
             _collapsible(_subgraph_table(a, p), len(p.subgraphs), "subgraphs")]
    parts.append("<h3>CPU fallback</h3>")
    if p.cpu_nodes:
        rows = [[code(c.node), code(c.op), pill(CAUSE_WORDS.get(c.cause, c.cause), "cpu"),
                 esc(c.reason) + (f' <span class="muted">· {esc(c.runs_as)}</span>' if c.runs_as else "")]
                for c in p.cpu_nodes]
        parts.append(_collapsible(table(["Node", "Op", "Cause", "Why it falls back"], rows), len(rows),
                                  "CPU nodes"))
    else:
        parts.append('<p class="muted">Every op runs on the VPU.</p>')
    parts.append("<h3>Boundary edges</h3>")
    if p.boundaries:
        parts.append(_collapsible(_boundary_table(p), len(p.boundaries), "boundary edges"))
    else:
        parts.append('<p class="muted">No VPU ↔ CPU crossings.</p>')
    return "".join(parts)


def _collapsible(table_html: str, rows: int, what: str) -> str:
    """Long tables fold away (they print expanded)."""
    if rows <= OPEN_LIMIT:
        return table_html
    return details(f'{rows} {esc(what)} <span class="muted">— click to expand</span>', table_html)


def _subgraph_table(a: Analysis, p: PartitionReport) -> str:
    if not p.subgraphs:
        return '<p class="muted">No op runs on the VPU.</p>'
    rows = []
    for s in p.subgraphs:
        ops = [n for n in s.nodes if n in a.nodes and node_role(a.nodes[n]) == "op"]
        kinds = Counter(a.nodes[n].op.split(".", 1)[0] for n in ops)
        chips = "".join(f"<code>{esc(k)} ×{c}</code>" if c > 1 else code(k) for k, c in kinds.items())
        shade = style.GRAPH_VPU_SHADES[s.id % len(style.GRAPH_VPU_SHADES)]
        swatch = f'<span class="sw" style="background:{shade}"></span>'
        rows.append([f'<span class="sgcell">{swatch}{pill(f"sg {s.id}", "vpu")}</span>',
                     esc(len(s.nodes)), esc(len(ops)),
                     f'<div class="chips">{chips}</div>'])
    return table(["Subgraph", "Nodes", "Ops", "Op kinds"], rows, numeric={1, 2})


def _boundary_table(p: PartitionReport) -> str:
    rows = []
    for b in p.boundaries:
        kind = "cpu" if b.direction == "vpu->cpu" else "vpu"
        label = "VPU → CPU" if b.direction == "vpu->cpu" else "CPU → VPU"
        tensor = f"{list(b.shape)} {b.dtype}" if b.dtype else ""
        rows.append([pill(label, kind), code(b.src), code(b.dst), esc(tensor), esc(human_bytes(b.bytes))])
    total = ["Total", "", "", "", esc(human_bytes(p.transfer_bytes))]
    return table(["Direction", "From", "To", "Tensor", "Bytes"], rows, numeric={4}, total=total)


"""Model Explorer node-data files of what we compute, keyed by Model Explorer's node ids.

One file per overlay, in the single-graph form Model Explorer's node_data_builder.GraphNodeData
writes: {"name", "results": {node id: {"value", "bgColor"?, "textColor"?}}, "gradient"?}. A value
is a number, or the text Model Explorer shows for a categorical overlay (a placement, the rules a
node breaks). Colours are the canvas' own (vpu_core.graph.colours): each node's bgColor is what our
window paints it, so a metric keeps our scale (5th-95th percentile, vpu_core.graph.metrics) and
the gradient listed beside it is only Model Explorer's legend. Pure Python, no torch.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Sequence

from vpu_core.config import SIMULATED
from vpu_core.graph import colours
from vpu_core.graph.metrics import METRICS, MetricScale

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis, PartitionReport
    from vpu_core.graph.model import GraphNode
    from vpu_core.targets.results import TargetResult

Ids = Mapping[str, str]     # our node name -> Model Explorer node id (vpu_core.interop.node_ids)


@dataclass(frozen=True)
class NodeDataFile:
    """One overlay: written as `<stem>.json`."""

    stem: str                   # "placement_vpu", "sqnr", …
    title: str                  # GraphNodeData.name: "VPU placement"
    data: dict                  # the JSON object


def placement_text(node: GraphNode, accelerator: str, reasons: Mapping[str, str]) -> str:
    """What a placement overlay says of one node: "VPU partition 0", "CPU: softmax is not in …"."""
    if node.category == "vpu":
        return f"{accelerator} partition {node.subgraph if node.subgraph is not None else 0}"
    if node.category == "cpu":
        reason = reasons.get(node.id, "")
        return f"CPU: {reason}" if reason else "CPU"
    return {"qdq": "quantize / dequantize", "param": "parameter", "io": "graph input / output"}.get(
        node.category, node.category)


def cpu_reasons(analysis: Analysis, source: str, delegation: PartitionReport | None,
                targets: Mapping[str, TargetResult] | None) -> dict[str, str]:
    """node -> why it runs on the CPU under `source`: the verdict's reason, or for a node no verdict
    names (a getitem, a Q/DQ outside every subgraph) what the node panel says (graph.placement)."""
    from vpu_core.graph.build import partition_report
    from vpu_core.graph.placement import placement

    part = partition_report(analysis, source, delegation, targets)
    out = {c.node: c.reason for c in part.cpu_nodes}
    for name in analysis.nodes:
        if name not in out and not isinstance(part.assignment.get(name), int):
            where = placement(analysis, name, source, delegation, targets)
            if where.runs_on == "cpu" and where.reason:
                out[name] = where.reason
    return out


def category_fill(node: GraphNode) -> str:
    if node.category == "vpu":
        return colours.subgraph_fill(node.subgraph)
    return {"cpu": colours.CPU_FILL, "removed": colours.REMOVED_FILL, "qdq": colours.QDQ_FILL,
            "param": colours.PARAM_FILL, "io": colours.IO_FILL}.get(node.category, colours.QDQ_FILL)


ADDED = "added by torch.export when saving (not an op of our graph)"


def placement(analysis: Analysis, target: str, title: str, ids: Ids,
              delegation: PartitionReport | None = None,
              targets: Mapping[str, TargetResult] | None = None, added: Sequence[str] = ()) -> NodeDataFile:
    """Where `target` places every node (its verdict; "vpu": the simulated VPU partition), coloured
    as our canvas colours it, with the CPU reason as the text. `added`: the saved program's nodes
    that are none of ours (the dtype asserts torch.export inserts), named as such in Q/DQ grey."""
    from vpu_core.graph.build import build_graph_model
    from vpu_core.graph.legend import accelerator_word

    source = SIMULATED if target == "vpu" else target
    model = build_graph_model(analysis, fold_params=False, partition_source=source,
                              delegation=delegation, targets=targets)
    reasons = cpu_reasons(analysis, source, delegation, targets)
    from vpu_core import targets as registry

    known = target in registry.names()
    word = registry.info(target).side if known else accelerator_word(source)
    accelerator = word if word == title or not known else f"{title} {word}"   # "Ethos-U55-128 NPU", "XNNPACK"
    results = {}
    for node in model.nodes:
        if node.id in ids:
            fill = category_fill(node)
            results[ids[node.id]] = {"value": placement_text(node, accelerator, reasons), "bgColor": fill,
                                     "textColor": colours.text_on(fill)}
    for name in added:
        results[name] = {"value": ADDED, "bgColor": colours.QDQ_FILL, "textColor": colours.text_on(colours.QDQ_FILL)}
    return NodeDataFile(f"placement_{_stem(target)}", f"{title} placement", {"name": f"{title} placement",
                                                                            "results": results})


def violations(analysis: Analysis, ids: Ids) -> NodeDataFile:
    """The rules each node breaks ("pow2_scale, zero_point"), on the node the rule reports."""
    broken: dict[str, list[str]] = {}
    for v in analysis.violations:
        rules = broken.setdefault(v.node, [])
        if v.rule not in rules:
            rules.append(v.rule)
    results = {ids[n]: {"value": ", ".join(rules), "bgColor": colours.VIOLATION, "textColor": "#ffffff"}
               for n, rules in broken.items() if n in ids}
    return NodeDataFile("violations", "Rule violations", {"name": "Rule violations", "results": results})


def scales(analysis: Analysis, ids: Ids) -> NodeDataFile:
    """Each quantize / dequantize node's scale (per channel: the largest), on a neutral gradient."""
    values = {n: max(info.qparams.scales) for n, info in analysis.nodes.items()
              if info.qparams is not None and info.qparams.scales}
    results = {ids[n]: {"value": v} for n, v in values.items() if n in ids}
    return NodeDataFile("scales", "Scales", {"name": "Scales", "results": results,
                                             "gradient": _gradient(colours.gradient(True))})


def metric(key: str, values: Mapping[str, float], ids: Ids, stem: str = "", title: str = "") -> NodeDataFile:
    """A per-node metric (vpu_core.graph.metrics key), each node in our window's colour for it."""
    info = METRICS[key]
    title = title or info.title + (f" ({info.unit})" if info.unit else "")
    scale = MetricScale.of(key, values.values())
    neutral = info.better is None
    results = {}
    for name, value in values.items():
        if name in ids:
            fill = colours.gradient_hex(scale.fraction(value), neutral)
            results[ids[name]] = {"value": value, "bgColor": fill, "textColor": colours.text_on(fill)}
    stops = colours.gradient(neutral)   # worst end first; Model Explorer's runs from min to max
    return NodeDataFile(stem or key, title, {"name": title, "results": results,
                                             "gradient": _gradient(stops[::-1] if info.better == "low" else stops)})


def _gradient(stops: tuple[str, ...]) -> list[dict]:
    return [{"stop": round(i / (len(stops) - 1), 4), "bgColor": c} for i, c in enumerate(stops)]


def _stem(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)

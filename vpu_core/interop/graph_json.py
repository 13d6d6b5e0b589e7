"""Our folded, grouped view as a Model Explorer graph file (graph.json).

The JSON form Model Explorer's JSON loader reads for a `.json` model: one graph_builder
GraphCollection, {"label", "graphs": [Graph]}, each Graph {"id", "nodes": [GraphNode]}. Its nodes
are our display graph's (vpu_core.graph.build: parameters and their Q/DQ chains folded into the op
that reads them), each under its module groups as a Model Explorer namespace ("layer.0 (Block)/
attn (Attention)"), filled with our placement colour, and named by Model Explorer's own node ids
(vpu_core.interop.node_ids), so the node-data files written beside it name the same nodes.
Pure Python, no torch.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from vpu_core.config import SIMULATED
from vpu_core.graph import colours
from vpu_core.interop.node_data import category_fill, cpu_reasons, placement_text

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis, PartitionReport
    from vpu_core.targets.results import TargetResult

GRAPH_ID = "vpu_inspector"


def graph_collection(analysis: Analysis, ids: Mapping[str, str], target: str = "vpu", title: str = "VPU",
                     delegation: PartitionReport | None = None,
                     targets: Mapping[str, TargetResult] | None = None) -> dict:
    """The GraphCollection (as JSON) of `analysis` drawn as our window draws it by default, coloured
    by `target`'s placement."""
    from vpu_core.analysis.hierarchy import module_tree
    from vpu_core.graph.build import build_graph_model
    from vpu_core.graph.legend import accelerator_word

    source = SIMULATED if target == "vpu" else target
    model = build_graph_model(analysis, fold_params=True, partition_source=source,
                              delegation=delegation, targets=targets)
    reasons = cpu_reasons(analysis, source, delegation, targets)
    word = accelerator_word(source)
    accelerator = "VPU" if target == "vpu" else f"{title} {word}"
    tree = module_tree(analysis)
    me = dict(ids)

    def mid(name: str) -> str:
        return me.get(name, name)

    inputs: dict[str, list[str]] = {}
    for e in model.edges:
        inputs.setdefault(e.dst, []).append(e.src)
    nodes = []
    for node in model.nodes:
        fill = category_fill(node)
        attrs = [("placement", placement_text(node, accelerator, reasons)), ("detail", node.detail),
                 ("module", node.module), ("fx_name", node.id)]
        if node.violations:
            attrs.append(("violations", str(node.violations)))
        sqnr = analysis.layer_sqnr.get(node.id)
        if sqnr is not None:
            attrs.append(("sqnr_db", f"{sqnr:.1f}"))
        if node.folded:
            attrs.append(("folded", ", ".join(mid(f) for f in node.folded)))
        nodes.append({
            "id": mid(node.id), "label": node.label,
            "namespace": "/".join(tree.groups[p].label.replace("/", "∕") for p in tree.path_of(node.id)),
            "subgraphIds": [],
            "attrs": [{"key": k, "value": v} for k, v in attrs if v],
            "incomingEdges": [{"sourceNodeId": mid(src), "sourceNodeOutputId": "0", "targetNodeInputId": str(i)}
                              for i, src in enumerate(inputs.get(node.id, ()))],
            "outputsMetadata": [], "inputsMetadata": [],
            "style": {"backgroundColor": fill, "borderColor": colours.VIOLATION if node.violations else fill,
                      "hoveredBorderColor": "#c51162"},
        })
    return {"label": f"{analysis.model} · VPU Inspector · {title}", "graphs": [{"id": GRAPH_ID, "nodes": nodes}]}

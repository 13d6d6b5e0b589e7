"""Analysis → GraphModel: what the graph canvas paints, decided here so the view only draws.

Per node: a category (vpu / cpu / removed / qdq / param / io), the partition it belongs to, its
badge count, a short label ("conv2d") and a detail line ("16×8×16×16 int8"). Per edge: whether
it crosses an accelerator/CPU boundary.

The graph speaks for the target it is coloured by (its *primary* target): "vpu" reads "on that
target's accelerator", "cpu" "left on the CPU", and a node the target's lowering folded away is
"removed" (never a CPU op). The badges count what that target rejects: the VPU's rule violations
when the VPU colours the graph, else one per op the target leaves on the CPU (`meta["badges"]`
says which, so the legend and the panels word them).

Partition source: `partition_source="simulated"` colours by the VPU partition the core simulated
from the profile's op list; a target's name (vpu_core.targets: "xnnpack", "ethos-u55-128") colours
by that target's verdict: XNNPACK's real delegation is `delegation` (Inspection.attached.delegation),
any other target's is in `targets` (Inspection.targets: name -> TargetResult). Every verdict is a
PartitionReport of the same shape, so "vpu" then reads "on the target's accelerator"; a target's
estimate adds its per-node numbers to the metrics (Vela's NPU cycles).

Folding (Netron-style, on by default): parameters and constants, together with the Q/DQ chain
that turns them into the op's input (`_frozen_param → dequantize_per_channel`, its scale and
zero-point tensors), disappear into the op that uses them. Their violations are counted on that
op, and `meta["folded_into"]` maps every folded id to the node that shows it, so tables can still
jump to a weight's violation.

Pure Python on the analysis' plain values: no torch, no Qt.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from vpu_core.config import SIMULATED
from vpu_core.formatting import (dtype_short, module_name, op_label, quant_params_short, quantizer_label,
                                 shape_text)
from vpu_core.graph.model import Category, GraphEdge, GraphModel, GraphNode

if TYPE_CHECKING:  # importing vpu_core.analysis at run time would pull in torch
    from collections.abc import Iterable, Mapping

    from vpu_core.analysis.results import Analysis, NodeInfo
    from vpu_core.analysis.results import PartitionReport
    from vpu_core.targets.results import TargetResult

    Judged = Mapping[str, TargetResult]

_HIDDEN_OPS = ("_guards_fn",)      # torch.export's guard call: no data flows through it
_QDQ_PREFIX = "quantized_decomposed."


def build_graph_model(analysis: Analysis, fold_params: bool = True,
                      partition_source: str = SIMULATED, hide_qdq: bool = False,
                      measured_us: Mapping[str, float] | None = None,
                      delegation: PartitionReport | None = None,
                      targets: Judged | None = None) -> GraphModel:
    """The flat display graph; `hide_qdq` folds quantize → dequantize chains into their edges;
    `measured_us` (node -> µs, a run on this CPU: RuntimeReport.op_us) its "measured µs" metric;
    `delegation` the real XNNPACK delegation `partition_source="xnnpack"` colours by, `targets`
    the verdicts any other target's `partition_source` reads."""
    model = _build(analysis, fold_params, partition_source, measured_us or {}, delegation, targets or {})
    if hide_qdq:
        from vpu_core.graph.fold_qdq import fold_qdq

        model = fold_qdq(model, analysis)
    return model


def _build(analysis: Analysis, fold_params: bool, partition_source: str,
           measured_us: Mapping[str, float], delegation: PartitionReport | None, targets: Judged) -> GraphModel:
    part = partition_report(analysis, partition_source, delegation, targets)
    infos = {name: info for name, info in analysis.nodes.items() if not _hidden(info)}
    edges = _edges(analysis, infos)
    preds, succs = _adjacency(infos, edges)
    constant = _constant_nodes(infos, preds)
    owner = _fold_targets(infos, succs, constant)     # constant -> the op that consumes it
    home = owner if fold_params else {}
    assignment = dict(part.assignment)
    removed = {c.node for c in part.removed_nodes}      # folded away while lowering: runs nowhere
    cpu_names = {c.node for c in part.fallback_nodes}   # a node folded away while lowering is no CPU op
    vpu_rules = partition_source == SIMULATED
    counts = _violation_counts(analysis, home) if vpu_rules else \
        {n: 1 for n in cpu_names if n in infos and not _is_qdq(infos[n]) and infos[n].kind == "call_function"}

    folded: dict[str, list[str]] = {}
    for name in infos:                          # graph order
        if name in home:
            folded.setdefault(home[name], []).append(name)
    nodes = []
    for name, info in infos.items():
        if name in home:
            continue
        category = _category(info, name in constant, assignment.get(name), name in cpu_names, name in removed)
        dtype = display_dtype(info, category, [infos[u] for u in succs.get(name, ())])
        nodes.append(GraphNode(
            id=name, label=_label(info), category=category,
            detail=_detail(info, dtype),
            dtype=dtype,
            subgraph=_subgraph(name, category, assignment, owner),
            violations=counts.get(name, 0),
            is_param=name in constant and not fold_params,
            folded=tuple(folded.get(name, ())),
            module=module_name(info),
        ))
    shown = {n.id for n in nodes}
    graph_edges = _graph_edges(edges, shown, home, part.boundaries)
    title = f"{analysis.model} · {quantizer_label(analysis)}"
    if partition_source == "xnnpack":
        title += " · XNNPACK delegation"
    elif partition_source != SIMULATED:
        title += f" · {_target_title(partition_source, targets)}"
    return GraphModel(tuple(nodes), graph_edges, title=title,
                      meta={"folded_into": home, "fold_params": fold_params,
                            "partition_source": partition_source,
                            "badges": "violations" if vpu_rules else "cpu",
                            "scale_groups": analysis.scale_groups},
                      metrics=_display_metrics(analysis, home, shown, measured_us, targets.get(partition_source)))


def partition_report(analysis: Analysis, partition_source: str = SIMULATED,
                     delegation: PartitionReport | None = None, targets: Judged | None = None) -> PartitionReport:
    """The PartitionReport a graph is coloured by: the simulated VPU one (the analysis'), the real
    XNNPACK one (`delegation`, Inspection.attached.delegation), or the verdict of any target named
    `partition_source` (from `targets`, Inspection.targets). ValueError when that verdict is not
    there (the session judges the target first)."""
    if partition_source == SIMULATED:
        return analysis.partition
    judged = (targets or {}).get(partition_source)
    if judged is not None:
        return judged.verdict
    if partition_source == "xnnpack" and delegation is not None:
        return delegation
    raise ValueError(f"this result has no verdict of the {partition_source!r} target: ask the session to judge it")


def cpu_ops(part: PartitionReport) -> tuple:
    """The CpuNodes of ops that really run on the CPU (PartitionReport.fallback_nodes: the ones
    the target's lowering removed left out)."""
    return part.fallback_nodes


def _target_title(name: str, targets: Judged) -> str:
    judged = targets.get(name)
    return judged.title if judged is not None else name


def display_id(model: GraphModel, node: str) -> str:
    """The id under which `node` is drawn in `model` (itself, or the op it is folded into)."""
    return model.meta.get("folded_into", {}).get(node, node)


# -- structure ---------------------------------------------------------------------------------

def _hidden(info: NodeInfo) -> bool:
    return info.op in _HIDDEN_OPS or info.name in _HIDDEN_OPS


def _edges(analysis: Analysis, infos: dict) -> list[tuple[str, str]]:
    pairs = list(analysis.edges) or [(src, name) for name, info in infos.items() for src in info.inputs]
    seen, out = set(), []
    for src, dst in pairs:
        if src in infos and dst in infos and (src, dst) not in seen:
            seen.add((src, dst))
            out.append((src, dst))
    return out


def _adjacency(infos: dict, edges: list) -> tuple[dict, dict]:
    preds: dict[str, list[str]] = {n: [] for n in infos}
    succs: dict[str, list[str]] = {n: [] for n in infos}
    for src, dst in edges:
        preds[dst].append(src)
        succs[src].append(dst)
    return preds, succs


def _is_qdq(info: NodeInfo) -> bool:
    return info.op.startswith(_QDQ_PREFIX) and "quantize" in info.op


def _constant_nodes(infos: dict, preds: dict) -> set[str]:
    """Parameters/constants and every Q/DQ node computed only from them (graph order)."""
    constant: set[str] = set()
    for name, info in infos.items():
        if info.kind == "get_attr":
            constant.add(name)
        elif _is_qdq(info) and preds[name] and all(p in constant for p in preds[name]):
            constant.add(name)
    return constant


def _fold_targets(infos: dict, succs: dict, constant: set[str]) -> dict[str, str]:
    """Each constant → the first non-constant op that (through other constants) consumes it."""
    home: dict[str, str] = {}
    order = {name: i for i, name in enumerate(infos)}
    for name in reversed(list(infos)):          # consumers come later in graph order
        if name not in constant:
            continue
        found = [home.get(s, s if s not in constant else None) for s in succs[name]]
        targets = [t for t in found if t is not None and infos[t].kind != "output"]
        if targets:
            home[name] = min(targets, key=order.__getitem__)
    return home


def _violation_counts(analysis: Analysis, home: dict) -> dict[str, int]:
    counts: dict[str, int] = {}
    for v in analysis.violations:
        node = home.get(v.node, v.node)
        counts[node] = counts.get(node, 0) + 1
    return counts


# -- classification ----------------------------------------------------------------------------

def _category(info: NodeInfo, is_constant: bool, assigned, is_cpu: bool, removed: bool = False) -> Category:
    if info.kind in ("placeholder", "output"):
        return "io"
    if info.kind == "get_attr":
        return "param"
    if _is_qdq(info):
        return "qdq"
    if is_constant:
        return "param"
    if removed:                 # runs nowhere, even when the lowering folded it inside a partition
        return "removed"
    if _is_subgraph_id(assigned) and not is_cpu:
        return "vpu"
    return "cpu"


def _subgraph(name: str, category: Category, assignment: dict, owner: dict) -> int | None:
    sub = assignment.get(name)
    if category in ("param", "qdq") and name in owner and not _is_subgraph_id(sub):
        sub = assignment.get(owner[name])       # a parameter belongs to its consumer
    return sub if category != "cpu" and _is_subgraph_id(sub) else None


def _is_subgraph_id(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _graph_edges(edges: list, shown: set[str], home: dict, boundaries) -> tuple[GraphEdge, ...]:
    """Displayed edges; the partition's boundary edges keep their direction (a boundary on a
    folded parameter is drawn on the edge into the op that shows it)."""
    marked: dict = {}
    nbytes: dict = {}
    for b in boundaries:
        key = (home.get(b.src, b.src), home.get(b.dst, b.dst))
        marked.setdefault(key, b.direction)
        nbytes[key] = nbytes.get(key, 0) + b.bytes
    out = []
    for src, dst in edges:
        if src in shown and dst in shown:
            out.append(GraphEdge(src, dst, marked.get((src, dst)), nbytes.get((src, dst), 0)))
    return tuple(out)


def _display_metrics(analysis: Analysis, home: dict, shown: set[str], measured_us: Mapping[str, float],
                     judged: TargetResult | None) -> dict:
    """Per-node metrics keyed by the id that shows each node (a folded weight's on its op)."""
    from vpu_core.graph.metrics import node_metrics

    out = {}
    for key, values in node_metrics(analysis, measured_us, judged).items():
        by_id: dict[str, float] = {}
        for name, value in values.items():
            nid = home.get(name, name)
            if nid in shown:
                by_id[nid] = max(by_id.get(nid, value), value) if key != "sqnr" else value
        out[key] = by_id
    return out


# -- text ------------------------------------------------------------------------------------------

def _label(info: NodeInfo) -> str:
    if info.kind == "placeholder":
        return info.name
    if info.kind == "output":
        return "output"
    if info.kind == "get_attr":
        return info.target.rsplit(".", 1)[-1] if info.target else info.name
    return op_label(info.op)


def _detail(info: NodeInfo, dtype: str) -> str:
    if info.kind == "output":
        return ""
    if info.qparams is not None:
        return quant_params_short(info.qparams)
    return " ".join(part for part in (shape_text(info.shape), dtype) if part)


def display_dtype(info: NodeInfo, category: str, users: Iterable[NodeInfo]) -> str:
    """The dtype a node's box and its panel both state: where its output really lives.

    A VPU op requantizes its result on the VPU: the dtype of the quantize after it (int8). A VPU
    op with no quantize after it is fused with its successor (conv → relu): its output never
    exists as a tensor, so no dtype. Anything else, a CPU op above all, computes in its own
    dtype (a CPU gelu is fp32 even when a quantize follows it for the next VPU op)."""
    if info.kind == "output":
        return ""
    if info.qparams is not None:
        return info.qparams.dtype
    if category == "vpu":
        for u in users:
            if u.qparams is not None and _label(u) == "quantize":
                return u.qparams.dtype
        return ""
    return dtype_short(info.dtype)

"""The predicted partition: the exported float graph, coloured before any observer runs.

What the user asks first — what is this graph, which ops fall back, where are the boundaries —
needs only torch.export and the hardware profile: every op's ATen name, its dtypes and shapes,
and the module hierarchy are known once export finishes. `predict` turns the float graph into an
`Analysis` marked `predicted=True` (no rules checked, no qparams, no SQNR) that the window draws
while PT2E prepares, calibrates and converts in the background; the quantized analysis then
replaces it under the same node ids, since prepare and convert keep the names of the ops they
quantize and only add Q/DQ nodes around them.

Two things the quantizer does are mirrored so ids and sides match:
- conv + batch norm: prepare_pt2e folds a batch norm into the conv before it; the prediction
  drops that batch norm too (its readers read the conv);
- which ops may run on the VPU: `vpu_core.analysis.verdict.op_verdicts` — the op list,
  dtypes and per-op limits (kernel sizes, strides, channels, SRAM) read from the float graph —
  the same verdicts the quantized partition gives, except for ops a quantizer leaves in float.
The subgraphs come from the same partitioner as the quantized graph's (vpu_core.analysis.partition).

`prediction_changes(predicted, final)` lists the ops whose side differs, each with the reason the
final partition gives: the window shows them as such.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from vpu_core.analysis.results import Analysis, PartitionReport, PredictionChange

if TYPE_CHECKING:
    from torch.fx import GraphModule, Node

    from vpu_core.analysis.qgraph import QGraph
    from vpu_core.config import RunConfig
    from vpu_core.hardware.profile import HardwareProfile

PREDICTED_REASON = "predicted from the float graph: quantizing…"
GONE = "not in the quantized graph: PT2E folded it away (a constant computation, a weight norm)"
_BATCH_NORMS = ("batch_norm", "_native_batch_norm_legit_no_training")
_CONVS = ("conv1d", "conv2d", "conv3d", "convolution", "linear")   # prepare folds a batch norm into these


def predict(float_gm: GraphModule, profile: HardwareProfile, name: str, config: RunConfig) -> Analysis:
    """The predicted Analysis of an exported float graph (see the module docstring)."""
    from vpu_core.analysis.analyzer import _has_symbols, graph_inputs
    from vpu_core.analysis.nodes import edges, node_infos
    from vpu_core.analysis.partition import OP_LIST_RULE
    from vpu_core.analysis.qgraph import QGraph

    start = time.perf_counter()
    g = QGraph(_without_folded_batch_norms(float_gm), profile)
    part = _predicted_partition(g)
    return Analysis(
        model=name, quantizer=config.quantizer,
        dynamic_batch=bool(config.dynamic_batch or _has_symbols(g)),
        rules=(), violations=(), partition=part, requant=(), tensors=(), sqnr_db=None,
        sqnr_reason=PREDICTED_REASON, nodes=node_infos(g, {}), edges=edges(g),
        timings_s={"predict": time.perf_counter() - start}, inputs=graph_inputs(g),
        partition_rule=OP_LIST_RULE, predicted=True)


def _predicted_partition(g: QGraph) -> PartitionReport:
    """The verdict of every op from the float graph alone (docs/spec.md, "Which ops run on the
    VPU": op list, dtypes, per-op limits; vpu_core.analysis.verdict.op_verdicts), grouped by the
    quantized graph's own partitioner."""
    from vpu_core.analysis.partition import partition_by
    from vpu_core.analysis.verdict import op_verdicts

    return partition_by(g, op_verdicts(g), source="predicted")


def _without_folded_batch_norms(gm: GraphModule) -> GraphModule:
    """`gm` with every batch norm that prepare_pt2e folds into the conv before it removed (its
    readers read the conv). A new GraphModule on a copy of the graph: the exported one, cached and
    quantized next, is not touched; parameters are shared, not copied."""
    from torch.fx import Graph, GraphModule

    from vpu_core.fx_utils import op_name

    folded = [n for n in gm.graph.nodes
              if n.op == "call_function" and op_name(n).split(".")[0] in _BATCH_NORMS
              and n.args and getattr(n.args[0], "op", "") == "call_function"
              and op_name(n.args[0]).split(".")[0] in _CONVS and len(n.args[0].users) == 1]
    if not folded:
        return gm
    graph = Graph()
    graph.output(graph.graph_copy(gm.graph, {}))
    names = {n.name for n in folded}
    for node in list(graph.nodes):
        if node.name in names:
            _bypass(node)
    return GraphModule(gm, graph)


def _bypass(bn: Node) -> None:
    """Readers of `bn` (or of its tuple's first item) read the conv instead; `bn` is then dead."""
    conv = bn.args[0]
    for user in list(bn.users):
        if getattr(user.target, "__name__", "") == "getitem":
            if user.args[1] == 0:
                user.replace_all_uses_with(conv)
            if not user.users:
                bn.graph.erase_node(user)
        else:
            user.replace_input_with(bn, conv)
    if not bn.users:
        bn.graph.erase_node(bn)


def prediction_changes(predicted: Analysis, final: Analysis) -> tuple[PredictionChange, ...]:
    """The ops of the predicted graph whose side (VPU / CPU) the quantized analysis changed, or
    that it no longer has, each with the final partition's reason. Empty: the prediction held."""
    final_cpu = {c.node: c.reason for c in final.partition.cpu_nodes}
    final_where = final.partition.assignment
    out = []
    for c in predicted.partition.cpu_nodes:          # predicted CPU ops
        where = final_where.get(c.node)
        if where is None:
            out.append(PredictionChange(c.node, "cpu", "", GONE))
        elif where != "cpu":
            out.append(PredictionChange(c.node, "cpu", "vpu", "joined a VPU subgraph in the quantized graph"))
    predicted_cpu = {c.node for c in predicted.partition.cpu_nodes}
    for name, where in predicted.partition.assignment.items():
        info = predicted.nodes.get(name)
        if where == "cpu" or info is None or info.kind != "call_function" or name in predicted_cpu:
            continue
        if name not in final_where:
            out.append(PredictionChange(name, "vpu", "", GONE))
        elif final_where[name] == "cpu" and name in final_cpu:
            out.append(PredictionChange(name, "vpu", "cpu", final_cpu[name]))
    return tuple(out)

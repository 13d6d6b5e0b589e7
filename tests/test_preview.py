"""The first graph while PT2E quantizes: the predicted partition of the exported float graph
(vpu_core.analysis.predicted, vpu_core.preview), then the quantized analysis under the same ids.
That the prediction comes before torchao is imported is checked in a fresh process by
test_benchmark.py (the first-graph probe)."""
from vpu_core.analysis.predicted import prediction_changes
from vpu_core.analysis.results import CpuNode
from vpu_core.config import RunConfig, ViewOptions
from vpu_core.graph.build import build_graph_model
from vpu_core.session import Session


def test_the_prediction_comes_first_and_the_quantized_graph_keeps_its_ids():
    session, previews = Session(disk_cache=False), []
    config = RunConfig(model="resnet8", calib_batches=1)
    final = session.inspect(config, ViewOptions(), preview=previews.append)
    (first,) = previews
    p = first.analysis
    assert p.predicted and not final.analysis.predicted
    assert p.violations == () and p.tensors == () and p.sqnr_db is None and "quantizing" in p.sqnr_reason
    assert p.partition.source == "predicted" and len(p.partition.subgraphs) == 1      # all on the VPU
    # batch norms are folded into their convs, as prepare does: the ops are the final graph's
    ops = {n.id: n.category for n in first.graph.model.nodes if n.category in ("vpu", "cpu")}
    final_ops = {n.id: n.category for n in final.graph.model.nodes if n.category in ("vpu", "cpu")}
    assert ops == final_ops and not any("batch_norm" in n for n in ops)
    assert prediction_changes(p, final.analysis) == ()
    assert {n.module for n in first.graph.model.nodes} <= {n.module for n in final.graph.model.nodes}
    again = session.inspect(config, ViewOptions(), preview=previews.append)
    assert len(previews) == 1 and again.analysis == final.analysis   # remembered: the final at once


def test_transformer_prediction_matches_its_cpu_fallbacks():
    session, previews = Session(disk_cache=False), []
    final = session.inspect(RunConfig(model="transformer", calib_batches=1), view=None,
                            preview=previews.append).analysis
    p = previews[0].analysis
    assert previews[0].graph is None                       # no view asked for: nothing laid out
    assert [c.node for c in p.partition.cpu_nodes] == [c.node for c in final.partition.cpu_nodes]
    assert [c.reason for c in p.partition.cpu_nodes] == [c.reason for c in final.partition.cpu_nodes]
    assert len(p.partition.subgraphs) == len(final.partition.subgraphs) > 1
    assert prediction_changes(p, final) == ()


def test_a_changed_side_is_listed_with_the_final_reason(analysis):
    import dataclasses

    final = analysis("transformer")
    moved = next(n for n, side in final.partition.assignment.items()
                 if side != "cpu" and final.nodes[n].op.startswith("linear"))
    cpu = (*final.partition.cpu_nodes, CpuNode(moved, "linear.default", "linear: in_features 512 > 256"))
    assignment = {**final.partition.assignment, moved: "cpu"}
    later = dataclasses.replace(final, partition=dataclasses.replace(
        final.partition, cpu_nodes=cpu, assignment=assignment))
    (change,) = prediction_changes(final, later)
    assert (change.node, change.predicted, change.final, change.reason) == (
        moved, "vpu", "cpu", "linear: in_features 512 > 256")
    assert build_graph_model(later).node(moved).category == "cpu"

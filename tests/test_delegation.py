"""Real ExecuTorch XNNPACK delegation mapped back to the original node names (slow: real lowering)."""
from pathlib import Path

import pytest

from vpu_core.analysis import analyze
from vpu_core.targets.xnnpack.delegation import lower_xnnpack, timed_xnnpack_delegation, xnnpack_delegation
from vpu_core.analysis.qgraph import QGraph
from vpu_core.targets.xnnpack.lowering import lower_program
from vpu_core.whatif.op_candidates import op_candidates

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def resnet8_lowered(run):
    qm = run("resnet8", "xnnpack")
    lowered = lower_xnnpack(qm)  # lowered once, shared by ExecuTorch's accounting and ours
    return qm, lowered.lowered_module(), xnnpack_delegation(qm, lowered=lowered)


def test_report_agrees_with_executorch_delegation_info(resnet8_lowered):
    from executorch.devtools.backend_debug import get_delegation_info

    qm, lowered, report = resnet8_lowered
    info = get_delegation_info(lowered)
    assert report.source == "xnnpack"
    assert report.lowered_counts == {"delegated_subgraphs": info.num_delegated_subgraphs,
                                     "delegated_nodes": info.num_delegated_nodes,
                                     "non_delegated_nodes": info.num_non_delegated_nodes}
    assert len(report.subgraphs) == info.num_delegated_subgraphs
    # Per op type: the original conv / linear / add nodes the report puts in a delegate are as
    # many as ExecuTorch's delegated nodes of that op, and none stayed on a portable kernel.
    by_op = info.delegation_by_operator
    for original, lowered_op in (("conv2d", "aten_convolution_default"), ("linear", "aten_linear_default"),
                                 ("add", "aten_add_tensor")):
        ours = [n for n, side in report.assignment.items()
                if side != "cpu" and n.rstrip("_0123456789") == original]
        assert len(ours) == by_op[lowered_op].delegated
        assert by_op[lowered_op].non_delegated == 0
    assert report.cpu_nodes == ()


def test_delegation_report_has_the_partition_shape(resnet8_lowered, partition_is_sound):
    qm, _lowered, report = resnet8_lowered
    partition_is_sound(qm.converted, report)
    assert report.boundaries[0].src == "x" and report.boundaries[0].direction == "cpu->vpu"


PROBE = str(Path(__file__).parent / "models" / "delegation_probe.py")


def test_vpu_graph_delegates_through_the_runtimes_lowering_and_every_cpu_op_says_why(run):
    # under the VPU quantizer the overlay once crashed ExecuTorch's ConvertToLinearPass on a
    # 3-D linear (DistilBERT, DeiT, CLIP) and XNNPACK took no conv, with no reason given.
    qm = run(PROBE)
    base = analyze(qm)
    assert not hasattr(base, "delegation")                # beside the analysis, only when asked
    lowered = lower_xnnpack(qm)
    assert lowered.folded_biases == 2                     # the runtime's rewrite: int32 biases as float
    d, timings = timed_xnnpack_delegation(qm, lower=lambda _qm: lowered)
    assert d.source == "xnnpack" and base.partition.source == "simulated" and "xnnpack_delegation" in timings
    assert {d.assignment[n] for n in ("conv1d", "transpose", "linear", "relu", "add")} == {0}
    why = {c.node: c for c in d.cpu_nodes}
    assert set(why) == {"embedding", "layer_norm", "add_1"}
    assert {why[n].cause for n in ("embedding", "layer_norm")} == {"no_kernel"}
    assert dict(why["layer_norm"].detail)["lowered_ops"] == ("native_layer_norm.default",)
    assert why["layer_norm"].reason == ("not delegated: XNNPACK has no kernel for native_layer_norm.default "
                                        "(XnnpackPartitioner has no config for it)")
    add = dict(why["add_1"].detail)
    assert why["add_1"].cause == "dtype" and (add["config"], add["check"], add["dtypes"]) == \
        ("AddConfig", "invalid dtype", ("int64",))
    assert why["add_1"].reason == "not delegated: XNNPACK's AddConfig rejected add.Tensor: invalid dtype (int64)"
    # next kernel: the int64 add is no candidate, nor the embedding, which is outside
    # the op list but reads int64 ids, so adding it would move nothing
    candidates = op_candidates(QGraph(qm.converted, qm.profile), base.partition)
    assert {c.op: c.nodes_moved for c in candidates} == {"transpose.int": 1, "layer_norm.default": 1}
    assert {c.node for c in base.partition.cpu_nodes} == {"transpose", "embedding", "layer_norm", "add_1"}
    # the runtime emits this very lowering: its one delegate runs the overlay's delegate-0 ops
    program = lower_program(qm, edge=lowered)
    (delegate,) = program.op_map.delegates
    assert {"conv1d", "linear"} <= {n for _t, n in delegate.xnodes}
    assert program.portable_ops == ("aten::add.out", "aten::embedding.out", "aten::native_layer_norm.out")

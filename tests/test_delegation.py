"""Real ExecuTorch XNNPACK delegation mapped back to the original node names (slow: real lowering)."""
import pytest

from vpu_core.analysis import analyze
from vpu_core.analysis.delegation import lower_xnnpack, xnnpack_delegation

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def resnet8_lowered(run):
    qm = run("resnet8", "xnnpack")
    lowered = lower_xnnpack(qm)  # lowered once, shared by ExecuTorch's accounting and ours
    return qm, lowered, xnnpack_delegation(qm, lowered=lowered)


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


def test_analyze_reports_delegation_only_when_asked(run):
    qm = run("conv_relu", "xnnpack")
    assert analyze(qm).delegation is None
    a = analyze(qm, xnnpack_delegation=True)
    assert a.delegation.source == "xnnpack" and a.partition.source == "simulated"
    assert {a.delegation.assignment[n] for n in ("conv2d", "relu")} == {0}
    assert "xnnpack_delegation" in a.timings_s

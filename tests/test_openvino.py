"""The OpenVINO target, end to end with the real NNCF, ExecuTorch OpenVINO backend and runtime:
quantize ResNet-8 with NNCF, delegate it whole, run it here, export a .pte ExecuTorch reads back;
an op OpenVINO cannot convert (tests/models/openvino_probe.py) is a CPU op with its reason. The
real runs are slow (NNCF and OpenVINO's compiler: 5-40 s each, the latter on a loaded machine)
and skipped when the `openvino` extra is not installed; the refusal sentence is tested either way."""
from __future__ import annotations

import dataclasses
import importlib.util

import pytest

from vpu_core import targets
from vpu_core.config import RunConfig
from vpu_core.errors import InspectorError
from vpu_core.quantizers import QUANTIZERS, registry

INSTALLED = all(importlib.util.find_spec(m) is not None for m in ("openvino", "nncf"))
needs_openvino = pytest.mark.skipif(not INSTALLED, reason="the openvino extra (openvino, nncf) is not installed")
RESNET8 = RunConfig(model="resnet8", quantizer="openvino", calib_batches=2)


def test_the_openvino_package_registers_its_target_and_its_quantizer():
    assert "openvino" in QUANTIZERS and "openvino" in targets.names()
    assert targets.info("openvino").quantizer == "openvino"
    assert not registry.info("openvino").replays          # NNCF quantizes in one call
    assert registry.info("openvino").offers.changes == ("keep_float",)


def test_without_the_extra_choosing_it_is_one_sentence_naming_the_extra():
    gone = (("no_such_module_for_this_test", "openvino"),)
    target = dataclasses.replace(targets.info("openvino"), requires=gone)
    assert target.unavailable() == ("The OpenVINO target needs openvino: install them with "
                                    "pip install 'vpu-inspector[openvino]'.")
    quantizer = dataclasses.replace(registry.info("openvino"), requires=gone)
    with pytest.raises(InspectorError, match=r"^The openvino quantizer needs openvino: install them with "
                       r"pip install 'vpu-inspector\[openvino\]'\.$"):
        quantizer.check_available()


def test_it_judges_openvino_graphs_only_before_torch():
    with pytest.raises(InspectorError, match="judges graphs of the openvino quantizer, not xnnpack: quantize "
                                             "with --quantizer openvino"):
        targets.check_target("openvino", "xnnpack")


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    from vpu_core.session import Session

    return Session(cache_dir=tmp_path_factory.mktemp("cache"))


@needs_openvino
@pytest.mark.slow
def test_nncf_quantizes_resnet8_into_a_qdq_graph_the_analysis_reads(session):
    analysis = session.analysis(RESNET8)
    qm = session.quantized(RESNET8)
    weights = [n for n in qm.converted.graph.nodes if "quantize_per_channel" in str(n.target)]
    assert len(weights) == 2 * 10                      # every conv / linear weight: quantize → dequantize
    assert analysis.sqnr_db is not None and analysis.sqnr_db > 25      # measured 33.1 dB on 8 held-aside calls
    assert qm.timings.get("prepare") is None           # no PT2E prepare: NNCF calibrates and converts in one call


@needs_openvino
@pytest.mark.slow
def test_openvino_delegates_resnet8_whole(session):
    result = session.target(RESNET8, "openvino")
    verdict = result.verdict
    assert verdict.source == "openvino" and len(verdict.subgraphs) == 1
    assert verdict.cpu_nodes == () and verdict.lowered_counts["delegated_subgraphs"] == 1
    assert verdict.lowered_counts["non_delegated_nodes"] == 0
    assert {"conv2d.default", "linear.default", "add.Tensor"} <= set(verdict.vpu_ops)


@needs_openvino
@pytest.mark.slow
def test_an_op_openvino_cannot_convert_is_a_cpu_op_with_its_reason_between_two_partitions(session):
    probe = RunConfig(model="tests/models/openvino_probe.py", quantizer="openvino", calib_batches=2)
    verdict = session.target(probe, "openvino").verdict
    assert len(verdict.subgraphs) == 2 and verdict.lowered_counts["non_delegated_nodes"] == 1
    (atan2,) = verdict.cpu_nodes
    assert (atan2.node, atan2.cause) == ("atan2", "unsupported")
    assert atan2.reason == ("not delegated to OpenVINO: its PyTorch frontend has no conversion for "
                            "aten.atan2.default, so OpenvinoPartitioner leaves it to ExecuTorch's portable kernels")
    assert dict(atan2.detail)["lowered_ops"] == ("aten.atan2.default",)
    run = session.target_run(probe, "openvino", runs=3)     # the portable atan2 between the two delegates
    assert run.refused is None and run.sqnr_vs_float_db is not None and run.sqnr_vs_float_db > 25


@needs_openvino
@pytest.mark.slow
def test_keep_float_is_nncf_ignored_scope_and_openvino_still_runs_the_float_op(session):
    config = dataclasses.replace(RESNET8, keep_float=("linear",))
    qm = session.quantized(config)
    (linear,) = [n for n in qm.converted.graph.nodes if n.name == "linear"]
    assert [a.name for a in linear.all_input_nodes] == ["flatten", "head_weight", "head_bias"]   # float weights
    verdict = session.target(config, "openvino").verdict
    assert verdict.assignment["linear"] == 0 and verdict.cpu_nodes == ()   # OpenVINO's CPU runs float too
    (kept,) = [c for c in session.analysis(config).partition.cpu_nodes if c.node == "linear"]
    assert kept.cause == "float" and "--keep-float linear" in kept.reason


@needs_openvino
@pytest.mark.slow
def test_it_runs_here_with_latency_and_sqnr(session):
    run = session.target_run(RESNET8, "openvino", runs=5)
    assert run.refused is None and run.backend == "openvino"
    assert run.latency is not None and run.latency.runs == 5 and run.latency.median_ms > 0
    assert run.sqnr_vs_float_db is not None and run.sqnr_vs_float_db > 25
    assert run.sqnr_vs_qdq_db is not None and run.sqnr_vs_qdq_db > 35     # OpenVINO's own int8 kernels
    assert "OpenVINO" in run.runtime


@needs_openvino
@pytest.mark.slow
def test_export_writes_a_pte_executorch_reads_back_with_one_openvino_delegate(session, tmp_path):
    from executorch.exir._serialize._program import deserialize_pte_binary
    from executorch.runtime import Runtime

    out = tmp_path / "resnet8.pte"
    exported = session.export(RESNET8, out, target="openvino")
    assert exported.kind == "pte" and exported.bytes == out.stat().st_size
    assert exported.detail.startswith("1 OpenVINO delegate(s); inputs: x float32[1, 3, 32, 32]")
    program = deserialize_pte_binary(out.read_bytes()).program
    delegates = [d.id for plan in program.execution_plan for d in plan.delegates]
    assert delegates == ["OpenvinoBackend"] * len(session.target(RESNET8, "openvino").verdict.subgraphs) == ["OpenvinoBackend"]
    from vpu_core.targets.openvino import signal_stack_kept

    with signal_stack_kept():                               # as the target's own run does
        loaded = Runtime.get().load_program(str(out))       # held while its method runs
        method = loaded.load_method("forward")
        assert tuple(method.execute(tuple(session.quantized(RESNET8).heldout))[0].shape) == (1, 10)
        del method, loaded

"""The target registry: listed without torch, a new target is one package, seen by the CLI and the JSON."""
import json
import subprocess
import sys

import pytest

from vpu_core import targets
from vpu_core.cli import build_parser, main
from vpu_core.config import RunConfig
from vpu_core.errors import InspectorError
from vpu_core.session import Session


def test_the_registry_lists_the_built_in_targets_without_importing_torch():
    code = ("import sys, vpu_core.targets as t; print(','.join(t.names()), t.info('xnnpack').title, "
            "'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["vpu,xnnpack,ethos-u55-128,ethos-u55-256,ethos-u65-256,ethos-u85-128,ethos-u85-256,tosa-int,openvino",
                           "XNNPACK", "False"]
    assert targets.info("vpu").quantizer == "vpu" and targets.info("xnnpack").judges is None


def test_an_unknown_target_is_one_sentence():
    with pytest.raises(targets.UnknownTarget, match="Unknown target 'npu9': choose from vpu, xnnpack"):
        targets.info("npu9")


@pytest.fixture
def conv_only():
    import conv_only_target

    yield conv_only_target.INFO
    targets.unregister("conv-only")
    targets.unregister("conv-only-xnnpack")


def test_a_registered_target_is_a_cli_choice_and_a_json_entry(conv_only, capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("VPU_INSPECTOR_CACHE_DIR", str(tmp_path))
    args = build_parser().parse_args(["check", "conv_relu", "--target", "conv-only"])
    assert args.target == ["conv-only"]
    # the primary target: its relu falls back to the CPU (exit 1); the VPU is judged when asked for
    assert main(["check", "conv_relu", "--target", "conv-only", "--target", "vpu", "--format", "json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert list(out["targets"]) == ["conv-only", "vpu"] and out["primary_target"] == "conv-only"
    mine = out["targets"]["conv-only"]
    assert mine["subgraphs"] == 1 and mine["title"] == "Conv-only"
    assert [(c["op"], c["cause"]) for c in mine["cpu_nodes"]] == [("relu.default", "op_list")]
    assert mine["cpu_nodes"][0]["reason"] == "Conv-only has no kernel for relu.default"
    # conv 3->8, 3x3, 16x16 output: 8*16*16 * 3*3*3 MACs at 64 per cycle
    assert mine["estimate"] == {"unit": "cycles", "total": 8 * 16 * 16 * 27 / 64,
                                "label": "64 MACs per cycle (toy estimate)", "per_node": {"conv2d": 864.0}}
    assert out["xnnpack_delegation"] is None and out["partition"]["cpu_nodes"] == []   # nothing else changed
    # cached like the analysis: a new session reads it back from disk, estimate class included
    again = Session(cache_dir=tmp_path).target(RunConfig("conv_relu"), "conv-only")
    assert again.estimate.total == mine["estimate"]["total"] and again.verdict.source == "conv-only"


def test_a_target_refuses_a_quantizer_it_cannot_judge_before_torch(conv_only, capsys):
    targets.register(targets.TargetInfo("conv-only-xnnpack", "Conv-only (XNNPACK graphs)", "Judges XNNPACK graphs.",
                                        conv_only.implementation, judges=("xnnpack",),
                                        judges_hint="add --quantizer xnnpack"))
    assert main(["check", "conv_relu", "--target", "conv-only-xnnpack"]) == 2
    assert capsys.readouterr().err.strip() == (
        "vpu-inspector: error: The Conv-only (XNNPACK graphs) target judges graphs of the xnnpack quantizer, "
        "not vpu: add --quantizer xnnpack.")
    with pytest.raises(InspectorError):
        Session(disk_cache=False).target(RunConfig("conv_relu"), "conv-only-xnnpack")


def test_xnnpack_delegation_judges_xnnpack_beside_the_primary_target():
    from vpu_core.cli import targets_from_args

    parser = build_parser()
    assert targets_from_args(parser.parse_args(["check", "m", "--xnnpack-delegation"])) == ("vpu", "xnnpack")
    assert targets_from_args(parser.parse_args(["check", "m", "--target", "xnnpack"])) == ("xnnpack",)
    assert targets_from_args(parser.parse_args(["check", "m", "--target", "vpu", "--target", "xnnpack"])) == \
        ("vpu", "xnnpack")
    assert targets_from_args(parser.parse_args(["check", "m"])) == ("vpu",)


def test_the_vpu_estimate_is_the_timing_model_of_the_partition():
    inspection = Session(disk_cache=False).inspect(RunConfig("inception_lite"), view=None, whatif=True,
                                                   targets=("vpu",))
    result, economics = inspection.targets["vpu"], inspection.attached.economics
    estimate = result.estimate
    assert result.verdict is inspection.analysis.partition
    assert [s.macs for s in estimate.subgraphs] == [e.macs for e in economics.subgraphs]
    t = estimate.assumptions
    assert estimate.total == pytest.approx(sum(
        t.launch_overhead_us + t.compute_us(s.macs) + sum(t.transfer_us(b) for b in moved.values())
        for s, moved in zip(estimate.subgraphs, (result.verdict.boundary_tensors().get(s.subgraph, {})
                                                 for s in estimate.subgraphs))))
    assert sum(estimate.per_node().values()) == pytest.approx(sum(s.compute_us for s in estimate.subgraphs))

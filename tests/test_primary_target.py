"""The target the user ships to leads: `--target NAME` alone picks its quantizer, the first lines of
`check` are its verdict, its words are used ("partition", "CPU → XNNPACK"), and the exit status is
its verdict's (docs/spec.md, section 9.0). Real runs of ExecuTorch's XNNPACK lowering; the Arm
targets' cases are in test_arm_targets.py (they share its lowering)."""
import argparse

from vpu_core.cli import build_parser, targets_from_args
from vpu_core.arguments import resolve_quantizer


def _args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["check", "m", *argv])


def test_the_target_names_its_quantizer_and_quantizer_overrides_it():
    assert resolve_quantizer(_args()) == "vpu"
    assert resolve_quantizer(_args("--target", "xnnpack")) == "xnnpack"
    assert resolve_quantizer(_args("--target", "ethos-u55-128", "--target", "vpu")) == "ethos-u"
    assert resolve_quantizer(_args("--target", "tosa-int")) == "ethos-u"
    assert resolve_quantizer(_args("--quantizer", "xnnpack")) == "xnnpack"       # the seeds' case
    assert resolve_quantizer(_args("--target", "xnnpack", "--quantizer", "vpu")) == "vpu"
    # the primary first; the VPU only when asked for (it is the primary when nothing is)
    assert targets_from_args(_args("--target", "xnnpack", "--target", "vpu")) == ("xnnpack", "vpu")
    assert targets_from_args(_args("--target", "ethos-u55-128")) == ("ethos-u55-128",)
    assert targets_from_args(_args("--xnnpack-delegation")) == ("vpu", "xnnpack")


def test_xnnpack_primary_takes_resnet8_whole_and_exits_0(run_cli):
    code, out, err = run_cli("check", "resnet8", "--target", "xnnpack")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("resnet8 · target XNNPACK · quantizer xnnpack")
    assert lines[2] == "Verdict: XNNPACK: the whole model runs on XNNPACK (1 partition, 100 % of 12.5 MMAC)."
    assert lines[-1] == lines[2]                     # said again last, under everything
    assert "VPU" not in out and "subgraph" not in out and "violation" not in out
    assert "CPU → XNNPACK  x -> quantize_per_tensor_default" in out


def test_a_cpu_op_of_the_primary_target_exits_1_with_its_reasons(check_json):
    code, data, err = check_json("transformer", "--target", "xnnpack")
    assert code == 1, err
    assert data["primary_target"] == "xnnpack" and data["quantizer"] == "xnnpack"
    s, t = data["summary"], data["targets"]["xnnpack"]
    assert list(data["targets"]) == ["xnnpack"]       # the VPU was not asked for
    assert (s["target"], s["ok"], s["rule_violations"]) == ("xnnpack", False, 0)
    assert s["cpu_ops"] == len(t["cpu_nodes"]) == 6 and t["partitions"] == s["partitions"] == 12
    assert {c["cause"] for c in t["cpu_nodes"]} == {"no_kernel", "rejected"}
    assert s["verdict"].startswith("XNNPACK: 6 ops on the CPU (5 no XNNPACK kernel, 1 rejected")
    assert 0 < s["mac_share"] <= 1 and s["macs_on_target"] <= s["macs_total"]
    # the VPU's numbers of schema 1 are still there, as the VPU's
    assert {"vpu_mac_share", "macs_vpu", "cpu_ops_by_cause"} <= set(s) and data["schema"] == 2


def test_the_vpu_primary_counts_its_rule_violations_and_cpu_ops(check_json):
    code, data, _ = check_json("transformer", "--quantizer", "xnnpack")
    s = data["summary"]
    assert code == 1 and s["target"] == "vpu" and s["rule_violations"] == len(data["violations"]) > 0
    assert s["cpu_ops"] == len(data["partition"]["cpu_nodes"]) > 0     # layer_norm, softmax, gelu …
    code, data, _ = check_json("conv_relu")
    assert code == 0 and data["summary"]["ok"] and data["summary"]["verdict"].startswith(
        "VPU: the whole model runs on the VPU (1 partition")

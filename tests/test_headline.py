"""The headline numbers (JSON `summary`) and the sentence a run owes when no conv / linear runs on
the VPU: in the text report, the JSON, the HTML report (with the empty weight charts saying why)."""
import json

import pytest

from conftest import run_check


@pytest.fixture(scope="module")
def no_kernel_profile(tmp_path_factory):
    """The shipped profile without conv2d and linear: no weighted op can run on the VPU."""
    from resources import DEFAULT_PROFILE

    text = DEFAULT_PROFILE.read_text(encoding="utf-8").replace('"conv2d", "linear", ', "", 1)
    path = tmp_path_factory.mktemp("profiles") / "no_weighted.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_summary_of_a_model_that_runs_whole_on_the_vpu(analysis):
    s = analysis("resnet8").summary
    assert s.vpu_mac_share == 1.0 and s.weights_quantized == s.weights_total == s.weighted_on_vpu == 10
    # every conv's MACs from its shapes: 16·32·32·(3·3·3) for the stem, …; the total is the model's
    assert s.macs_total == s.macs_vpu > 10_000_000
    assert s.cpu_ops_by_cause == {"op_list": 0, "dtype": 0, "limit": 0, "memory": 0, "float": 0}


def test_matmuls_of_activations_count_as_model_macs_on_the_cpu(analysis):
    a = analysis("transformer")
    s = a.summary
    assert 0 < s.vpu_mac_share < 1 and s.macs_vpu < s.macs_total
    assert s.cpu_ops_by_cause["op_list"] == sum(1 for c in a.partition.cpu_nodes if c.cause == "op_list")


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_no_weighted_op_on_the_vpu_is_said_in_one_sentence(no_kernel_profile, fmt):
    code, out, err = run_check("conv_relu", "--profile", no_kernel_profile, "--calib-batches", "1",
                               "--format", fmt)
    assert code == 1, err + out          # its conv falls back to the CPU: the VPU does not run it all
    if fmt == "json":
        s = json.loads(out)["summary"]
        assert (s["vpu_mac_share"], s["weights_quantized"], s["weights_total"]) == (0.0, 0, 1)
        assert s["cpu_ops_by_cause"]["op_list"] == 1
        return
    last = out.strip().splitlines()[-2]          # the verdict is the last line
    assert last.startswith("0 VPU rule violations in 0 rule(s). No weighted op runs on the VPU: none of the "
                           "model's 1 conv / linear ops does (0 of 1 weights quantized; 0 % of")
    assert "VPU runs 0 % of" in out.splitlines()[1]


def test_the_report_says_it_and_its_empty_weight_charts_say_why(no_kernel_profile, run_cli, tmp_path,
                                                                  html_page):
    out = tmp_path / "r.html"
    code, _, err = run_cli("report", "conv_relu", "--profile", no_kernel_profile, "--calib-batches", "1",
                           "-o", str(out))
    assert code == 0, err
    html = out.read_text(encoding="utf-8")
    assert html.count("No weighted op runs on the VPU") == 1
    assert "No weight to show: none of the model&#x27;s 1 conv / linear weights is quantized" in html
    assert "MACs on the VPU" in html


def test_the_mac_share_is_green_only_when_it_runs_as_it_is():
    """Under XNNPACK a graph can place most MACs on VPU ops and still break every scale rule: the
    share is then 'blocked' (red, with what it waits for), never green beside the violations."""
    from vpu_core.analysis.results import Summary
    from vpu_core.reports.summary_text import mac_share_caveat, mac_share_standing

    placed = Summary(macs_total=1000, macs_vpu=846, weights_total=14, weights_quantized=14, weighted_on_vpu=14)
    assert mac_share_standing(placed, 0) == "runs" and mac_share_caveat(placed, 0) == ""
    assert mac_share_standing(placed, 117) == "blocked"
    assert mac_share_caveat(placed, 117) == "once its 117 rule violations are fixed"
    assert mac_share_caveat(placed, 1) == "once its rule violation is fixed"
    little = Summary(macs_total=1000, macs_vpu=100, weights_total=1, weights_quantized=1, weighted_on_vpu=1)
    assert mac_share_standing(little, 0) == "low"
    nothing = Summary(macs_total=1000, macs_vpu=0, weights_total=1, weights_quantized=0, weighted_on_vpu=0)
    assert mac_share_standing(nothing, 75) == "low"          # 0 %: nothing to wait for

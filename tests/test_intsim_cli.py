"""`check --int-sim`: the JSON object, the text summary, and the refusal of an XNNPACK graph."""
from __future__ import annotations

import json


LAYER_KEYS = {"node", "max_abs_lsb", "mismatch_frac", "saturated"}


def test_check_int_sim_json(run_cli):
    code, out, err = run_cli("check", "conv_relu", "--int-sim", "--format", "json",
                             "--calib-batches", "2")
    assert code == 0, err
    sim = json.loads(out)["int_sim"]
    assert isinstance(sim["sqnr_db"], float) and sim["sqnr_db"] > 20
    (layer,) = sim["layers"]
    assert LAYER_KEYS <= set(layer) and layer["node"] == "conv2d"
    assert layer["max_abs_lsb"] <= 1 and 0.0 <= layer["mismatch_frac"] < 0.01 and layer["saturated"] == 0
    assert layer["nodes"][0] == "conv2d" and layer["nodes"][-1].startswith("quantize_per_tensor")
    assert sum(c for _, c in layer["diff_hist"]) == layer["elements"] == 8 * (1 * 8 * 16 * 16)  # 8 calls at batch 1
    assert (sim["rounding"], sim["accumulator_bits"], sim["refused"]) == ("round_half_up", 32, None)


def test_check_without_int_sim_has_no_int_sim_key(run_cli):
    code, out, _ = run_cli("check", "conv_relu", "--format", "json", "--calib-batches", "2")
    assert "int_sim" not in json.loads(out)


def test_check_int_sim_text_summary_line(run_cli):
    code, out, _ = run_cli("check", "conv_relu", "--int-sim", "--calib-batches", "2")
    line = next(x for x in out.splitlines() if x.startswith("Integer simulation"))
    assert "round_half_up, 32-bit accumulator" in line and "1 VPU layer," in line
    assert "SQNR int vs float" in line and "0 accumulator saturations" in line


def test_xnnpack_int_sim_is_refused_as_data_with_a_note(run_cli):
    # the check itself succeeds: exit code 1 for the violations (pow2_scale among them), the
    # refusal as data in the JSON, one note on stderr naming the rule
    code, out, err = run_cli("check", "conv_relu", "--quantizer", "xnnpack", "--int-sim",
                             "--format", "json", "--calib-batches", "2")
    assert code == 1
    data = json.loads(out)
    sim = data["int_sim"]
    assert sim["rule"] == "pow2_scale" and sim["layers"] == [] and sim["sqnr_db"] is None
    assert sim["refused"].startswith("Integer simulation needs every scale to be a power of two")
    assert any(r["id"] == "pow2_scale" and r["violations"] for r in data["rules"])
    assert err.strip().splitlines() == [f"vpu-inspector: note: {sim['refused']}"]

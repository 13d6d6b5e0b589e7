"""The command-line contract: exit codes, one-line errors, the JSON schema, --save-program."""
import json
import math
import subprocess
import sys
import textwrap

import pytest
import torch

from app.cli import main

RULE_IDS = ["act_per_tensor_symmetric", "weight_per_channel_symmetric", "pow2_scale", "bias_int32",
            "shared_scale", "fused_relu", "static_shape"]
TOP_KEYS = {"schema", "model", "quantizer", "dynamic_batch", "rules", "violations", "partition",
            "requant", "tensors", "sqnr_db", "graph", "timings_s"}


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def check_json(capsys, *argv):
    code, out, err = run_cli(capsys, "check", *argv, "--format", "json", "--calib-batches", "2")
    assert code in (0, 1), err
    return code, json.loads(out)


def test_models_lists_the_zoo(capsys):
    code, out, _ = run_cli(capsys, "models")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines()]
    assert names[:2] == ["conv_relu", "resnet8"] and "transformer" in names and len(names) >= 8


def test_vpu_conv_relu_json_has_only_pow2_and_zero_points(capsys):
    code, data = check_json(capsys, "conv_relu")
    assert TOP_KEYS <= set(data) and data["schema"] == 2 and data["quantizer"] == "vpu"
    assert [r["id"] for r in data["rules"]] == RULE_IDS
    assert code == 0 and data["violations"] == []
    tensors = data["tensors"]
    assert {t["kind"] for t in tensors} == {"activation", "weight", "bias"}
    for t in tensors:
        assert all(math.log2(s).is_integer() for s in t["scales"]), t
        assert all(z == 0 for z in t["zero_points"]), t
    assert set(data["timings_s"]) >= {"export", "import", "prepare", "calibrate", "convert", "analyze"}
    assert isinstance(data["sqnr_db"], float) and data["sqnr_db"] > 10


@pytest.mark.slow
def test_xnnpack_conv_relu_json_breaks_vpu_rules(capsys):
    code, data = check_json(capsys, "conv_relu", "--quantizer", "xnnpack")
    assert code == 1
    acts = [t for t in data["tensors"] if t["kind"] == "activation"]
    assert any(not math.log2(s).is_integer() for t in acts for s in t["scales"])
    assert any(z != 0 for t in acts for z in t["zero_points"])
    fired = {r["id"] for r in data["rules"] if r["violations"]}
    assert {"pow2_scale", "act_per_tensor_symmetric"} <= fired


def test_dynamic_batch_under_vpu_exits_2_with_one_line(capsys):
    code, out, err = run_cli(capsys, "check", "conv_relu", "--dynamic-batch")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert "static shapes" in err and "static_shape" in err and "Traceback" not in err


def test_save_program_round_trips(capsys, tmp_path):
    out = tmp_path / "q.pt2"
    code, _, err = run_cli(capsys, "check", "conv_relu", "--calib-batches", "1", "--save-program", str(out))
    assert code == 0, err
    program = torch.export.load(str(out))
    assert any("quantize_per_tensor" in str(n.target) for n in program.graph.nodes)
    code, data = check_json(capsys, str(out))  # the saved Q/DQ program is analysed as it is
    assert code == 0 and data["model"] == "q" and data["sqnr_db"] is None
    assert data["quantizer"] == "vpu" and data["already_quantized"] is True


def test_a_saved_program_reports_the_quantizer_that_made_it(capsys, tmp_path):
    # an XNNPACK-quantized program re-checked (under the default --quantizer vpu) was
    # "quantizer vpu"; the file now records its quantizer, and a program that records none is
    # "already quantized (program file)", never the option's guess
    import zipfile

    from vpu_core.pipeline.program_file import PROGRAM_META

    out = tmp_path / "xq.pt2"
    code, _, err = run_cli(capsys, "check", "conv_relu", "--quantizer", "xnnpack", "--calib-batches", "1",
                           "--save-program", str(out))
    assert code == 1, err
    code, data = check_json(capsys, str(out))
    assert data["quantizer"] == "xnnpack" and data["already_quantized"] is True
    assert any(zp != 0 for t in data["tensors"] for zp in t["zero_points"])   # XNNPACK's affine grid
    code, text, _ = run_cli(capsys, "check", str(out), "--calib-batches", "2")
    assert text.splitlines()[0].startswith("xq · target VPU · quantizer XNNPACK (program file) · ")
    foreign = tmp_path / "foreign.pt2"
    with zipfile.ZipFile(out) as src, zipfile.ZipFile(foreign, "w") as dst:
        for item in src.infolist():
            if not item.filename.endswith(f"extra/{PROGRAM_META}"):
                dst.writestr(item, src.read(item))
    code, data = check_json(capsys, str(foreign))
    assert data["quantizer"] == "unknown" and data["already_quantized"] is True
    code, text, _ = run_cli(capsys, "check", str(foreign), "--quantizer", "xnnpack")
    assert text.splitlines()[0].startswith("foreign · target VPU · quantizer already quantized (program file) · ")


@pytest.mark.parametrize("argv, needle", [
    (["check", "no_such_model"], "Unknown model 'no_such_model'"),
    (["check", "conv_relu", "--profile", "/nonexistent.toml"], "does not exist"),
    (["check", "conv_relu", "--calib-data", "/nonexistent.pt"], "does not exist"),
])
def test_bad_arguments_exit_2(capsys, argv, needle):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1


def test_nan_calibration_data_is_refused(capsys, tmp_path):
    data = torch.randn(32, 3, 16, 16)
    data[3, 0, 0, 0] = float("nan")
    torch.save(data, tmp_path / "nan.pt")
    code, _, err = run_cli(capsys, "check", "conv_relu", "--calib-data", str(tmp_path / "nan.pt"))
    assert code == 2 and "1 NaN/inf value(s)" in err


def test_model_that_cannot_export(capsys, tmp_path):
    f = tmp_path / "branchy.py"
    f.write_text(textwrap.dedent("""
        import torch
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.c = torch.nn.Conv2d(3, 4, 3)
            def forward(self, x):
                if x.sum() > 0:
                    return self.c(x)
                return self.c(-x)
        def get_model():
            return M(), (torch.randn(1, 3, 8, 8),)
    """))
    code, out, err = run_cli(capsys, "check", str(f))
    assert code == 2
    assert "data-dependent control flow at branchy.py:8 (`if x.sum() > 0:`)" in err
    assert len(err.strip().splitlines()) == 1


def test_model_with_nothing_to_quantize(capsys, tmp_path):
    f = tmp_path / "soft.py"
    f.write_text("import torch\ndef get_model():\n    return torch.nn.Softmax(-1), (torch.randn(2, 8),)\n")
    code, _, err = run_cli(capsys, "check", str(f))
    assert code == 2 and "Nothing to quantize" in err


@pytest.mark.slow
def test_real_entry_point_prints_no_traceback(tmp_path):
    """The installed console script path: a subprocess, exit code 2, one line on stderr."""
    proc = subprocess.run([sys.executable, "-m", "app.cli", "check", str(tmp_path / "missing.pt2")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    from vpu_core.paths import shown

    assert proc.stderr.strip() == f"vpu-inspector: error: Cannot load {shown(str(tmp_path / 'missing.pt2'))}: no such file."


def test_debug_flag_shows_the_traceback(capsys):
    code, _, err = run_cli(capsys, "--debug", "check", "no_such_model")
    assert code == 2 and "Traceback" in err

"""Bad inputs through the real command line: exit code 2 and a line naming the problem."""
import zipfile

import numpy as np
import pytest
import torch

from app.cli import main

PY_CASES = {
    "syntax.py": ("def get_model(:\n", "syntax error on line 1"),
    "raises.py": ("raise ImportError('no such lib')\n", "ImportError on import: no such lib"),
    "nocall.py": ("x = 1\n", "no callable 'get_model'"),
    "notpair.py": ("def get_model():\n    return 'model'\n", "must return (nn.Module, example_inputs)"),
    "wrongshape.py": ("import torch\ndef get_model():\n"
                      "    return torch.nn.Conv2d(3, 4, 3), (torch.randn(1, 5, 8, 8),)\n",
                      "expected input[1, 5, 8, 8] to have 3 channels"),
    "zerosize.py": ("import torch\ndef get_model():\n"
                    "    return torch.nn.ReLU(), (torch.zeros(0, 4),)\n", "zero elements"),
}


def _check(capsys, *argv):
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    return code, lines[-1] if lines else "", len(lines)


@pytest.mark.parametrize("name", sorted(PY_CASES))
def test_bad_python_models(capsys, tmp_path, name):
    source, needle = PY_CASES[name]
    (tmp_path / name).write_text(source)
    code, line, n_lines = _check(capsys, str(tmp_path / name))
    assert code == 2 and n_lines == 1 and needle in line and name in line


def _pt2_cases(tmp_path):
    (tmp_path / "empty.pt2").write_bytes(b"")
    (tmp_path / "text.pt2").write_text("hello")
    with zipfile.ZipFile(tmp_path / "foreign.pt2", "w") as z:
        z.writestr("a.txt", "not a program")
    return {"missing.pt2": "no such file", "empty.pt2": "the file is empty",
            "text.pt2": "not a torch.export program", "foreign.pt2": "no models/model.json"}


def test_bad_pt2_files(capsys, tmp_path):
    for name, needle in _pt2_cases(tmp_path).items():
        code, line, n_lines = _check(capsys, str(tmp_path / name))
        assert code == 2 and n_lines == 1 and needle in line, (name, line)


@pytest.mark.parametrize("make, needle", [
    (lambda p: np.savez(p, x=np.zeros((0, 3, 16, 16), np.float32)), "is empty"),
    (lambda p: np.savez(p, x=np.zeros((8, 3, 9, 9), np.float32)), "samples of shape (3, 9, 9)"),
    (lambda p: np.savez(p, x=np.full((8, 3, 16, 16), np.inf, np.float32)), "NaN/inf"),
    (lambda p: p.write_bytes(b"garbage"), "is not an .npz (numpy.savez) file, or it is cut short"),
])
def test_bad_calibration_files(capsys, tmp_path, make, needle):
    path = tmp_path / "calib.npz"
    make(path)
    code, line, n_lines = _check(capsys, "conv_relu", "--calib-data", str(path))
    assert code == 2 and n_lines == 1 and needle in line


@pytest.mark.parametrize("text, needle", [
    ("[ops]\nvpu = ['conv2d']\nspeed = 'fast'\n", "unknown key ops.speed"),
    ("[ops]\nvpu = ['conv2d', 'fft_magic']\n", "unknown ATen op 'fft_magic'"),
])
def test_bad_profiles(capsys, tmp_path, text, needle):
    (tmp_path / "p.toml").write_text(text)
    code, line, n_lines = _check(capsys, "conv_relu", "--profile", str(tmp_path / "p.toml"))
    assert code == 2 and n_lines == 1 and needle in line


def test_unwritable_outputs(capsys, tmp_path):
    code, line, _ = _check(capsys, "conv_relu", "--calib-batches", "1",
                           "--save-program", str(tmp_path / "no_dir" / "q.pt2"))
    assert code == 2 and "does not exist" in line
    assert main(["render", "conv_relu", "-o", str(tmp_path / "g.bmp")]) == 2
    assert "must end in .png or .svg" in capsys.readouterr().err


def test_calibration_pt_with_pickled_code_is_refused(capsys, tmp_path):
    torch.save({"x": torch.zeros(4, 3, 16, 16), "f": print}, tmp_path / "evil.pt")
    code, line, _ = _check(capsys, "conv_relu", "--calib-data", str(tmp_path / "evil.pt"))
    assert code == 2 and "holds Python objects, not only tensors" in line and "\x1b" not in line


def test_missing_input_files_fail_before_torch_is_imported(tmp_path):
    # A fresh interpreter: a missing model, profile or calibration file is refused with one
    # sentence (exit 2) while torch has not been imported yet.
    import subprocess
    import sys

    script = ("import sys\nfrom vpu_core.cli import main\ncode = main(sys.argv[1:])\n"
              "print(code, 'torch' in sys.modules)\n")
    cases = {("check", str(tmp_path / "nope.py")): "Cannot load",
             ("check", "resnet8", "--profile", str(tmp_path / "nope.toml")): "does not exist",
             ("check", "resnet8", "--calib-data", str(tmp_path / "nope.pt")): "does not exist",
             ("export", "resnet8:x", "-o", str(tmp_path / "out")): "Unknown model"}
    for argv, needle in cases.items():
        done = subprocess.run([sys.executable, "-c", script, *argv], capture_output=True, text=True)
        assert done.stdout.split() == ["2", "False"], (argv, done.stdout, done.stderr)
        assert len(done.stderr.strip().splitlines()) == 1 and needle in done.stderr, argv


def test_per_tensor_under_the_vpu_quantizer_is_a_note():
    from vpu_core.config import RunConfig
    from vpu_core.preflight import PER_TENSOR_IGNORED, preflight

    assert preflight(RunConfig(model="resnet8", per_tensor=True)) == [PER_TENSOR_IGNORED]
    assert preflight(RunConfig(model="resnet8", quantizer="xnnpack", per_tensor=True)) == []

"""Model loading (zoo, .py, .pt2), calibration files and hardware profiles: real files, real errors."""
import textwrap

import numpy as np
import re

import pytest
import torch

from vpu_core.pipeline.calibration import load_calibration_file
from vpu_core.errors import CalibrationError, ModelLoadError, ProfileError
from vpu_core.pipeline.loading import load_model
from vpu_core.profile import load_profile
from vpu_core.zoo import ZOO

EXAMPLE = (torch.zeros(1, 3, 16, 16),)


class NotATensor:
    """A pickled object of an arbitrary class: weights_only loading must refuse it."""


@pytest.mark.slow
def test_every_zoo_entry_builds_and_runs():
    for name, entry in ZOO.items():
        loaded = load_model(name, batch_size=2)
        assert entry.description
        out = loaded.module(*loaded.example_inputs)
        assert out.shape[0] == 2 and torch.isfinite(out).all(), name


def test_zoo_weights_are_deterministic():
    a = load_model("conv_relu").module.conv.weight
    b = load_model("conv_relu").module.conv.weight
    assert torch.equal(a, b)


def test_py_model_with_custom_callable(tmp_path):
    f = tmp_path / "mine.py"
    f.write_text(textwrap.dedent("""
        import torch
        def build():
            return torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU()), (torch.randn(2, 4),)
    """))
    loaded = load_model(f"{f}:build")
    assert loaded.name == "mine" and loaded.example_inputs[0].shape == (2, 4)


@pytest.mark.parametrize("source, needle", [
    ("def get_model(:\n", "syntax error on line 1"),
    ("raise RuntimeError('boom')\n", "RuntimeError on import: boom"),
    ("x = 1\n", "no callable 'get_model'"),
    ("def get_model():\n    return 42\n", "must return (nn.Module, example_inputs)"),
    ("import torch\ndef get_model():\n    return torch.nn.ReLU(), (torch.zeros(0, 3),)\n", "zero elements"),
])
def test_bad_py_models_give_one_clear_message(tmp_path, source, needle):
    f = tmp_path / "bad.py"
    f.write_text(source)
    with pytest.raises(ModelLoadError) as info:
        load_model(str(f))
    assert needle in info.value.message and "bad.py" in info.value.message


@pytest.mark.parametrize("content, needle", [
    (b"", "empty"), (b"not a zip at all", "not a torch.export program"),
])
def test_bad_pt2_files(tmp_path, content, needle):
    f = tmp_path / "m.pt2"
    f.write_bytes(content)
    with pytest.raises(ModelLoadError) as info:
        load_model(str(f))
    assert needle in info.value.message


def test_unknown_model_name():
    with pytest.raises(ModelLoadError, match="not a zoo name"):
        load_model("no_such_model")


def test_calibration_from_pt_and_npz(tmp_path):
    data = torch.randn(10, 3, 16, 16)
    torch.save(data, tmp_path / "c.pt")
    np.savez(tmp_path / "c.npz", x=data.numpy())
    for name in ("c.pt", "c.npz"):
        batches = load_calibration_file(tmp_path / name, EXAMPLE, batch_size=4)
        assert [b[0].shape[0] for b in batches] == [4, 4]  # the short last batch is dropped
        torch.testing.assert_close(batches[1][0], data[4:8])


@pytest.mark.parametrize("data, needle", [
    (torch.randn(4, 3, 8, 8), "samples of shape (3, 8, 8), the model expects (3, 16, 16)"),
    (torch.zeros(0, 3, 16, 16), "empty"),
    (torch.full((4, 3, 16, 16), float("nan")), "NaN/inf"),
])
def test_bad_calibration_data(tmp_path, data, needle):
    torch.save(data, tmp_path / "c.pt")
    with pytest.raises(CalibrationError) as info:
        load_calibration_file(tmp_path / "c.pt", EXAMPLE, batch_size=4)
    assert needle in info.value.message


def test_calibration_pt_refuses_pickled_objects(tmp_path):
    torch.save({"x": torch.zeros(2), "obj": NotATensor()}, tmp_path / "evil.pt")
    with pytest.raises(CalibrationError, match="holds Python objects, not only tensors") as info:
        load_calibration_file(tmp_path / "evil.pt", EXAMPLE, batch_size=1)
    # our sentence, whole: no terminal colour codes or torch's advice passed through, no "…"
    assert "\x1b" not in info.value.message and "…" not in info.value.message
    assert info.value.message.endswith(".") and "Weights only load failed" in info.value.detail


@pytest.mark.parametrize("name,content,needle", [
    ("cut.pt", b"PK\x03\x04 cut short", "is not a torch.save file, or it is cut short"),
    ("junk.npz", b"PK\x03\x04 garbage", "is not an .npz (numpy.savez) file, or it is cut short")])
def test_unreadable_calibration_files_get_our_sentence(tmp_path, name, content, needle):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(CalibrationError, match=re.escape(needle)) as info:
        load_calibration_file(tmp_path / name, EXAMPLE, batch_size=1)
    assert "miniz" not in info.value.message and "\x1b" not in info.value.message


def test_default_profile_matches_spec():
    p = load_profile()
    assert p.vpu_ops == ("conv2d", "linear", "relu", "hardtanh", "add.Tensor", "cat", "max_pool2d",
                         "avg_pool2d", "adaptive_avg_pool2d", "flatten", "reshape", "view")
    assert all(p.constraints.values()) and (p.min_shift, p.max_shift) == (0, 31)


@pytest.mark.parametrize("text, needle", [
    ("[ops]\nvpu = ['conv2d']\nbogus = 1\n", "unknown key ops.bogus"),
    ("[ops]\nvpu = ['conv2d', 'warp_drive']\n", "unknown ATen op 'warp_drive'"),
    ("[gpu]\nx = 1\n", "unknown section [gpu]"),
    ("[ops\n", "not valid TOML"),
    ("[constraints]\npow2_scale = 'yes'\n[ops]\nvpu = ['conv2d']\n", "must be true or false"),
])
def test_bad_profiles(tmp_path, text, needle):
    f = tmp_path / "p.toml"
    f.write_text(text)
    with pytest.raises(ProfileError) as info:
        load_profile(f)
    assert needle in info.value.message

"""Damaged, foreign and wrong-version .pt2 files always give one clean ModelLoadError."""
import random
import re
import zipfile

import pytest
import torch
from hypothesis import HealthCheck, example, given, settings, strategies as st

from vpu_core.errors import ModelLoadError
from vpu_core.pipeline.loading import load_model


@pytest.fixture(scope="module")
def good_pt2(tmp_path_factory):
    """A real converted Q/DQ program saved with torch.export.save."""
    from vpu_core.pipeline import RunConfig, run_pipeline
    from vpu_core.pipeline.program_file import save_program

    path = tmp_path_factory.mktemp("pt2") / "conv_relu_q.pt2"
    save_program(run_pipeline(RunConfig(model="conv_relu", batch_size=2, calib_batches=1)), path)
    return path


def _rewrite(src: zipfile.ZipFile, out, edit):
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            dst.writestr(info.filename, edit(info.filename, src.read(info)))


def test_saved_program_loads_back_as_qdq(good_pt2):
    loaded = load_model(str(good_pt2))
    assert loaded.program is not None and loaded.example_inputs[0].shape == (2, 3, 16, 16)
    targets = {str(n.target) for n in loaded.program.graph.nodes}
    assert any("quantize_per_tensor" in t for t in targets)


def test_wrong_schema_version(good_pt2, tmp_path):
    out = tmp_path / "v99.pt2"
    with zipfile.ZipFile(good_pt2) as src:
        _rewrite(src, out, lambda n, d: re.sub(rb'"schema_version": \{"major": \d+',
                                               b'"schema_version": {"major": 99', d)
                 if n.endswith("model.json") else d)
    with pytest.raises(ModelLoadError, match="schema version 99, this torch reads version 8"):
        load_model(str(out))


def test_wrong_archive_version(good_pt2, tmp_path):
    out = tmp_path / "av.pt2"
    with zipfile.ZipFile(good_pt2) as src:
        _rewrite(src, out, lambda n, d: b"99" if n.endswith("archive_version") else d)
    with pytest.raises(ModelLoadError, match="incompatible .pt2.*archive version 99"):
        load_model(str(out))


def test_zip_that_is_not_a_program(tmp_path):
    out = tmp_path / "other.pt2"
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("hello.txt", "hi")
    with pytest.raises(ModelLoadError, match="no models/model.json"):
        load_model(str(out))


def test_truncated_program(good_pt2, tmp_path):
    out = tmp_path / "trunc.pt2"
    data = good_pt2.read_bytes()
    out.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelLoadError, match="Cannot load"):
        load_model(str(out))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), flips=st.integers(1, 64))
@example(seed=129538, flips=4)  # once made zipfile.is_zipfile itself raise BadZipFile
def test_fuzzed_bytes_always_give_a_clean_error(good_pt2, tmp_path, seed, flips):
    """Random byte corruption: either it still loads (bytes in padding) or a ModelLoadError."""
    data = bytearray(good_pt2.read_bytes())
    rng = random.Random(seed)
    for _ in range(flips):
        data[rng.randrange(len(data))] = rng.randrange(256)
    out = tmp_path / f"fuzz_{seed}_{flips}.pt2"
    out.write_bytes(bytes(data))
    try:
        loaded = load_model(str(out))
    except ModelLoadError as exc:
        assert exc.message.startswith(f"Cannot load {out}")
    else:
        assert isinstance(loaded.program, torch.export.ExportedProgram)

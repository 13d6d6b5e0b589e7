"""The staged result cache: hits, misses on every kind of change, damaged entries, --no-cache.

Each test gets its own cache folder (VPU_INSPECTOR_CACHE_DIR) and new Sessions, which is what a
new launch of the app sees. What ran is read from `timings_s`: a stage that was reused has no
entry there, an analysis read from disk carries "cache_load".
"""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from dataclasses import replace

import pytest

from vpu_core.cache.disk import LAYOUT
from vpu_core.config import RunConfig
from vpu_core.reports.json_report import analysis_to_json
from vpu_core.session import Session

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("VPU_INSPECTOR_CACHE_DIR", str(folder))
    return folder


def run(config: RunConfig, session: Session | None = None):
    return (session or Session()).inspect(config, view=None)


def same_json(a, b) -> bool:
    """Two analyses (or inspections: their analyses) give the same JSON apart from timings."""
    a, b = getattr(a, "analysis", a), getattr(b, "analysis", b)
    ja, jb = analysis_to_json(a), analysis_to_json(b)
    ja.pop("timings_s"), jb.pop("timings_s")
    return ja == jb


def entries(cache: Path, stage: str) -> list[Path]:
    folder = cache / LAYOUT / stage
    return sorted(folder.iterdir()) if folder.exists() else []


def test_a_new_launch_reads_the_analysis_from_disk(cache):
    config = RunConfig(model="conv_relu", calib_batches=2)
    cold = run(config)
    assert "cache_load" not in cold.timings_s
    assert [len(entries(cache, s)) for s in ("export", "inputs", "calibration", "quantized", "analysis")] == [1] * 5
    warm = run(config)
    assert "cache_load" in warm.timings_s and same_json(cold, warm)
    assert warm.analysis == cold.analysis.__class__(**{**warm.analysis.__dict__, "timings_s": warm.analysis.timings_s})


def test_switching_back_in_one_session_returns_the_same_objects(cache):
    session = Session()
    a, b = RunConfig(model="conv_relu", calib_batches=2), RunConfig(model="conv_relu", calib_batches=3)
    first = session.inspect(a)
    session.inspect(b)
    again = session.inspect(a, fresh=True)          # the GUI's "run" re-reads files, still a hit
    assert again.analysis is first.analysis and again.graph is first.graph


MODEL = """
import torch
from torch import nn

def get_model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Conv2d(3, {channels}, 3), nn.ReLU()).eval(), (torch.randn(1, 3, 8, 8),)
"""


def test_a_changed_model_file_misses_and_the_old_bytes_hit_again(cache, tmp_path):
    path = tmp_path / "net.py"
    path.write_text(MODEL.format(channels=4))
    config = RunConfig(model=str(path), calib_batches=1, batch_size=2)
    four = run(config)
    path.write_text(MODEL.format(channels=6))
    six = Session().inspect(config, view=None, fresh=True)
    assert "cache_load" not in six.timings_s and "export" in six.timings_s
    weights = [t for t in six.analysis.tensors if t.kind == "weight"]
    assert len(weights[0].scales) == 6
    path.write_text(MODEL.format(channels=4))
    back = run(config)
    assert "cache_load" in back.timings_s and same_json(four, back)


def test_a_config_change_reruns_only_the_stages_it_changes(cache):
    base = RunConfig(model="conv_relu", calib_batches=2)
    run(base)
    xnnpack = run(RunConfig(model="conv_relu", quantizer="xnnpack", calib_batches=2))
    assert "export" not in xnnpack.timings_s             # same model and batch: export reused
    assert "calibrate" in xnnpack.timings_s              # another quantizer: calibrated
    more = run(RunConfig(model="conv_relu", calib_batches=3))
    assert "export" not in more.timings_s and "calibrate" in more.timings_s
    other_seed = run(RunConfig(model="conv_relu", calib_batches=2, seed=1))
    assert "export" in other_seed.timings_s              # the seed makes the zoo model's weights
    assert not same_json(run(base), other_seed)


def _profile_copy(tmp_path: Path, name: str, old: str, new: str) -> str:
    from resources import DEFAULT_PROFILE

    text = DEFAULT_PROFILE.read_text()
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new))
    return str(path)


@pytest.mark.slow
def test_a_profile_change_that_only_moves_the_analysis_never_requantizes(cache, tmp_path):
    shifts = _profile_copy(tmp_path, "shifts.toml", "max_shift = 31", "max_shift = 4")
    ops = _profile_copy(tmp_path, "ops.toml", '"conv2d", "linear", "relu", "hardtanh",', '"conv2d", "linear", "hardtanh",')
    for quantizer in ("vpu", "xnnpack"):
        base = run(RunConfig(model="conv_relu", quantizer=quantizer, calib_batches=2))
        moved = run(RunConfig(model="conv_relu", quantizer=quantizer, calib_batches=2, profile=shifts))
        assert "cache_load" not in moved.timings_s and "calibrate" not in moved.timings_s, quantizer
        assert [t.scales for t in moved.analysis.tensors] == [t.scales for t in base.analysis.tensors]
        assert any(s.out_of_range for s in moved.analysis.requant) and \
            not any(s.out_of_range for s in base.analysis.requant)
    relu_on_cpu = run(RunConfig(model="conv_relu", calib_batches=2, profile=ops))
    assert "calibrate" in relu_on_cpu.timings_s           # the VPU quantizer reads the op list


def _write_entry(path: Path, data: bytes) -> Path:
    """Replace an entry by `data` under a name whose checksum matches (so only parsing can tell)."""
    import hashlib

    key = path.name.split(".")[0]
    path.unlink()
    new = path.with_name(f"{key}.{hashlib.sha256(data).hexdigest()[:16]}.{path.name.split('.')[-1]}")
    new.write_bytes(data)
    return new


def test_damaged_entries_are_ignored_deleted_and_rebuilt(cache):
    config = RunConfig(model="conv_relu", calib_batches=2)
    cold = run(config)
    analysis = entries(cache, "analysis")[0]
    analysis.write_bytes(analysis.read_bytes()[:100])                        # truncated
    again = run(config)
    assert "cache_load" not in again.timings_s and same_json(cold, again)
    assert len(entries(cache, "analysis")) == 1 and entries(cache, "analysis")[0] != analysis
    _write_entry(entries(cache, "analysis")[0], json.dumps({"$c": "Analysis", "v": {}}).encode())
    assert "cache_load" not in run(config).timings_s                       # well-formed, not an Analysis
    for stage in ("analysis", "quantized", "program"):
        for path in entries(cache, stage):
            path.unlink()
    _write_entry(entries(cache, "export")[0], b"PK\x03\x04 not a zip")
    _write_entry(entries(cache, "calibration")[0], b"garbage")
    rebuilt = run(config)
    assert {"export", "calibrate"} <= set(rebuilt.timings_s) and same_json(cold, rebuilt)
    assert "cache_load" in run(config).timings_s                           # and the new entries are good


def test_no_cache_neither_reads_nor_writes_the_disk(cache, capsys):
    from app.cli import main
    from vpu_core.session import default_session

    try:
        code = main(["check", "conv_relu", "--calib-batches", "2", "--format", "json", "--no-cache"])
    finally:
        default_session().set_disk_cache(True)
    out, err = capsys.readouterr()
    assert code == 0 and json.loads(out)["model"] == "conv_relu" and err == ""
    assert not cache.exists() or not any(p.is_file() for p in cache.rglob("*"))


def test_a_warm_lookup_needs_no_torch(cache):
    config = RunConfig(model="conv_relu", calib_batches=2)
    run(config)
    code = textwrap.dedent("""
        import sys
        from vpu_core.config import RunConfig
        from vpu_core.session import Session
        inspection = Session().inspect(RunConfig(model="conv_relu", calib_batches=2))
        assert "cache_load" in inspection.timings_s and inspection.graph.layout is not None
        print("torch" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "VPU_INSPECTOR_CACHE_DIR": str(cache)}, check=True)
    assert out.stdout.strip() == "False"


def test_disk_entries_are_atomic_checked_and_evicted_oldest_first(tmp_path):
    from vpu_core.cache.disk import DiskCache

    disk = DiskCache(tmp_path, max_bytes=3500)
    for i, key in enumerate(("a" * 32, "b" * 32, "c" * 32)):
        disk.write("analysis", key, "json", bytes([i]) * 1000)
        path = next((tmp_path / LAYOUT / "analysis").glob(key + ".*"))
        os.utime(path, (1000 + i, 1000 + i))
    disk.read("analysis", "a" * 32)                  # reading makes "a" the most recently used
    disk.write("analysis", "d" * 32, "json", b"d" * 1000)
    names = {p.name.split(".")[0][0] for p in (tmp_path / LAYOUT / "analysis").iterdir()}
    assert names == {"a", "c", "d"} and disk.size() <= 3500         # "b" was the oldest
    assert not list((tmp_path / LAYOUT / "analysis").glob(".tmp-*"))
    (path,) = (tmp_path / LAYOUT / "analysis").glob("d*")
    path.write_bytes(b"e" * 1000)                     # same size, other bytes: the checksum tells
    assert disk.read("analysis", "d" * 32) is None and not path.exists()


def test_the_analysis_codec_round_trips_every_type(run_cached):
    import dataclasses
    import math

    from vpu_core.analysis import analyze
    from vpu_core.cache import codec

    analysis = analyze(run_cached(model="conv_relu", calib_batches=2))
    assert codec.decode(codec.encode(analysis)) == analysis
    odd = dataclasses.replace(analysis, sqnr_db=float("-inf"), layer_sqnr={"x": float("nan"), "y": -0.0},
                              timings_s={("a", 1): 2})
    back = codec.decode(codec.encode(odd))
    assert back.sqnr_db == float("-inf") and math.isnan(back.layer_sqnr["x"])
    assert math.copysign(1, back.layer_sqnr["y"]) == -1 and back.timings_s == {("a", 1): 2}
    assert type(back.rules) is tuple and type(back.nodes) is dict
    with pytest.raises(TypeError):
        codec.encode(dataclasses.replace(analysis, timings_s={"x": object()}))


@pytest.mark.slow
def test_a_transformers_model_export_is_reused_from_disk(cache):
    # Its output is a transformers ModelOutput: torch.export.load needs that type's module.
    config = RunConfig(model=str(ROOT / "tests" / "corpus" / "vit_vision.py"), quantizer="xnnpack",
                       calib_batches=1)
    cold = run(config)
    for stage in ("analysis", "quantized", "program"):
        for path in entries(cache, stage):
            path.unlink()
    again = run(config)
    assert "export" not in again.timings_s and "calibrate" in again.timings_s
    assert same_json(cold, again)


def test_the_integer_simulation_is_cached_with_the_analysis(cache):
    config = RunConfig(model="conv_relu", calib_batches=2)
    cold = Session().inspect(config, view=None, int_sim=True)
    assert cold.attached.int_sim is not None and len(entries(cache, "int_sim")) == 1
    warm = Session().inspect(config, view=None, int_sim=True)
    assert "cache_load" in warm.timings_s and warm.attached.int_sim == cold.attached.int_sim
    assert analysis_to_json(warm.analysis, warm.attached)["int_sim"] == \
        analysis_to_json(cold.analysis, cold.attached)["int_sim"]


QUANTIZING = {"prepare", "calibrate", "convert"}


@pytest.mark.parametrize("quantizer", ["vpu", pytest.param("xnnpack", marks=pytest.mark.slow)])
def test_the_window_opened_after_check_quantizes_nothing(cache, monkeypatch, capsys, quantizer):
    """`gui M` right after `check M`: the converted graph is a cached stage, so the
    window's run — a new launch, a new Session on the same disk cache, asking what the window's
    run job asks — prepares, calibrates and converts nothing: it reads the analysis, loads the
    program for its integer simulation, and lays the graph out."""
    from app.cli import main
    from vpu_core import session as session_module
    from vpu_core.config import ViewOptions

    monkeypatch.setattr(session_module, "_DEFAULT", Session())        # check: its own launch
    argv = ["check", "conv_relu", "--quantizer", quantizer, "--calib-batches", "1", "--format", "json"]
    assert main(argv) in (0, 1)
    assert "int_sim" not in json.loads(capsys.readouterr().out)
    assert len(entries(cache, "program")) == 1 and not entries(cache, "int_sim")   # check stays lean
    config = RunConfig(model="conv_relu", quantizer=quantizer, calib_batches=1)
    seen: list[str] = []
    window_run = Session().inspect(config, ViewOptions(), int_sim=True, progress=lambda s, f: seen.append(s))
    assert not QUANTIZING & set(window_run.stages_run) and not QUANTIZING & set(seen)
    assert "export" not in window_run.stages_run and "layout" in window_run.stages_run
    assert window_run.attached.int_sim is not None and "cache_load" in window_run.timings_s
    assert (window_run.attached.int_sim.refused is not None) == (quantizer == "xnnpack")
    live = Session(disk_cache=False).inspect(config, None, int_sim=True).attached.int_sim
    assert replace(window_run.attached.int_sim, seconds=0) == replace(live, seconds=0)   # same result
    again = Session().inspect(config, ViewOptions(), int_sim=True)                       # and cached
    assert again.stages_run == ("layout",)


def test_the_converted_graph_comes_back_node_for_node(run):
    """program_codec: same node names, users, metadata shapes; the same analysis and simulation."""
    import dataclasses

    from vpu_core.analysis import analyze
    from vpu_core.cache import program_codec
    from vpu_core.intsim import simulate

    qm = run("transformer")                          # the run other tests share
    gm, scales = program_codec.from_bytes(program_codec.to_bytes(qm.converted, qm.observer_scales))
    assert [n.name for n in gm.graph.nodes] == [n.name for n in qm.converted.graph.nodes]
    back = dataclasses.replace(qm, converted=gm, observer_scales=scales)
    assert same_json(analyze(qm), analyze(back)) and analyze(qm).nodes == analyze(back).nodes
    assert replace(simulate(qm), seconds=0) == replace(simulate(back), seconds=0)
    with pytest.raises(program_codec.BadEntry):
        program_codec.from_bytes(b"not a program")


def test_check_with_a_shipped_profile_by_name_after_check_requantizes_nothing(cache, monkeypatch, capsys):
    """`check M --profile edge_npu` after `check M` (XNNPACK's quantizer, which reads no profile):
    the program is the one `check M` quantized (its key read the named profile's file, not a file
    called "edge_npu": such a run had no key and redid everything, every time); the window at
    launch and the sweep ask the same Session, with the same key."""
    from app.cli import main
    from vpu_core import session as session_module

    runs = []
    for profile in ((), ("--profile", "edge_npu")):
        monkeypatch.setattr(session_module, "_DEFAULT", Session())        # each check: its own launch
        assert main(["check", "conv_relu", "--quantizer", "xnnpack", "--calib-batches", "1", "--format", "json",
                     *profile]) in (0, 1)
        runs.append(json.loads(capsys.readouterr().out))
    assert runs[1]["partition"]["profile"] == "edge-npu"
    timings = runs[1]["timings_s"]                # a stage reused from the cache reads 0.0
    assert all(timings.get(k, 0.0) == 0.0 for k in ("export", "prepare", "calibrate", "convert")), timings
    assert runs[0]["timings_s"]["export"] > 0.0
    window = Session().inspect(RunConfig(model="conv_relu", quantizer="xnnpack", calib_batches=1, profile="edge_npu"),
                               view=None)
    assert not QUANTIZING & set(window.stages_run) and "export" not in window.stages_run

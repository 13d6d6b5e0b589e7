"""`vpu-inspector sweep`: a process per run, failures as rows, resume, the summary equal to `check`,
the self-contained dashboard (the Ray engine: tests/test_sweep_ray.py).

One real sweep is shared by most asserts (module fixture): a folder with a tiny model that
breaks VPU rules under XNNPACK, a model that segfaults its process, one whose get_model()
raises and a file that is not Python. Its first run is interrupted (SIGINT) after the first
row, then resumed in this process, then repeated (nothing may run again).
"""
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_check, run_main

TINY = (Path(__file__).parent / "models" / "softmax_classifier.py").read_text(encoding="utf-8")
SEGFAULT = "import ctypes\n\ndef get_model():\n    ctypes.string_at(0)\n"
RAISES = "def get_model():\n    raise RuntimeError('weights server unreachable')\n"
SLEEPS = """
import os, time

def get_model():
    open(os.environ['SLEEPER_PID_FILE'], 'w').write(str(os.getpid()))
    time.sleep(120)
"""


def _write(folder: Path, **files: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / f"{name}.py").write_text(text, encoding="utf-8")
    return folder


def _sweep_argv(models: Path, out: Path, *extra: str) -> list[str]:
    return ["sweep", str(models), "-o", str(out), "--quantizer", "xnnpack", "--workers", "2",
            "--calib-batches", "1", "--timeout", "300", *extra]


class _CtrlCAfterFirstRun:
    """A progress stream that sends this process SIGINT once the first run's line is written."""

    def __init__(self):
        self.sent = False

    def write(self, text):
        if text.startswith("[1/") and not self.sent:
            self.sent = True
            os.kill(os.getpid(), signal.SIGINT)

    def flush(self):
        pass


def _interrupted_sweep(models: Path, out: Path) -> str:
    """The sweep as the CLI runs it, interrupted: KeyboardInterrupt ends it, what finished stays."""
    from vpu_core.config import RunConfig
    from vpu_core.sweep.ledger import SweepOptions
    from vpu_core.sweep.plan import plan_sweep
    from vpu_core.sweep.run import run_sweep

    plan = plan_sweep([str(models)], ("xnnpack",), (None,), RunConfig(calib_batches=1))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        run_sweep(plan, out, SweepOptions(workers=1, timeout_s=300), stream=_CtrlCAfterFirstRun())
    except KeyboardInterrupt:
        return "interrupted"
    finally:
        signal.signal(signal.SIGINT, previous)
    return "finished"


@pytest.fixture(scope="module")
def fleet(tmp_path_factory):
    """The shared sweep: interrupted, resumed, repeated. Returns what each step saw."""
    root = tmp_path_factory.mktemp("fleet")
    models = _write(root / "models", tiny=TINY, crasher=SEGFAULT, raises=RAISES, broken="this is not python\n")
    out = root / "out"
    # 1. interrupted (SIGINT, as Ctrl+C sends it) as soon as its first run is recorded
    interrupted_code = _interrupted_sweep(models, out)
    recorded = sorted(p.name for p in (out / "rows").glob("*.json"))
    interrupted_summary = json.loads((out / "summary.json").read_text())
    log_mtimes = {p.name: p.stat().st_mtime_ns for p in (out / "logs").glob("*.log")
                  if p.stem + ".json" in recorded}
    # 2. resumed (in this process: the driver imports no torch)
    resumed = run_main(_sweep_argv(models, out))
    # 3. repeated: every run is recorded with the same key
    repeated = run_main(_sweep_argv(models, out))
    return {"models": models, "out": out, "interrupted_code": interrupted_code,
            "interrupted_summary": interrupted_summary,
            "recorded": recorded, "log_mtimes": log_mtimes, "resumed": resumed, "repeated": repeated,
            "summary": json.loads((out / "summary.json").read_text())}


def _rows(fleet) -> dict:
    return {r["model"]: r for r in fleet["summary"]["rows"]}


def test_a_crash_and_a_raising_model_are_rows_and_the_others_go_on(fleet):
    rows = _rows(fleet)
    assert set(rows) == {"tiny", "crasher", "raises", "broken"}
    assert rows["tiny"]["status"] == "ok"
    assert rows["crasher"]["status"] == "error"
    assert "crashed (SIGSEGV)" in rows["crasher"]["reason"]
    assert rows["raises"]["status"] == "error"
    assert "get_model() raised RuntimeError: weights server unreachable" in rows["raises"]["reason"]
    assert rows["broken"]["status"] == "error" and "broken.py: it raised NameError on import" in rows["broken"]["reason"]
    # exit status: the verdict of what finished (XNNPACK breaks VPU rules) — never 2 for a partial failure
    assert fleet["resumed"][0] == 1 and fleet["repeated"][0] == 1
    assert fleet["summary"]["counts"] == {"ok": 1, "error": 3, "timeout": 0}


def test_an_interrupted_sweep_resumes_and_a_repeated_one_runs_nothing(fleet):
    assert fleet["interrupted_code"] == "interrupted"
    interrupted = fleet["interrupted_summary"]        # what finished before Ctrl+C is summarised
    assert interrupted["interrupted"] and len(interrupted["rows"]) == len(fleet["recorded"])
    assert 1 <= len(fleet["recorded"]) < 4
    code, out, err = fleet["resumed"]
    assert f"{len(fleet['recorded'])} of 4 runs already done" in err
    # the runs recorded before the interrupt were not run again: their logs are untouched
    for name, mtime in fleet["log_mtimes"].items():
        assert (fleet["out"] / "logs" / name).stat().st_mtime_ns == mtime
    code, out, err = fleet["repeated"]
    assert "4 of 4 runs already done" in err
    summary = fleet["summary"]
    assert summary["ran"] == 0 and summary["reused"] == 4
    assert all(r["cached"] for r in summary["rows"])


def test_rows_equal_single_check_runs(fleet):
    """The per-run JSON is what `check --format json` prints; the row's verdict fields are its."""
    tiny = fleet["models"] / "tiny.py"
    code, out, _ = run_check(str(tiny), "--quantizer", "xnnpack", "--calib-batches", "1", "--format", "json")
    assert code == 1
    check = json.loads(out)
    row = _rows(fleet)["tiny"]
    saved = json.loads((fleet["out"] / row["json"]).read_text())
    for j in (check, saved):
        j.pop("timings_s")
        for t in j["targets"].values():       # what this run timed and found in its cache
            t.pop("timings_s", None), t.pop("from_cache", None)
    assert saved == check
    assert row["rules_broken"] == [r["id"] for r in check["rules"] if r["violations"]] != []
    assert row["cpu_ops"] == len(check["partition"]["cpu_nodes"]) == 1
    assert row["subgraphs"] == len(check["partition"]["subgraphs"])
    assert row["sqnr_db"] == check["sqnr_db"]
    assert row["cpu_ops_by_cause"] == {"dtype": 0, "float": 0, "limit": 0, "memory": 0, "op_list": 1}
    assert row["cpu_ops_by_cause"] == check["summary"]["cpu_ops_by_cause"]     # the check's, zeros too
    assert row["blockers"] == {"softmax.int": {"nodes": 1, "macs": 0, "cause": "op_list"}}
    assert row["vpu_mac_share"] == pytest.approx(1.0)        # conv + linear on the VPU, softmax has no MACs
    assert row["macs"]["total"] == 8 * 8 * 8 * 27 + 4 * 512 == check["summary"]["macs_total"]


def test_summary_csv_and_dashboard_are_written_and_self_contained(fleet, html_page):
    out = fleet["out"]
    csv_lines = (out / "summary.csv").read_text().splitlines()
    assert csv_lines[0].startswith("model,quantizer,profile,status,reason,vpu_mac_share,cpu_ops,")
    assert len(csv_lines) == 5
    html = (out / "index.html").read_text()
    page = html_page(html)
    assert {"overview", "matrix", "blockers", "kernels", "runs", "failures"} <= set(page.ids)
    assert not page.scripts_src and not page.links
    assert "@import" not in html and "url(http" not in html
    assert not any(u.startswith(("http:", "https:", "//")) for u in page.urls)
    for url in page.urls:                       # every link is a file of the sweep folder (or an anchor)
        assert url.startswith("#") or (out / url).is_file(), url
    assert "runs/tiny__xnnpack__vpu-default.html" in page.urls
    assert "softmax.int blocks 1 model" in html
    run_page = (out / "runs" / "tiny__xnnpack__vpu-default.html").read_text()
    assert 'id="rules"' in run_page and "http" not in "".join(html_page(run_page).urls)


def test_a_hang_is_killed_at_the_timeout_and_nothing_finished_is_exit_2(tmp_path, monkeypatch):
    models = _write(tmp_path / "models", sleeper=SLEEPS)
    pid_file = tmp_path / "pid"
    monkeypatch.setenv("SLEEPER_PID_FILE", str(pid_file))
    code, out, err = run_main(["sweep", str(models), "-o", str(tmp_path / "out"), "--timeout", "3"])
    assert code == 2
    row = json.loads((tmp_path / "out" / "summary.json").read_text())["rows"][0]
    assert row["status"] == "timeout" and "timed out after 3 s" in row["reason"]
    if pid_file.exists():                      # it got as far as sleeping: the process is gone
        with pytest.raises(ProcessLookupError):
            os.kill(int(pid_file.read_text()), 0)


def test_plan_expands_folders_lists_and_zoo_names(tmp_path):
    from vpu_core.sweep.plan import plan_sweep

    _write(tmp_path / "a", one=TINY, _private=TINY)
    _write(tmp_path / "b", one=TINY)
    (tmp_path / "list.txt").write_text("# the fleet\nb/one.py\nconv_relu\n\na\n")
    plan = plan_sweep([str(tmp_path / "list.txt"), "conv_relu"], ("vpu", "xnnpack"), (None,))
    assert len(plan.runs) == 3 * 2
    labels = plan.models
    assert labels[1] == "conv_relu" and labels[0] != labels[2]          # two one.py: told apart
    assert all(r.key for r in plan.runs)
    twins = [r for r in plan.runs if r.config.model == "conv_relu"]
    assert twins[0].export_key == twins[1].export_key and twins[0].key != twins[1].key


def test_profiles_are_files_or_shipped_names_as_for_check(tmp_path):
    from resources import EDGE_NPU_PROFILE
    from vpu_core.sweep.cli import sweep_profiles
    from vpu_core.sweep.plan import SweepError

    own = tmp_path / "mine.toml"
    own.write_text(EDGE_NPU_PROFILE.read_text(encoding="utf-8"), encoding="utf-8")
    assert sweep_profiles(["edge_npu", "edge-npu", str(own)]) == (str(EDGE_NPU_PROFILE), str(EDGE_NPU_PROFILE),
                                                                  str(own.resolve()))
    with pytest.raises(SweepError, match="Cannot read the profile nope: no such file"):
        sweep_profiles(["nope"])


def test_fleet_ranks_blockers_by_models_then_macs():
    from vpu_core.sweep.fleet import blockers, next_kernels

    def row(model, blocks, cpu_macs, candidates=()):
        return {"model": model, "profile": "p", "quantizer": "vpu", "status": "ok", "macs": {"cpu": cpu_macs},
                "blockers": blocks, "op_candidates": list(candidates)}

    rows = [row("m1", {"layer_norm.default": {"nodes": 2, "macs": 0, "cause": "op_list"},
                       "matmul.default": {"nodes": 1, "macs": 300, "cause": "op_list"},
                       "scaled_dot_product_attention.default": {"nodes": 1, "macs": 900, "cause": "op_list"}},
                400, [{"op": "matmul.default", "bytes_saved": 10, "subgraphs_merged": 1, "nodes_moved": 1,
                       "macs_moved": 300},
                      # its node reads a bool mask and stays on the CPU: it moves nothing
                      {"op": "scaled_dot_product_attention.default", "bytes_saved": 0, "subgraphs_merged": 0,
                       "nodes_moved": 0, "macs_moved": 0}]),
            row("m2", {"layer_norm.default": {"nodes": 1, "macs": 0, "cause": "op_list"},
                       "matmul.default": {"nodes": 1, "macs": 100, "cause": "op_list"}}, 600),
            row("m3", {"layer_norm.default": {"nodes": 4, "macs": 0, "cause": "op_list"}}, 0)]
    found = blockers(rows, "p", ("vpu",))
    assert [b.key for b in found] == ["layer_norm.default", "matmul.default", "scaled_dot_product_attention.default"]
    assert found[1].models == ("m1", "m2") and found[1].share_of_their_cpu_macs == pytest.approx(0.4)
    kernels = next_kernels(rows, "p", ("vpu",))
    assert [(k.op, k.macs_moved, k.nodes_moved) for k in kernels] == [("matmul.default", 300, 1)]
    rows[1]["op_candidates"] = [{"op": "conv2d.default", "kind": "limit", "limit": "conv2d.kernel_max",
                                 "from": [3, 3], "to": [5, 5], "bytes_saved": 64, "nodes_moved": 2,
                                 "macs_moved": 4096}]
    relaxed = [k for k in next_kernels(rows, "p", ("vpu",)) if k.op.startswith("conv2d")]
    assert [(k.op, k.models, k.bytes_saved, k.macs_moved) for k in relaxed] == \
        [("conv2d.kernel_max → [5, 5]", ("m2",), 64, 4096)]


def test_rows_read_the_check_summary_and_causes_when_present():
    from vpu_core.sweep.rows import ok_row

    check = {"rules": [{"id": "pow2_scale", "violations": 2}], "violations": [{}, {}], "sqnr_db": 30.0,
             "partition": {"subgraphs": [{}], "cpu_nodes": [
                 {"node": "c", "op": "conv2d.default", "reason": "kernel 7x7 > 3x3", "cause": "limit",
                  "limit": "conv2d.kernel_max"},
                 {"node": "i", "op": "add.Tensor", "reason": "integer tensor op: add", "cause": "dtype"}]},
             "summary": {"vpu_mac_share": 0.625, "cpu_ops_by_cause": {"limit": 1, "dtype": 1}}}
    row = ok_row({"model": "m", "quantizer": "vpu", "profile": "p"}, check, 1.0)
    assert row["vpu_mac_share"] == 0.625 and row["cpu_ops_by_cause"] == {"dtype": 1, "limit": 1}
    assert list(row["blockers"]) == ["conv2d.kernel_max"] and row["rules_broken"] == ["pow2_scale"]
    assert list(row)[:12] == ["model", "quantizer", "profile", "status", "reason", "vpu_mac_share", "cpu_ops",
                              "cpu_ops_by_cause", "subgraphs", "rules_broken", "sqnr_db", "seconds"]


def test_progress_is_one_line_per_run_when_not_a_terminal():
    import io

    from vpu_core.sweep.progress import SweepProgress

    stream = io.StringIO()
    progress = SweepProgress(2, 2, stream)
    progress.started("a", "m · vpu · p")
    progress.tick(force=True)
    progress.finished("a", {"model": "m", "quantizer": "vpu", "profile": "p", "status": "timeout",
                            "reason": "timed out after 5 s", "seconds": 5.0})
    assert stream.getvalue() == "[1/2] TIMEOUT     5.0 s  m · vpu · p: timed out after 5 s\n"
    assert "ETA" in progress.bar_text()


def test_the_sweep_driver_never_imports_torch():
    """Planning, scheduling, rows, the dashboard: torch is only imported in the workers."""
    code = ("import sys; import vpu_core.sweep.cli, vpu_core.sweep.run, vpu_core.sweep.local, "
            "vpu_core.sweep.dashboard, vpu_core.sweep.folder, vpu_core.sweep.ray_engine; "
            "from vpu_core.sweep.plan import plan_sweep; plan_sweep(['conv_relu'], ('vpu', 'xnnpack')); "
            "from vpu_core.sweep.cli import sweep_profiles; sweep_profiles(['edge_npu']); "
            "assert 'torch' not in sys.modules, 'torch imported'")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent.parent), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_after_an_edit_only_the_edited_model_runs_again(fleet, tmp_path):
    """A second sweep re-runs what changed: the edited model's run (new content key), nothing else."""
    import shutil

    models, out = tmp_path / "models", tmp_path / "out"
    shutil.copytree(fleet["models"], models)
    shutil.copytree(fleet["out"], out)
    with open(models / "raises.py", "a", encoding="utf-8") as f:
        f.write("# edited\n")
    code, _, err = run_main(_sweep_argv(models, out))
    summary = json.loads((out / "summary.json").read_text())
    assert "3 of 4 runs already done" in err and summary["ran"] == 1
    assert [r["model"] for r in summary["rows"] if not r["cached"]] == ["raises"]
    assert code == 1


def test_children_never_import_the_drivers_main_module():
    """A driver read from stdin cannot be imported again, a user's script must not run once per
    run: while a worker starts, multiprocessing is given nothing to re-import."""
    from multiprocessing import spawn

    from vpu_core.worker.server import without_main_module

    with without_main_module():
        data = spawn.get_preparation_data("vpu-sweep-x")
    assert "init_main_from_name" not in data and "init_main_from_path" not in data
    assert sys.modules["__main__"].__name__ == "__main__" and hasattr(sys.modules["__main__"], "__spec__")

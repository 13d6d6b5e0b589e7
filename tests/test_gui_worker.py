"""The window survives its models: a model that segfaults, calls os._exit or hangs runs in the
worker process, so the window stays, says in one sentence what happened and in which stage, keeps
the previous graph, and runs the next model in a fresh worker. Cancel of a run stuck in
torch.export, and the time limit, kill the worker's whole process group: nothing is left running
(read from /proc). Real processes, real crashes."""
from __future__ import annotations

from pathlib import Path

from vpu_core.config import RunConfig

RUN_TIMEOUT_MS = 180_000
GOOD = {"model": "conv_relu", "calib_batches": 1}

SEGFAULTS = """
import ctypes

def get_model():
    ctypes.string_at(0)          # a null read, as a broken native extension does
"""
EXITS = """
import os

def get_model():
    os._exit(3)
"""
HANGS_IN_EXPORT = """
import os, subprocess, time
import torch
from torch import nn

class Hangs(nn.Module):
    def forward(self, x):
        helper = subprocess.Popen(["sleep", "600"])          # something it started: killed with it
        with open(os.environ["HANG_PID_FILE"], "w") as f:
            f.write(f"{os.getpid()} {helper.pid}")
        while True:              # torch.export runs forward: the run never leaves the export
            time.sleep(0.05)

def get_model():
    return Hangs(), (torch.randn(1, 4),)
"""


def _model(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _fails(qtbot, window, model: str, error_box) -> str:
    """Run `model`, which must fail: the one line of the dialog (the error's message)."""
    with qtbot.waitSignal(window.runs.failed, timeout=RUN_TIMEOUT_MS) as blocker:
        window.runs.start(RunConfig(model=model))
    box = error_box()
    assert box.text() == blocker.args[0].message
    box.close()
    return box.text()


def _running(pid: int) -> bool:
    """A process that still runs (a zombie waiting to be read by its parent has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] not in ("Z", "X")


def _group_running(pgid: int) -> list[int]:
    """Processes of process group `pgid` that still run."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            found.append(int(stat.parent.name))
    return found


def _still_shown(window, good, scene) -> None:
    assert window.state.result is good and not window.runs.is_running()
    assert window.graph_view.graph_scene() is scene                      # not even redrawn


def test_a_segfaulting_and_an_exiting_model_are_one_sentence_and_the_next_model_runs(
        qtbot, window, run_and_wait, error_box, tmp_path):
    from vpu_core.worker.host import default_host

    good = run_and_wait(window, GOOD)
    scene = window.graph_view.graph_scene()
    for name, text, how in (("segv.py", SEGFAULTS, "segmentation fault"),
                            ("exits.py", EXITS, "its process exited with code 3")):
        line = _fails(qtbot, window, _model(tmp_path, name, text), error_box)
        assert line == f"The run of {name} ended: {how} while loading the model"
        _still_shown(window, good, scene)
        assert how in window.summary.text() and default_host().worker_pid is None   # it is gone
    after = run_and_wait(window, {**GOOD, "seed": 6})            # nothing cached: a fresh worker runs it
    assert window.state.result is after and "calibrate" in after.stages_run
    assert default_host().worker_pid is not None


def test_cancel_of_a_run_stuck_in_export_leaves_no_process_behind(qtbot, window, run_and_wait, tmp_path, monkeypatch):
    from PySide6.QtCore import Qt

    pids = tmp_path / "pids"
    monkeypatch.setenv("HANG_PID_FILE", str(pids))
    good = run_and_wait(window, GOOD)
    scene = window.graph_view.graph_scene()
    window.runs.start(RunConfig(model=_model(tmp_path, "hangs.py", HANGS_IN_EXPORT)))
    qtbot.waitUntil(lambda: pids.exists() and len(pids.read_text().split()) == 2, timeout=RUN_TIMEOUT_MS)
    worker, helper = map(int, pids.read_text().split())
    qtbot.waitUntil(lambda: window.stage.text().startswith("Exporting"))    # the stage it is stuck in
    assert _running(helper)
    assert worker in _group_running(worker)                  # the worker leads its own group
    with qtbot.waitSignal(window.runs.jobs.cancelled, timeout=RUN_TIMEOUT_MS):
        qtbot.mouseClick(window.controls.cancel_button, Qt.MouseButton.LeftButton)
    assert _group_running(worker) == [] and not _running(helper)
    _still_shown(window, good, scene)
    assert "Cancelled" in window.stage.text()
    after = run_and_wait(window, {**GOOD, "seed": 7})
    assert window.state.result is after


def test_a_run_past_the_time_limit_is_stopped_with_a_sentence(qtbot, window, run_and_wait, error_box,
                                                              tmp_path, monkeypatch):
    pids = tmp_path / "pids"
    monkeypatch.setenv("HANG_PID_FILE", str(pids))
    good = run_and_wait(window, GOOD)
    scene = window.graph_view.graph_scene()
    window.state.time_limit_s = 3.0                          # Run ▸ Time limit of a run…
    line = _fails(qtbot, window, _model(tmp_path, "hangs.py", HANGS_IN_EXPORT), error_box)
    assert line == ("The run of hangs.py ended: stopped at the time limit of a run (3 s) while exporting it "
                    "(torch.export)")
    worker, helper = map(int, pids.read_text().split())
    assert _group_running(worker) == [] and not _running(helper)
    _still_shown(window, good, scene)
    window.state.time_limit_s = 1800.0
    assert run_and_wait(window, {**GOOD, "seed": 8}) is window.state.result


def test_a_screenshot_of_a_segfaulting_model_exits_2_with_the_sentence(tmp_path):
    import os
    import subprocess
    import sys

    model = _model(tmp_path, "segv.py", SEGFAULTS)
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-m", "app.cli", "gui", model, "--screenshot", str(tmp_path / "w.png")],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 2 and not (tmp_path / "w.png").exists()
    assert proc.stderr.strip().splitlines()[-1] == ("vpu-inspector: error: The run of segv.py ended: "
                                                    "segmentation fault while loading the model")

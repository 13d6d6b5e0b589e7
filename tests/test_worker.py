"""The worker process (vpu_core.worker) without a window: model code runs in a child forked from the
preloaded server; its crash, exit, hang or kill is one sentence naming the stage; a killed worker
is replaced by a fresh one; what it computes equals the same run in this process. Real runs and
real processes (the models below really segfault, exit, hang)."""
from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from vpu_core.config import RunConfig, ViewOptions
from vpu_core.errors import Cancelled, InspectorError
from vpu_core.worker import jobs
from vpu_core.worker.host import WorkerHost

RUN_TIMEOUT_S = 600

HANGS_IN_EXPORT = """
import os, time
import torch
from torch import nn

class Hangs(nn.Module):
    def forward(self, x):
        open(os.environ["HANG_PID_FILE"], "w").write(str(os.getpid()))
        while True:              # torch.export runs forward: the run never leaves the export
            time.sleep(0.05)

def get_model():
    return Hangs(), (torch.randn(1, 4),)
"""


def _write(folder: Path, name: str, text: str) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return str(path)


class _Run:
    """host.run on a thread, with what it reported."""

    def __init__(self, host: WorkerHost, step, label: str = "model") -> None:
        self.stages: list[str] = []
        self.cancel = threading.Event()
        self.outcome: list = []
        self.thread = threading.Thread(target=self._go, args=(host, step, label), daemon=True)
        self.thread.start()

    def _go(self, host, step, label) -> None:
        try:
            self.outcome.append(host.run(step, label, self.cancel, progress=lambda s, f: self.stages.append(s),
                                         preview=lambda i: None))
        except BaseException as exc:  # noqa: B036 - the outcome is what the test reads
            self.outcome.append(exc)

    def result(self):
        self.thread.join(RUN_TIMEOUT_S)
        return self.outcome[0]


@pytest.fixture(scope="module")
def host():
    h = WorkerHost()
    yield h
    h.stop()


def _wait_for(path: Path, polls: int = int(RUN_TIMEOUT_S / 0.05)) -> int:
    """The pid the hanging model wrote from inside its forward (fails, never hangs, if it never
    does: a bounded number of polls, no clock read)."""
    import time

    for _ in range(polls):
        if path.exists() and path.read_text():
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError(f"the model never wrote {path.name}")


def test_a_worker_killed_mid_run_is_one_sentence_and_the_next_run_gets_a_fresh_one(host, tmp_path, monkeypatch):
    pid_file = tmp_path / "pid"
    monkeypatch.setenv("HANG_PID_FILE", str(pid_file))
    model = _write(tmp_path, "hangs.py", HANGS_IN_EXPORT)
    run = _Run(host, jobs.call(jobs.inspect, config=RunConfig(model=model), view=None), "hangs.py")
    pid = _wait_for(pid_file)
    assert pid == host.worker_pid != os.getpid()
    os.kill(pid, 9)                               # as the kernel's OOM killer would
    error = run.result()
    assert isinstance(error, InspectorError)
    assert error.message == ("The run of hangs.py ended: killed (SIGKILL: the system ran out of memory, or "
                             "another program stopped it) while exporting it (torch.export)")
    assert run.stages[-1] == "export" and host.worker_pid is None
    good = _Run(host, jobs.call(jobs.inspect, config=RunConfig(model="conv_relu", calib_batches=1), view=None))
    assert not good.result().analysis.predicted
    assert host.worker_pid not in (None, pid)


def test_cancel_kills_the_worker_at_once_and_a_time_limit_stops_it_with_a_sentence(host, tmp_path, monkeypatch):
    pid_file = tmp_path / "pid"
    monkeypatch.setenv("HANG_PID_FILE", str(pid_file))
    model = _write(tmp_path, "hangs.py", HANGS_IN_EXPORT)
    step = jobs.call(jobs.inspect, config=RunConfig(model=model), view=None)
    run = _Run(host, step)
    pid = _wait_for(pid_file)
    run.cancel.set()
    host.interrupt()
    assert isinstance(run.result(), Cancelled)
    assert not _alive(pid)
    pid_file.unlink()
    limited = threading.Event()
    worker = host.ensure_worker().pid              # the fresh worker the limited run will use
    with pytest.raises(InspectorError) as stopped:
        host.run(step, "hangs.py", limited, progress=lambda s, f: None, preview=lambda i: None, time_limit_s=2)
    assert stopped.value.message == ("The run of hangs.py ended: stopped at the time limit of a run (2 s) while "
                                     "exporting it (torch.export)")
    # on a loaded machine the limit can fall before the model's forward wrote its pid (the file was
    # then never written): the worker it ran in is what must be gone
    assert host.worker_pid is None and worker is not None and not _alive(worker)
    if pid_file.exists() and pid_file.read_text():
        assert int(pid_file.read_text()) == worker


def test_a_failure_the_worker_reports_keeps_its_type_message_and_detail_and_the_worker(host, tmp_path):
    from vpu_core.errors import ModelLoadError

    model = _write(tmp_path, "raises.py", "def get_model():\n    raise ValueError('no weights here')\n")
    step = jobs.call(jobs.inspect, config=RunConfig(model=model), view=None)
    before = host.ensure_worker().pid
    with pytest.raises(ModelLoadError) as failed:
        host.run(step, "raises.py", threading.Event(), progress=lambda s, f: None, preview=lambda i: None)
    assert failed.value.message.endswith("get_model() raised ValueError: no weights here.")
    assert "Traceback" in failed.value.detail
    assert host.worker_pid == before                       # an error is not a crash: same worker


def _alive(pid: int) -> bool:
    """A process that still runs (a zombie waiting for its parent to read it has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.slow
@pytest.mark.parametrize("model", ["conv_relu", "resnet8", "ds_cnn", "mobilenet_v1_025", "deep_autoencoder",
                                   "mobilenet_v2", "inception_lite", "transformer"])
def test_the_workers_results_equal_the_same_run_in_this_process(host, model, tmp_path, monkeypatch):
    """Each side computes from nothing (its own empty cache): the frozen results that come back
    pickled are the in-process ones, graph and layout included."""
    import dataclasses

    from vpu_core.session import Session

    config, view = RunConfig(model=model, calib_batches=1), ViewOptions()
    monkeypatch.setenv("VPU_INSPECTOR_CACHE_DIR", str(tmp_path / "worker-cache"))
    step = jobs.call(jobs.inspect, config=config, view=view, int_sim=True, whatif=True)
    worker = host.run(step, model, threading.Event(), progress=lambda s, f: None, preview=lambda i: None)
    here = Session(disk_cache=False).inspect(config, view, int_sim=True, whatif=True)

    def timeless(inspection):     # how long each side took is all that may differ
        return (dataclasses.replace(inspection.analysis, timings_s={}),
                dataclasses.replace(inspection.attached, timings_s={},
                                    int_sim=dataclasses.replace(inspection.attached.int_sim, seconds=0.0),
                                    whatif=dataclasses.replace(inspection.attached.whatif, seconds=0.0)))

    assert timeless(worker) == timeless(here)
    assert worker.graph.model == here.graph.model
    assert worker.graph.layout == here.graph.layout
    assert worker.stages_run == here.stages_run


def test_check_of_a_model_that_exits_says_so_in_one_sentence_and_exits_2(tmp_path, run_cli):
    """`check` runs the model in its own process: os._exit(3) or sys.exit(4) from the model's code
    is that sentence and exit code 2, never the model's exit code without a word."""
    for name, call, code in (("exits.py", "os._exit(3)", 3), ("quits.py", "sys.exit(4)", 4)):
        model = _write(tmp_path, name, f"import os, sys\n\ndef get_model():\n    {call}\n")
        exit_code, out, err = run_cli("check", model)
        assert exit_code == 2 and out == ""
        assert err.strip().splitlines()[-1] == (f"vpu-inspector: error: The run of {name} ended: the model "
                                                f"called {call.split('(')[0]}({code}) while loading the model")

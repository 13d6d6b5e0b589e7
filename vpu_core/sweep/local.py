"""The local engine: one worker process per run (`python -m vpu_core.sweep.worker TASK`), at
most `workers` at a time.

Why processes and not threads or a pool: torch.export and ExecuTorch's lowering change
process-wide state, and a model file may segfault, call os._exit or hang. A process per run is
isolated from all of that: a crash is a non-zero exit (or a signal) without a result file, a
hang is killed with its whole process group at the timeout, and either becomes that run's row
while the others go on. Each worker goes through the same Session and disk cache as `check`.
Interrupting the sweep (Ctrl+C) kills the running workers; the rows already written stay, and
the same command resumes from them.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import vpu_core
from vpu_core.sweep.engine import Ledger, clock, timeout_reason
from vpu_core.sweep.plan import Run
from vpu_core.sweep.rows import failed_row
from vpu_core.sweep.worker import task_for

POLL_S = 0.05


@dataclass
class _Worker:
    run: Run
    process: subprocess.Popen
    started: float
    result_path: Path
    log: object


def run_local(ledger: Ledger) -> None:
    """Run every pending run of `ledger` in worker processes; rows go to the ledger as they end."""
    running: dict[str, _Worker] = {}
    with tempfile.TemporaryDirectory(prefix="vpu-sweep-") as tmp:
        try:
            while ledger.pending or running:
                _start_more(ledger, running, Path(tmp))
                _reap(ledger, running)
                ledger.progress.tick()
        finally:
            for worker in running.values():     # interrupted: no orphan keeps computing
                _kill(worker.process)
                worker.log.close()


def _start_more(ledger: Ledger, running: dict[str, _Worker], tmp: Path) -> None:
    while len(running) < ledger.options.workers:
        busy = {w.run.export_key for w in running.values()}
        run = ledger.next_run(busy)
        if run is None:
            return
        running[run.slug] = _spawn(ledger, run, tmp)
        ledger.began(run)


def _spawn(ledger: Ledger, run: Run, tmp: Path) -> _Worker:
    folder, options = ledger.folder, ledger.options
    task = task_for(run.config, ledger.base(run), options.cache_dir, options.no_cache, options.html)
    result = tmp / f"{run.slug}.result.json"
    result.unlink(missing_ok=True)
    task["result_path"] = str(result)
    task["outputs"] = {"json": str(folder.check_json(run)), "html": str(folder.page(run)) if options.html else None}
    task_path = tmp / f"{run.slug}.task.json"
    task_path.write_text(json.dumps(task), encoding="utf-8")
    log = open(folder.log(run), "wb")
    process = subprocess.Popen([sys.executable, "-m", "vpu_core.sweep.worker", str(task_path)],
                               stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                               env=_worker_env(), start_new_session=True)
    return _Worker(run, process, clock(), result, log)


def _worker_env() -> dict:
    """This process' environment, with this very package first on the path (the same code, so
    the same cache keys)."""
    env = dict(os.environ)
    root = str(Path(vpu_core.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    env.setdefault("PYTHONUNBUFFERED", "1")
    return env


def _reap(ledger: Ledger, running: dict[str, _Worker]) -> None:
    try:
        next(iter(running.values())).process.wait(POLL_S)
    except (StopIteration, subprocess.TimeoutExpired):
        pass
    timeout = ledger.options.timeout_s
    for slug, worker in list(running.items()):
        code = worker.process.poll()
        elapsed = clock() - worker.started
        if code is None:
            if timeout is None or elapsed <= timeout:
                continue
            _kill(worker.process)
            row = failed_row(ledger.base(worker.run), "timeout", timeout_reason(timeout), elapsed)
        else:
            row = _result(ledger, worker, code, elapsed)
        worker.log.close()
        del running[slug]
        ledger.finish(worker.run, row, elapsed)


def _result(ledger: Ledger, worker: _Worker, code: int, elapsed: float) -> dict:
    try:
        return json.loads(worker.result_path.read_text(encoding="utf-8"))["row"]
    except (OSError, ValueError, KeyError):
        pass
    return failed_row(ledger.base(worker.run), "error", crash_reason(code, ledger.folder.log(worker.run)), elapsed)


def crash_reason(code: int, log: Path) -> str:
    """One line for a worker that died without a result: how, and the last thing it printed."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        how = f"the worker process crashed ({name})"
    else:
        how = f"the worker process exited with code {code} before its result was written"
    last = _last_line(log)
    return f"{how}; last output: {last}" if last else how


def _last_line(log: Path) -> str:
    try:
        lines = log.read_bytes()[-4096:].decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    lines = [ln.strip() for ln in lines if ln.strip() and not ln.startswith(("Failed to load", "W1", "  "))]
    return lines[-1][:200] if lines else ""


def _kill(process: subprocess.Popen) -> None:
    """Kill the worker and everything it started (its own process group)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        pass

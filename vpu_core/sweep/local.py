"""The local engine: one worker process per run, at most `workers` at a time.

Why processes and not threads or a pool: torch.export and ExecuTorch's lowering change
process-wide state, and a model file may segfault, call os._exit or hang. A process per run is
isolated from all of that: a crash is a non-zero exit (or a signal) without a result file, a
hang is killed with its whole process group at the timeout, and either becomes that run's row
while the others go on. Each worker goes through the same Session and disk cache as `check`.
Interrupting the sweep (Ctrl+C) kills the running workers; the rows already written stay, and
the same command resumes from them.

Where the processes come from: the fork server of vpu_core.worker.server, started once per
sweep, imports torch, torchao, ExecuTorch's quantizer and our pipeline (vpu_core.sweep.preload)
and forks one child per run, which starts without the ~4 s of imports a new interpreter pays
(`check` pays them every time). The child takes the driver's environment as it is when the run
starts, leads its own process group (killed at the timeout) and sends its output to the run's log.
"""
from __future__ import annotations

import json
import multiprocessing
import multiprocessing.connection
import os
import signal
import tempfile
from dataclasses import dataclass
from pathlib import Path

from vpu_core.sweep.ledger import Ledger, clock, timeout_reason
from vpu_core.sweep.plan import Run
from vpu_core.sweep.rows import failed_row
from vpu_core.sweep.worker import forked_main, task_for
from vpu_core.worker.ending import last_log_line
from vpu_core.worker.server import fork_server, kill_group, start_child

POLL_S = 0.05
PRELOAD = ["vpu_core.sweep.preload"]


@dataclass
class _Worker:
    run: Run
    process: multiprocessing.process.BaseProcess
    started: float
    result_path: Path


def run_local(ledger: Ledger) -> None:
    """Run every pending run of `ledger` in worker processes; rows go to the ledger as they end."""
    running: dict[str, _Worker] = {}
    ctx = fork_server(PRELOAD)
    with tempfile.TemporaryDirectory(prefix="vpu-sweep-") as tmp:
        try:
            while ledger.pending or running:
                _start_more(ledger, running, Path(tmp), ctx)
                _reap(ledger, running)
                ledger.progress.tick()
        finally:
            for worker in running.values():     # interrupted: no orphan keeps computing
                kill_group(worker.process)


def _start_more(ledger: Ledger, running: dict[str, _Worker], tmp: Path, ctx) -> None:
    while len(running) < ledger.options.workers:
        busy = {w.run.export_key for w in running.values()}
        run = ledger.next_run(busy)
        if run is None:
            return
        running[run.slug] = _spawn(ledger, run, tmp, ctx)
        ledger.began(run)


def _spawn(ledger: Ledger, run: Run, tmp: Path, ctx) -> _Worker:
    folder, options = ledger.folder, ledger.options
    task = task_for(run.config, ledger.base(run), options.cache_dir, options.no_cache, options.html)
    result = tmp / f"{run.slug}.result.json"
    result.unlink(missing_ok=True)
    task["result_path"] = str(result)
    task["outputs"] = {"json": str(folder.check_json(run)), "html": str(folder.page(run)) if options.html else None}
    task["env"] = dict(os.environ)
    task["log"] = str(folder.log(run))
    task_path = tmp / f"{run.slug}.task.json"
    task_path.write_text(json.dumps(task), encoding="utf-8")
    process = ctx.Process(target=forked_main, args=(str(task_path),), name=f"vpu-sweep-{run.slug}", daemon=False)
    start_child(process)
    return _Worker(run, process, clock(), result)


def _reap(ledger: Ledger, running: dict[str, _Worker]) -> None:
    multiprocessing.connection.wait([w.process.sentinel for w in running.values()], POLL_S)
    timeout = ledger.options.timeout_s
    for slug, worker in list(running.items()):
        code = worker.process.exitcode
        elapsed = clock() - worker.started
        if code is None:
            if timeout is None or elapsed <= timeout:
                continue
            kill_group(worker.process)
            row = failed_row(ledger.base(worker.run), "timeout", timeout_reason(timeout), elapsed)
        else:
            row = _result(ledger, worker, code, elapsed)
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
    last = last_log_line(log)
    return f"{how}; last output: {last}" if last else how


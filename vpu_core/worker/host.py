"""The window's side of its worker (no Qt): one worker process at a time, its messages, its end in words.

    host = WorkerHost()
    host.start_server()                     # at launch: the server imports torch on another core
    value = host.run(job, "bad.py", cancel, progress=fn, preview=fn, time_limit_s=1800)
    host.interrupt()                        # Cancel, from any thread: the running worker's group is killed

`run` sends the job to the worker (forking one from the server when there is none), passes its
progress and preview to `progress(stage, fraction)` and `preview(inspection)` as they come and returns the result, or raises: Cancelled
when `cancel` was set (the worker is killed at once), InspectorError with the worker's own
message when the job failed there, and InspectorError("The run of bad.py ended: segmentation
fault while loading the model") when the process died, ran out of memory or passed the time
limit — the last stage it reported says what it was doing, its log's last lines are the detail.
A killed or dead worker is gone: the next job gets a fresh one. Jobs run one at a time: the
caller serialises them (app.jobs runs them on one thread).
"""
from __future__ import annotations

import atexit
import multiprocessing.connection
import os
import signal
import tempfile
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, Callable

from vpu_core.errors import Cancelled, InspectorError
from vpu_core.progress import ProgressFn
from vpu_core.stages import Stage
from vpu_core.worker.ending import ended, exit_words
from vpu_core.worker.server import kill_group, start_child, start_server

PRELOAD = ["vpu_core.worker.preload"]
POLL_S = 0.05
LOG_TAIL_BYTES = 3000


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    alive: Connection          # never written: the worker ends when it closes (the window is gone)
    log: Path

    @property
    def pid(self) -> int | None:
        return self.process.pid


class WorkerHost:
    def __init__(self, preload: list[str] | None = None) -> None:
        self.preload = list(PRELOAD if preload is None else preload)
        self._ctx: Any = None
        self._worker: _Worker | None = None
        self._running: _Worker | None = None      # the worker a job runs in right now
        self._lock = threading.Lock()
        self._starting = threading.Lock()         # one fork at a time (the launch's, a job's)
        self.peak_kib = 0                          # the largest peak memory a worker reported
        self._stops_at_exit = False

    # -- processes ---------------------------------------------------------------------------------
    def start_server(self) -> None:
        """Start the fork server now: it imports torch (and the preload) while the caller goes on."""
        if self._ctx is None:
            self._ctx = start_server(self.preload)

    def start_worker(self) -> None:
        """Fork the first worker in the background (at launch): it is ready when the first job
        comes, and nothing waits meanwhile (a job answered from the cache never does)."""
        threading.Thread(target=self._fork_ahead, name="vpu-inspector-fork", daemon=True).start()

    def _fork_ahead(self) -> None:
        try:
            self.ensure_worker()
        except Exception:     # the first job forks again and reports what stops it
            pass

    def ensure_worker(self) -> _Worker:
        """The live worker, forked now if there is none (waits for the server's imports)."""
        with self._starting:
            return self._ensure_worker()

    def _ensure_worker(self) -> _Worker:
        worker = self._worker
        if worker is not None and worker.process.exitcode is None:
            return worker
        if worker is not None:
            self._end(worker)
        self.start_server()
        if not self._stops_at_exit:
            # before multiprocessing's own exit handler, which would wait for the worker forever
            atexit.register(self.stop)
            self._stops_at_exit = True
        from vpu_core.worker.child import serve

        ours, theirs = self._ctx.Pipe()
        alive_r, alive_w = self._ctx.Pipe(duplex=False)
        fd, log = tempfile.mkstemp(prefix="vpu-inspector-worker-", suffix=".log")
        os.close(fd)
        process = self._ctx.Process(target=serve, args=(theirs, alive_r, log), name="vpu-inspector-worker",
                                    daemon=False)
        start_child(process)
        theirs.close()
        alive_r.close()
        self._worker = _Worker(process, ours, alive_w, Path(log))
        return self._worker

    @property
    def worker_pid(self) -> int | None:
        """The process id of the live worker (None: none yet, or it was stopped)."""
        worker = self._worker
        return worker.pid if worker is not None and worker.process.exitcode is None else None

    def interrupt(self) -> None:
        """Kill the worker a job is running in, now (any thread); the job then raises Cancelled."""
        with self._lock:
            worker = self._running
        if worker is not None and worker.pid is not None:
            for kill in (lambda: os.killpg(worker.pid, signal.SIGKILL), worker.process.kill):
                try:
                    kill()
                except (ProcessLookupError, PermissionError, OSError, ValueError):
                    pass

    def stop(self) -> None:
        """Kill the worker (if any): the window is closing, or a test wants a fresh one."""
        worker, self._worker = self._worker, None
        if worker is not None:
            self._end(worker)

    def _end(self, worker: _Worker) -> str:
        """Kill `worker`'s group, close its pipes; returns the end of its log (for an error's detail)."""
        kill_group(worker.process)
        for conn in (worker.conn, worker.alive):
            conn.close()
        try:
            with worker.log.open("rb") as f:
                f.seek(max(0, worker.log.stat().st_size - LOG_TAIL_BYTES))
                tail = f.read().decode("utf-8", "replace")
            worker.log.unlink()
        except OSError:
            tail = ""
        if self._worker is worker:
            self._worker = None
        return tail

    # -- jobs ----------------------------------------------------------------------------------------
    def run(self, job: Any, label: str, cancel: threading.Event, *, progress: ProgressFn,
            preview: Callable[[Any], None], time_limit_s: float | None = None) -> Any:
        """Run `job` (a vpu_core.worker.jobs.JobCall) in the worker; see the module doc."""
        worker = self.ensure_worker()
        with self._lock:
            self._running = worker
        try:
            if cancel.is_set():
                raise Cancelled()
            worker.conn.send((job, dict(os.environ), os.getcwd()))
            return self._follow(worker, label, cancel, progress, preview, time_limit_s)
        finally:
            with self._lock:
                self._running = None

    def _follow(self, worker: _Worker, label: str, cancel: threading.Event, progress: ProgressFn,
                preview: Callable[[Any], None], time_limit_s: float | None) -> Any:
        stage: Stage | None = None
        deadline = None if time_limit_s is None else time.monotonic() + time_limit_s
        while True:
            ready = multiprocessing.connection.wait([worker.conn, worker.process.sentinel], POLL_S)
            message = _receive(worker.conn) if worker.conn in ready else None
            if message is not None:
                kind = message[0]
                if kind == "progress":
                    stage = message[1]
                    progress(message[1], message[2])
                elif kind == "preview":
                    preview(message[1])
                elif kind == "result":
                    self.peak_kib = max(self.peak_kib, message[2])
                    return message[1]
                else:
                    raise _failure(message)
                continue
            if cancel.is_set():
                self._end(worker)
                raise Cancelled()
            if worker.process.exitcode is not None or worker.conn in ready:   # dead, or its pipe closed
                worker.process.join(5)
                code = worker.process.exitcode
                tail = self._end(worker)
                if cancel.is_set():
                    raise Cancelled()
                raise InspectorError(ended(label, exit_words(code if code is not None else -9), stage), tail)
            if deadline is not None and time.monotonic() > deadline:
                tail = self._end(worker)
                raise InspectorError(ended(label, f"stopped at the time limit of a run ({time_limit_s:g} s)",
                                           stage), tail)


_DEFAULT: WorkerHost | None = None


def default_host() -> WorkerHost:
    """The process-wide worker host (the window's): created on first use."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = WorkerHost()
    return _DEFAULT


def _receive(conn: Connection) -> tuple | None:
    try:
        return conn.recv()
    except (EOFError, OSError):
        return None


def _failure(message: tuple) -> InspectorError:
    """The worker's error as it was raised there (its type, message and detail)."""
    _, kind, text, detail = message
    try:
        error = kind(text, detail)
    except TypeError:                # a type with its own constructor (Cancelled): the base
        error = InspectorError(text, detail)
    return error if isinstance(error, InspectorError) else InspectorError(text, detail)

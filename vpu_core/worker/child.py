"""The window's worker process: forked from the preloaded server, it runs job after job.

    serve(conn, alive, log)      # the target of the worker Process (vpu_core.worker.host)

It leads its own process group (the window kills that group to stop it), writes what it prints
to its log (the window shows the end of it when the process dies) and keeps one session for its
whole life, so a job reuses what the jobs before it computed (the follow-up stages of a result,
compare mode, an ablation). A job arrives as (JobCall, environment, working folder) and goes back
as messages, in order:

    ("progress", stage, fraction)   as the session reports
    ("preview", Inspection)         the predicted partition, while PT2E quantizes
    ("result", value, peak_kib)     the job's frozen result, and this process's peak memory so far
    ("failed", error type, message, detail)

A segfault, os._exit or a kill sends nothing: the window reads the process's end instead. When
the window's end of `alive` closes (the window is gone) the process kills its group.
"""
from __future__ import annotations

import faulthandler
import os
import pickle
import resource
import signal
import sys
import threading
import traceback
import warnings
from multiprocessing.connection import Connection

from vpu_core.errors import InspectorError
from vpu_core.progress import RunContext
from vpu_core.worker.jobs import JobCall, JobOutput
from vpu_core.worker.server import lead_own_group


def serve(conn: Connection, alive: Connection, log: str) -> None:
    lead_own_group()
    _output_to(log)
    faulthandler.enable()            # a segfault leaves its Python stack in the log
    warnings.filterwarnings("ignore")
    threading.Thread(target=_end_with_the_window, args=(alive,), name="vpu-worker-watch", daemon=True).start()
    from vpu_core import quiet
    from vpu_core.session import default_session

    quiet.silence_torchao()
    session = default_session()
    while True:
        try:
            job, env, cwd = conn.recv()
        except (EOFError, OSError):  # the window closed the connection: nothing more to do
            break
        _take(env, cwd)
        _reply(conn, _run(job, session, conn))
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)                      # no multiprocessing or atexit clean-up of the server's copy


def _run(job: JobCall, session, conn: Connection) -> tuple:
    out = JobOutput(RunContext(lambda stage, fraction: conn.send(("progress", stage, fraction))),
                    lambda inspection: conn.send(("preview", inspection)))
    try:
        return ("result", job.run(session, out), peak_kib())
    except InspectorError as exc:
        return ("failed", type(exc), exc.message, exc.detail)
    except Exception as exc:         # a bug: still a message, never a dead window
        return ("failed", InspectorError, f"Unexpected error: {type(exc).__name__}: {exc}", traceback.format_exc())


def _reply(conn: Connection, message: tuple) -> None:
    try:
        conn.send(message)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:   # a result that cannot travel
        conn.send(("failed", InspectorError, f"Unexpected error: the result cannot be sent back ({exc})",
                   traceback.format_exc()))


def peak_kib() -> int:
    """This process's peak resident memory so far (KiB)."""
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


def _take(env: dict, cwd: str) -> None:
    """The window's environment and working folder as they are now (a relative model path, the
    cache folder, a setting the user changed since the server started)."""
    os.environ.clear()
    os.environ.update(env)
    try:
        os.chdir(cwd)
    except OSError:
        pass


def _output_to(log: str) -> None:
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)


def _end_with_the_window(alive: Connection) -> None:
    try:
        alive.recv_bytes()           # nothing is ever sent: this returns when the window is gone
    except (EOFError, OSError):
        pass
    os.killpg(0, signal.SIGKILL)

"""The fork server model processes come from, and the life of one such process.

multiprocessing's `forkserver` with a preload: the server is a fresh interpreter that imports the
preload modules once (imports only: no torch op, no thread pool, one thread, so forking it is
safe) and then forks one child per `Process.start()`. A child is a fresh process as far as any
run can tell — nothing was exported or lowered in its parent — without the seconds of imports a
new interpreter pays. The sweep preloads the whole pipeline (each of its children runs one whole
run); the window preloads only what its first graph needs (vpu_core.worker.preload), so that its
server is ready when torch and torch._dynamo are.

Only one server per process (multiprocessing keeps one): the first `fork_server` call's preload
is the one it imports. Starting it costs the caller milliseconds (`start_server`); the imports
run in the server, on another core, while the caller goes on (the window builds itself).
"""
from __future__ import annotations

import contextlib
import gc
import multiprocessing
import multiprocessing.context
import multiprocessing.forkserver
import os
import signal
import sys
import types
from typing import Iterator, Sequence


def fork_server(preload: Sequence[str]) -> multiprocessing.context.ForkServerContext:
    """The multiprocessing context whose server preloads `preload` (when it starts)."""
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(list(preload))
    # A child killed at its timeout cannot unregister the semaphores torch made in it; the
    # resource tracker (started with this interpreter's -W options) then warns at exit about
    # objects it cleans up anyway. Not the user's concern.
    if "ignore::UserWarning" not in sys.warnoptions:
        sys.warnoptions.append("ignore::UserWarning")
    return ctx


def ready_to_fork() -> None:
    """The last line of a preload module: the server's objects (a torch import's million) moved
    out of the collector's reach. A child's first full collection would otherwise walk them all
    and write to every page they live on, copying the parent's heap page by page (copy-on-write):
    measured on ResNet-50's first graph, the model's build and export took 0.3-0.5 s longer in a
    forked worker than in a fresh interpreter, and as long once frozen. What is frozen is never
    freed in a child: modules and the objects they hold, alive for the process anyway."""
    gc.freeze()


def start_server(preload: Sequence[str]) -> multiprocessing.context.ForkServerContext:
    """Start the fork server now (it imports `preload` in the background); returns its context.
    A `Process.start()` of the context waits for those imports; this call does not."""
    ctx = fork_server(preload)
    with without_main_module():
        multiprocessing.forkserver.ensure_running()
    return ctx


@contextlib.contextmanager
def without_main_module() -> Iterator[None]:
    """multiprocessing makes the server and each child import the caller's __main__ again (for
    targets defined there). Ours live in vpu_core, so none needs it — and a driver script read
    from stdin cannot be imported again, while a user's own script would run its module code
    once per run. While a server or child starts, __main__ is an empty module: nothing to
    re-import."""
    real = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = real


def start_child(process: multiprocessing.process.BaseProcess) -> None:
    """`process.start()` without re-importing the caller's main module (waits for the server)."""
    with without_main_module():
        process.start()


def lead_own_group() -> None:
    """In a child: become the leader of a new process group (and session), so that killing the
    group ends the child and everything it started, and a terminal's Ctrl+C reaches the parent
    alone."""
    os.setsid()


def kill_group(process: multiprocessing.process.BaseProcess, wait_s: float = 5.0) -> None:
    """Kill a child and everything it started (its own process group, see lead_own_group), and
    wait for its exit to be recorded."""
    if process.pid is None:
        return
    for kill in (lambda: os.killpg(process.pid, signal.SIGKILL), process.kill):
        try:
            kill()
        except (ProcessLookupError, PermissionError, OSError, ValueError):
            pass
    process.join(wait_s)

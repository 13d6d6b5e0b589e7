"""Long-lived worker threads: torch work always runs on the same thread, one task at a time.

Why not a thread per task: every thread that runs torch grows native per-thread state (its own
OpenMP thread team, torch's thread-local dispatch and autograd state, a Python thread state) that
is torn down when the thread ends; a thread per job and per cancellable stage made many of them in
one session. A serial worker also makes "one at a time" a property of the structure instead of a
lock every caller must remember to take.

    worker = SerialWorker("vpu-inspector-stage")
    task = worker.submit(fn, *args)      # queued; runs after the tasks before it
    task.wait(0.05)                      # True once finished (value or error)
    task.result()                        # the value, or the exception fn raised

The thread is a daemon started on the first submit: quitting the application never waits for a
task nobody needs any more.
"""
from __future__ import annotations

import queue
import threading
from typing import Any, Callable


class Task:
    """One submitted call: finished when `done` is set, with a value or an error."""

    def __init__(self, fn: Callable, args: tuple) -> None:
        self.fn: Callable | None = fn
        self.args: tuple | None = args
        self.done = threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            assert self.fn is not None and self.args is not None, "a task runs once"
            self.value = self.fn(*self.args)
        except BaseException as exc:  # handed to whoever asks for the result, as it is
            self.error = exc
        finally:
            self.fn = self.args = None  # the task object may outlive what it ran on
            self.done.set()

    def wait(self, timeout: float | None = None) -> bool:
        return self.done.wait(timeout)

    def result(self) -> Any:
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.value


class SerialWorker:
    """One daemon thread that runs submitted calls in order, for the life of the process."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._queue: queue.SimpleQueue[Task] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def submit(self, fn: Callable, *args: Any) -> Task:
        task = Task(fn, args)
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=self.name, daemon=True)
                self._thread.start()
        self._queue.put(task)
        return task

    def is_current(self) -> bool:
        """True on the worker's own thread (a task there must not wait for a later task)."""
        return threading.current_thread() is self._thread

    def _loop(self) -> None:
        while True:
            self._queue.get().run()

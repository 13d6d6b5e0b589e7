"""How a run ended, in one sentence: "The run of bad.py ended: segmentation fault while loading the model".

A run in a worker process that dies says how (a signal, an exit code, a time limit) and what it
was doing (the last stage it reported). A run in this process (`check`) cannot survive a
segfault, but a model that calls os._exit or sys.exit there must not end it with the model's
exit code and no word: `exits_as_errors` turns both into that sentence (an InspectorError: one
line, exit 2).
"""
from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path
from typing import Callable, Iterator, NoReturn

from vpu_core.errors import InspectorError
from vpu_core.progress import ProgressFn
from vpu_core.stages import Stage, doing as stage_doing

_SIGNALS = {
    signal.SIGSEGV: "segmentation fault", signal.SIGBUS: "bus error", signal.SIGABRT: "aborted",
    signal.SIGFPE: "floating-point exception", signal.SIGILL: "illegal instruction",
    signal.SIGKILL: "killed (SIGKILL: the system ran out of memory, or another program stopped it)",
    signal.SIGTERM: "terminated (SIGTERM)",
}


def doing(stage: Stage | None) -> str:
    """What a process was doing, by the last stage it reported ("… while loading the model")."""
    return "starting" if stage is None else stage_doing(stage)


def model_label(model: str) -> str:
    """bad.py for a model file (a callable after ':' kept), the name of a zoo model."""
    path, sep, attr = model.partition(":")
    name = Path(path).name if ("/" in path or path.endswith((".py", ".pt2"))) else path
    return f"{name}{sep}{attr}"


def exit_words(code: int) -> str:
    """How a process with exit code `code` (negative: the signal) ended."""
    if code < 0:
        try:
            sig = signal.Signals(-code)
        except ValueError:
            return f"killed by signal {-code}"
        return _SIGNALS.get(sig, f"killed by {sig.name}")
    return f"its process exited with code {code}"


def ended(model: str, how: str, stage: Stage | None) -> str:
    return f"The run of {model_label(model)} ended: {how} while {doing(stage)}"


def last_log_line(log: Path | str) -> str:
    """The last meaningful line a process wrote to its log (library start-up chatter skipped)."""
    try:
        lines = Path(log).read_bytes()[-4096:].decode("utf-8", "replace").splitlines()
    except OSError:
        return ""
    lines = [ln.strip() for ln in lines if ln.strip() and not ln.startswith(("Failed to load", "W1", "  "))]
    return lines[-1][:200] if lines else ""


class LastStage:
    """A progress callback that remembers the stage it heard last, then passes it on."""

    def __init__(self, progress: ProgressFn | None = None) -> None:
        self.progress = progress
        self.stage: Stage | None = None

    def __call__(self, stage: Stage, fraction: float) -> None:
        self.stage = stage
        if self.progress is not None:
            self.progress(stage, fraction)


class _ModelExit(BaseException):
    """os._exit(code) called by the model: raised through every `except Exception` on its way."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


@contextlib.contextmanager
def exits_as_errors(model: str, stage: Callable[[], Stage | None]) -> Iterator[None]:
    """While a run of `model` executes in this process: its os._exit(n) and sys.exit(n) raise
    InspectorError("The run of m.py ended: the model called os._exit(3) while loading the model")
    instead of ending the process with the model's code. `stage()` is the stage it is in."""
    real = os._exit

    def refuse(code: int) -> NoReturn:
        raise _ModelExit(code)

    os._exit = refuse  # type: ignore[assignment]  # the same call, raising instead of exiting
    try:
        yield
    except _ModelExit as exc:
        raise InspectorError(ended(model, f"the model called os._exit({exc.code})", stage())) from None
    except SystemExit as exc:
        raise InspectorError(ended(model, f"the model called sys.exit({exc.code})", stage())) from None
    finally:
        os._exit = real

"""The sweep's progress on stderr: a bar with ETA on a terminal, one line per run elsewhere.

On a terminal every finished run prints a line (status, seconds, model · quantizer · profile,
its verdict or why it failed) above one refreshing bar line: runs done of all, the time left,
and what is running for how long (the mean time of this sweep's finished runs, spread over
the workers). Not a terminal (a log, CI): only the per-run lines, nothing that refreshes.
"""
from __future__ import annotations

import shutil
import sys
import time
from typing import Callable, TextIO

from vpu_core.progress import format_seconds

BAR = 24


def run_label(row: dict) -> str:
    return f"{row['model']} · {row['quantizer']} · {row['profile']}"


def verdict(row: dict) -> str:
    if row["status"] != "ok":
        return row.get("reason") or row["status"]
    share = row.get("vpu_mac_share")
    broken = row.get("rules_broken") or []
    parts = [f"VPU MACs {100 * share:.0f} %" if share is not None else "no MACs",
             f"{row['cpu_ops']} CPU ops",
             f"{len(broken)} rule{'s' if len(broken) != 1 else ''} broken" if broken else "no rule broken"]
    return ", ".join(parts)


class SweepProgress:
    def __init__(self, total: int, workers: int, stream: TextIO | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.workers = total, max(1, workers)
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.clock = clock
        self.done = 0
        self.ran: list[float] = []                 # seconds of the runs this sweep ran
        self.running: dict[str, tuple[str, float]] = {}   # slug -> (label, started)
        self._width = 0
        self._last_draw = 0.0

    # -- events ------------------------------------------------------------------------------
    def reused(self, count: int, folder: str) -> None:
        self.done += count
        if count:
            self._line(f"{count} of {self.total} runs already done (recorded in {folder}/rows): not run again")

    def started(self, slug: str, label: str) -> None:
        self.running[slug] = (label, self.clock())
        self.tick(force=True)

    def finished(self, slug: str, row: dict) -> None:
        self.running.pop(slug, None)
        self.done += 1
        self.ran.append(float(row.get("seconds") or 0.0))
        status = {"ok": "ok", "error": "ERROR", "timeout": "TIMEOUT"}[row["status"]]
        self._line(f"[{self.done}/{self.total}] {status:<7} {row.get('seconds', 0):7.1f} s  "
                   f"{run_label(row)}: {verdict(row)}")

    def tick(self, force: bool = False) -> None:
        """Redraw the bar (terminals only, at most 4 times a second)."""
        now = self.clock()
        if not self.tty or (not force and now - self._last_draw < 0.25):
            return
        self._last_draw = now
        self._draw(self.bar_text())

    def close(self) -> None:
        if self.tty and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0

    # -- text --------------------------------------------------------------------------------
    def eta_s(self) -> float | None:
        if not self.ran:
            return None
        mean = sum(self.ran) / len(self.ran)
        now = self.clock()
        queued = self.total - self.done - len(self.running)
        # a run past the mean is expected to need a little more, never nothing
        work = queued * mean + sum(max(mean - (now - t), 0.1 * mean) for _, t in self.running.values())
        lanes = min(self.workers, max(1, queued + len(self.running)))
        return work / lanes

    def bar_text(self) -> str:
        filled = int(BAR * self.done / self.total) if self.total else BAR
        now = self.clock()
        running = ", ".join(f"{label} {now - t:.0f} s" for label, t in list(self.running.values())[:3])
        more = len(self.running) - 3
        if more > 0:
            running += f" +{more}"
        eta = self.eta_s()
        text = f"[{'#' * filled}{'.' * (BAR - filled)}] {self.done}/{self.total} runs"
        text += f" · ETA {format_seconds(eta)}" if eta is not None else " · ETA after the first run"
        if running:                           # last: what a narrow terminal cuts off
            text += f" · running {running}"
        return text

    def _line(self, text: str) -> None:
        if self.tty:
            self.stream.write("\r" + text.ljust(self._width) + "\n")
            self._width = 0
            self._draw(self.bar_text())
        else:
            self.stream.write(text + "\n")
            self.stream.flush()

    def _draw(self, text: str) -> None:
        text = text[: max(20, shutil.get_terminal_size((120, 20)).columns - 1)]   # never wraps
        self.stream.write("\r" + text.ljust(self._width))
        self._width = len(text)
        self.stream.flush()

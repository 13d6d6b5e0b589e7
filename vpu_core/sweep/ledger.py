"""The ledger every engine (local.py, ray_engine.py) works from: which runs are still to do, in which
order, and recording a finished one; and the sweep's options.

Order: the plan's (models outermost), except that a run whose model is being exported and
calibrated by a running worker waits while another run can start: its quantizer twin then
finds the export and the calibration batches in the disk cache instead of computing them a
second time side by side.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from vpu_core.sweep.outputs import SweepFolder
from vpu_core.sweep.plan import Plan, Run
from vpu_core.sweep.progress import SweepProgress, run_label


@dataclass(frozen=True)
class SweepOptions:
    workers: int = 1                 # 0 with Ray: as many as the cluster has CPUs
    timeout_s: float | None = None
    no_cache: bool = False           # workers neither read nor write the disk cache
    retry_failed: bool = False       # re-run recorded errors and timeouts of the same key
    html: bool = True                # a page per run
    cache_dir: str | None = None     # the workers' disk cache (None: their own default)
    targets: tuple[str, ...] = ()    # also judged in every run (vpu_core.targets), beside the VPU


@dataclass
class Ledger:
    """The runs of a sweep: done (rows), pending, and the order to start them in."""

    plan: Plan
    folder: SweepFolder
    options: SweepOptions
    progress: SweepProgress
    rows: dict = field(default_factory=dict)          # slug -> row
    pending: list = field(default_factory=list)
    reused: int = 0

    def start(self) -> None:
        """Rows of runs already done and still valid are taken as they are (no process)."""
        self.folder.prepare()
        for run in self.plan.runs:
            row = None if self.options.no_cache else self.folder.finished(
                run, self.options.timeout_s, self.options.retry_failed, self.options.html, self.options.targets)
            if row is not None:
                self.rows[run.slug] = {**row, "cached": True}
            else:
                self.pending.append(run)
        self.reused = len(self.rows)
        self.progress.reused(self.reused, str(self.folder.root))

    def next_run(self, busy_exports: set) -> Run | None:
        """The next run to start: the first whose export no running worker is computing, else the first."""
        if not self.pending:
            return None
        pick = next((r for r in self.pending if r.export_key is None or r.export_key not in busy_exports),
                    self.pending[0])
        self.pending.remove(pick)
        return pick

    def base(self, run: Run) -> dict:
        return self.folder.base(run, self.options.timeout_s, self.options.html, self.options.targets)

    def began(self, run: Run) -> None:
        self.progress.started(run.slug, run_label(self.base(run)))

    def finish(self, run: Run, row: dict, seconds: float) -> None:
        """Record a run's row (wall seconds as the engine measured them) in the folder."""
        row = {**row, "seconds": round(seconds, 2), "cached": False}
        self.folder.write_row(run, row)
        self.rows[run.slug] = row
        self.progress.finished(run.slug, row)

    def ordered_rows(self) -> list[dict]:
        return [self.rows[r.slug] for r in self.plan.runs if r.slug in self.rows]


def timeout_reason(timeout_s: float) -> str:
    return f"timed out after {timeout_s:g} s: the run was stopped (its process killed)"


def clock() -> float:
    return time.monotonic()

"""A whole sweep: reuse what is recorded, run the rest on an engine, write the summary and dashboard.

    result = run_sweep(plan, "out/", SweepOptions(workers=2, timeout_s=600))
    result = run_sweep(plan, "out/", options, ray_address="local")
    result.exit_code   # 1 when a run that finished broke a rule, else 0; 2 only when none finished
"""
from __future__ import annotations

import datetime as _dt
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from vpu_core.sweep.ledger import Ledger, SweepOptions
from vpu_core.sweep.folder import RUN_OPTION_FIELDS
from vpu_core.sweep.outputs import SweepFolder
from vpu_core.sweep.plan import Plan
from vpu_core.sweep.progress import SweepProgress

SUMMARY_SCHEMA = 1


@dataclass(frozen=True)
class SweepResult:
    summary: dict
    folder: Path

    @property
    def rows(self) -> list[dict]:
        return self.summary["rows"]

    @property
    def exit_code(self) -> int:
        ok = [r for r in self.rows if r["status"] == "ok"]
        if not ok:
            return 2
        return 1 if any(r.get("violations") for r in ok) else 0


def run_sweep(plan: Plan, out_dir: str | Path, options: SweepOptions, ray_address: str | None = None,
              stream: TextIO | None = None, command: list[str] | None = None) -> SweepResult:
    """Run `plan` into `out_dir`; the summary and the dashboard are written even when interrupted
    (with the runs finished so far), so what is done is never lost."""
    start = time.monotonic()
    folder = SweepFolder(out_dir)
    workers, started_ray = max(1, options.workers), False
    if ray_address is not None:
        from vpu_core.sweep.ray_engine import connect

        workers, started_ray = connect(ray_address, options.workers)
    progress = SweepProgress(len(plan.runs), workers, stream if stream is not None else sys.stderr)
    ledger = Ledger(plan, folder, options, progress)
    ledger.start()
    interrupted = True
    try:
        if ray_address is not None:
            from vpu_core.sweep.ray_engine import run_ray

            run_ray(ledger, workers, local=ray_address == "local")
        else:
            from vpu_core.sweep.local import run_local

            run_local(ledger)
        interrupted = False
    finally:
        progress.close()
        if started_ray:
            from vpu_core.sweep.ray_engine import shutdown

            shutdown()
        summary = build_summary(plan, ledger, "ray" if ray_address else "local", workers,
                                time.monotonic() - start, command, interrupted)
        write_outputs(folder, summary)
    return SweepResult(summary, folder.root)


def build_summary(plan: Plan, ledger: Ledger, engine: str, workers: int, wall: float,
                  command: list[str] | None, interrupted: bool = False) -> dict:
    from vpu_core.sweep.fleet import fleet_json

    rows = ledger.ordered_rows()
    opts = ledger.options
    base = plan.runs[0].config if plan.runs else None
    return {
        "schema": SUMMARY_SCHEMA,
        "finished": _dt.datetime.now().strftime("%Y-%m-%d %H:%M:%S"),
        "command": command,
        "engine": engine, "workers": workers, "timeout_s": opts.timeout_s,
        "wall_seconds": round(wall, 2), "ran": len(rows) - ledger.reused, "reused": ledger.reused,
        "planned": len(plan.runs), "interrupted": interrupted,
        "models": list(plan.models), "quantizers": list(plan.quantizers),
        "profiles": [{"label": p.label, "path": p.path} for p in plan.profiles],
        "options": None if base is None else {k: getattr(base, k) for k in RUN_OPTION_FIELDS},
        "counts": {s: sum(r["status"] == s for r in rows) for s in ("ok", "error", "timeout")},
        "rows": rows,
        "fleet": fleet_json(rows, tuple(p.label for p in plan.profiles), plan.quantizers),
    }


def write_outputs(folder: SweepFolder, summary: dict) -> None:
    from vpu_core.sweep.dashboard import build_dashboard

    folder.write_summary(summary)
    folder.write_dashboard(build_dashboard(summary))

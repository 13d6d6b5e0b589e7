"""The sweep folder: what lands where, and how a finished run is recognised.

    DIR/runs/<slug>.json    the run's `check --format json` (exactly what `check` prints)
    DIR/runs/<slug>.html    the run's page: the core report without the graph picture
    DIR/rows/<slug>.json    its summary row, with its content key: written last, it marks the
                            run finished (a resumed or repeated sweep reads it, starts nothing)
    DIR/logs/<slug>.log     what the worker process printed (the last line names a crash)
    DIR/summary.json        {"rows": [...], plus what was swept, how and how long}
    DIR/summary.csv         the rows, one line each (dicts as k=v;k=v, lists as a;b)
    DIR/index.html          the fleet dashboard, one self-contained file

<slug> is `<model>__<quantizer>__<profile>` (vpu_core.sweep.plan).
"""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from vpu_core.files import atomic_write
from vpu_core.sweep.plan import Run
from vpu_core.sweep.rows import SPEC_FIELDS

CSV_EXTRA = ("violations", "macs_total", "cpu_macs", "cpu_ops_by_op", "spec", "profile_path",
             "json", "html", "cached")


class SweepFolder:
    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def prepare(self) -> None:
        for sub in ("runs", "rows", "logs"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)

    def check_json(self, run: Run) -> Path:
        return self.root / "runs" / f"{run.slug}.json"

    def page(self, run: Run) -> Path:
        return self.root / "runs" / f"{run.slug}.html"

    def row_path(self, run: Run) -> Path:
        return self.root / "rows" / f"{run.slug}.json"

    def log(self, run: Run) -> Path:
        return self.root / "logs" / f"{run.slug}.log"

    def base(self, run: Run, timeout_s: float | None, page: bool = True, targets: tuple[str, ...] = ()) -> dict:
        """The identity fields of `run`'s row (the worker adds the verdict); `page`: the run
        gets an HTML page (not with --no-pages); `targets`: judged beside the VPU (--target)."""
        return {"model": run.model_label, "quantizer": run.config.quantizer,
                "profile": run.profile.label, "spec": run.config.model,
                "profile_path": run.profile.path, "json": f"runs/{run.slug}.json",
                "html": f"runs/{run.slug}.html" if page else None, "log": f"logs/{run.slug}.log", "key": run.key, "slug": run.slug,
                "timeout_s": timeout_s, "targets": list(targets)}

    def finished(self, run: Run, timeout_s: float | None, retry_failed: bool = False,
                 page: bool = True, targets: tuple[str, ...] = ()) -> dict | None:
        """The recorded row of `run` when it is still valid: same content key, its files there
        (the page too when one is wanted); an error only without `retry_failed`; a timeout only
        when it had at least as long as now."""
        if run.key is None:
            return None
        try:
            row = json.loads(self.row_path(run).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(row, dict) or row.get("key") != run.key or row.get("targets", []) != list(targets):
            return None
        status = row.get("status")
        if status == "ok":
            files = (self.check_json(run), self.page(run)) if page else (self.check_json(run),)
            return row if all(f.exists() for f in files) else None
        if retry_failed:
            return None
        if status == "timeout":
            had, now = row.get("timeout_s"), timeout_s
            return row if had is not None and (now is None or had >= now) else None
        return row if status == "error" else None

    def write_row(self, run: Run, row: dict) -> None:
        _write_text(self.row_path(run), json.dumps(row, indent=1))

    def write_summary(self, summary: dict) -> None:
        _write_text(self.root / "summary.json", json.dumps(summary, indent=1))
        _write_text(self.root / "summary.csv", rows_to_csv(summary["rows"]))

    def write_dashboard(self, html: str) -> None:
        _write_text(self.root / "index.html", html)


def rows_to_csv(rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*SPEC_FIELDS, *CSV_EXTRA])
    for row in rows:
        flat = {**row, "macs_total": (row.get("macs") or {}).get("total"),
                "cpu_macs": (row.get("macs") or {}).get("cpu")}
        writer.writerow([_cell(flat.get(k)) for k in (*SPEC_FIELDS, *CSV_EXTRA)])
    return out.getvalue()


def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, dict):
        return ";".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ";".join(str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _write_text(path: Path, text: str) -> None:
    atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))

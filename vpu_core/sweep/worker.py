"""One run of a sweep, in this process: the same Session and disk cache as `check`.

    python -m vpu_core.sweep.worker TASK.json      # one run in a new interpreter
    forked_main(TASK.json)                          # the local engine: in a child of its fork server

`run_task(task)` returns a `RunOutput`: the run's `check --format json` (exactly what `check`
prints), its HTML page (the core stakeholder report without the graph picture: that picture
needs Qt and a layout, `vpu-inspector report` draws it), and its summary row. A failure the
pipeline reports (a model that will not load or export, a bad profile) is a row with status
"error" and the one-line message; anything that kills the process (a segfault, os._exit) or
hangs is the engine's to record. torch.export and the lowering change process-wide state, so a
process runs exactly one task.

The task is plain JSON: {"config": RunConfig fields, "base": the row's identity fields (with the
"targets" judged beside the VPU),
"cache_dir": str | None, "no_cache": bool, "html": bool}; as a process it also names
"outputs" ({"json": path, "html": path}: where the check JSON and the page go) and
"result_path", where the row is written before the process exits 0.
"""
from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

from vpu_core.config import RunConfig
from vpu_core.errors import InspectorError, short_reason
from vpu_core.sweep.rows import failed_row, ok_row


@dataclass
class RunOutput:
    row: dict
    check: dict | None = None      # the check JSON (None when the run failed)
    html: str | None = None

    def to_json(self) -> dict:
        return {"row": self.row, "check": self.check, "html": self.html}

    @classmethod
    def from_json(cls, data: dict) -> RunOutput:
        return cls(data["row"], data.get("check"), data.get("html"))


def config_from_task(task: dict) -> RunConfig:
    return RunConfig(**task["config"])


def task_for(config: RunConfig, base: dict, cache_dir: str | None = None, no_cache: bool = False,
             html: bool = True) -> dict:
    return {"config": dataclasses.asdict(config), "base": dict(base), "cache_dir": cache_dir,
            "no_cache": no_cache, "html": html}


def run_task(task: dict) -> RunOutput:
    """Run one task in this process; every failure the run can report becomes an error row."""
    start = time.perf_counter()
    warnings.filterwarnings("ignore")
    if task.get("cache_dir"):
        os.environ["VPU_INSPECTOR_CACHE_DIR"] = task["cache_dir"]
    config = config_from_task(task)
    try:
        return _inspect(task, config, start)
    except InspectorError as exc:
        return RunOutput(failed_row(task["base"], "error", exc.message, time.perf_counter() - start))
    except Exception as exc:       # a bug or a library failure: the same one line as `check`
        reason = f"internal error: {type(exc).__name__}: {short_reason(exc)}"
        return RunOutput(failed_row(task["base"], "error", reason, time.perf_counter() - start))


def _inspect(task: dict, config: RunConfig, start: float) -> RunOutput:
    from vpu_core.reports.json_report import inspection_to_json
    from vpu_core.session import default_session

    session = default_session()
    session.set_disk_cache(not task.get("no_cache", False))
    targets = tuple(dict.fromkeys(task["base"].get("targets", []))) or ("vpu",)    # as `check --target`
    inspection = session.inspect(config, view=None, whatif=True, targets=targets)  # the JSON `check` prints
    analysis = inspection.analysis
    check = inspection_to_json(inspection)
    html = None
    if task.get("html", True):
        from vpu_core.reports.html import build_report_html

        html = build_report_html(analysis, embed_fonts=False, attached=inspection.attached)    # one page per run: fonts named, not repeated
    row = ok_row(task["base"], check, time.perf_counter() - start)
    return RunOutput(row, check, html)


def write_json(path: Path, data: object) -> None:
    """Atomically (temp + rename): a reader sees the whole file or none."""
    from vpu_core.files import atomic_write

    atomic_write(Path(path), lambda tmp: Path(tmp).write_text(json.dumps(data, indent=1), encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    task = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    try:
        output = run_task(task)
    except BaseException:          # not even an error row could be made: say why on stderr
        traceback.print_exc()
        return 3
    outputs = task.get("outputs") or {}
    write_outputs(output, outputs.get("json"), outputs.get("html"))
    write_json(Path(task["result_path"]), {"row": output.row})
    return 0


def write_outputs(output: RunOutput, json_path: str | None, html_path: str | None) -> None:
    """The run's check JSON and HTML page into the sweep folder (before its row: the row marks
    the run finished)."""
    from vpu_core.files import atomic_write

    if output.check is not None and json_path:
        write_json(Path(json_path), output.check)
    if output.html is not None and html_path:
        html = output.html
        atomic_write(Path(html_path), lambda tmp: Path(tmp).write_text(html, encoding="utf-8"))


def forked_main(task_path: str) -> None:
    """A run in a process forked by the sweep's fork server (vpu_core.sweep.local): its own
    session and process group, the driver's environment, its output in the run's log."""
    from vpu_core.worker.server import lead_own_group

    lead_own_group()
    task = json.loads(Path(task_path).read_text(encoding="utf-8"))
    os.environ.clear()
    os.environ.update(task.get("env") or {})
    log = os.open(task["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
    code = main([task_path])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)     # no multiprocessing or atexit clean-up of the parent's copy


if __name__ == "__main__":
    sys.exit(main())

"""The Ray engine: the same runs as Ray tasks, on this machine (`--ray local`) or a cluster.

Each run is one task with `num_cpus=1`, `max_calls=1` (its worker process exits after it: torch
.export and the lowering change process-wide state, as in the local engine) and no retries. The
task receives the model file, the profile and the calibration file *by content* and writes them
into a temporary folder on whatever node runs it, under their own names: the content keys are
the same as on the driver (they hash name, callable and bytes, never the folder), and so are
the check JSON and the row. The driver writes everything into the sweep folder, so only it
needs the folder; the nodes need vpu-inspector installed (the same version) and nothing else.

Cache: a task on `--ray local` uses the driver's disk cache folder; on a cluster each node uses
its own ($VPU_INSPECTOR_CACHE_DIR there, else its user cache folder). Pointing every node's
VPU_INSPECTOR_CACHE_DIR at one shared folder shares the stage cache between nodes (entries are
written atomically); without it a node re-exports what another node already did. Either way
the sweep folder's rows make a repeated or resumed sweep skip finished runs without a task.

A crash (segfault, os._exit) is a WorkerCrashedError for that task only; a task past the
timeout is cancelled with ray.cancel(force=True), which kills its worker process. Only
`connect` and the functions below import ray.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from vpu_core.config import split_model_spec
from vpu_core.sweep.ledger import Ledger, clock, timeout_reason
from vpu_core.sweep.plan import Run
from vpu_core.sweep.rows import failed_row
from vpu_core.sweep.worker import RunOutput, run_task, task_for, write_outputs

def connect(address: str, workers: int) -> tuple[int, bool]:
    """Join (or, for "local", start) a Ray cluster: (runs to keep in flight, whether this call
    started the Ray session: then the caller shuts it down). A session already initialised in
    this process (a test's, a notebook's) is used as it is."""
    try:
        import ray
    except ImportError:
        from vpu_core.sweep.plan import SweepError

        raise SweepError("--ray needs Ray: pip install 'vpu-inspector[cluster]'.") from None
    if not ray.is_initialized():
        if address == "local":
            ray.init(num_cpus=workers or os.cpu_count() or 1, include_dashboard=False,
                     log_to_driver=False, runtime_env={"env_vars": _local_env()})
        else:
            ray.init(address=address, log_to_driver=False)
        started = True
    else:
        started = False
    cpus = int(ray.cluster_resources().get("CPU", 1))
    return max(1, workers or cpus), started


def _local_env() -> dict:
    """A local cluster's workers import this very package and share the driver's disk cache."""
    import vpu_core
    from vpu_core.cache.disk import cache_dir

    root = str(Path(vpu_core.__file__).resolve().parent.parent)
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    return {"PYTHONPATH": path, "VPU_INSPECTOR_CACHE_DIR": str(cache_dir())}


def shipped_files(run: Run) -> dict:
    """The files a run reads, by content: {"model" | "profile" | "calib_data": (name, bytes)}."""
    config = run.config
    files = {}
    model_path = split_model_spec(config.model)[0]
    for key, path in (("model", model_path), ("profile", config.profile), ("calib_data", config.calib_data)):
        if path and Path(path).is_file():
            files[key] = (Path(path).name, Path(path).read_bytes())
    return files


def remote_run(task: dict, files: dict) -> dict:
    """On a Ray worker: materialise the shipped files, run the task, name the originals again."""
    with tempfile.TemporaryDirectory(prefix="vpu-sweep-task-") as tmp:
        config, originals = dict(task["config"]), {}
        for key, (name, data) in files.items():
            folder = Path(tmp) / key
            folder.mkdir()
            (folder / name).write_bytes(data)
            original = config[key]
            if key == "model" and not Path(original).exists() and ":" in original:
                path_part, _, attr = original.partition(":")
                config[key] = f"{folder / name}:{attr}"
                originals[str(folder / name)] = path_part
            else:
                config[key] = str(folder / name)
                originals[str(folder / name)] = original
        output = run_task({**task, "config": config})
        reason = output.row.get("reason") or ""
        for shipped, original in originals.items():
            reason = reason.replace(shipped, original)
        output.row["reason"] = reason
        return output.to_json()


def run_ray(ledger: Ledger, workers: int, local: bool) -> None:
    import ray

    remote = ray.remote(num_cpus=1, max_calls=1, max_retries=0)(remote_run)
    options = ledger.options
    cache = _local_env()["VPU_INSPECTOR_CACHE_DIR"] if local and options.cache_dir is None else options.cache_dir
    inflight: dict = {}
    try:
        while ledger.pending or inflight:
            while len(inflight) < workers:
                run = ledger.next_run({r.export_key for r, _ in inflight.values()})
                if run is None:
                    break
                task = task_for(run.config, ledger.base(run), cache, options.no_cache, options.html)
                inflight[remote.remote(task, shipped_files(run))] = (run, clock())
                ledger.began(run)
            ready, _ = ray.wait(list(inflight), num_returns=1, timeout=0.1)
            for ref in ready:
                run, started = inflight.pop(ref)
                ledger.finish(run, _collect(ledger, run, ref, clock() - started), clock() - started)
            _cancel_late(ledger, inflight)
            ledger.progress.tick()
    finally:
        for ref in inflight:
            ray.cancel(ref, force=True)


def _collect(ledger: Ledger, run: Run, ref, elapsed: float) -> dict:
    import ray

    try:
        output = RunOutput.from_json(ray.get(ref))
    except ray.exceptions.WorkerCrashedError as exc:
        return failed_row(ledger.base(run), "error", f"the Ray worker process crashed ({_first_line(exc)})", elapsed)
    except ray.exceptions.RayError as exc:
        return failed_row(ledger.base(run), "error", f"the Ray task failed: {_first_line(exc)}", elapsed)
    write_outputs(output, str(ledger.folder.check_json(run)), str(ledger.folder.page(run)))
    return output.row


def _cancel_late(ledger: Ledger, inflight: dict) -> None:
    import ray

    timeout = ledger.options.timeout_s
    if timeout is None:
        return
    for ref, (run, started) in list(inflight.items()):
        elapsed = clock() - started
        if elapsed > timeout:
            ray.cancel(ref, force=True)
            del inflight[ref]
            ledger.finish(run, failed_row(ledger.base(run), "timeout", timeout_reason(timeout), elapsed), elapsed)


def _first_line(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return lines[0][:200] if lines else type(exc).__name__


def shutdown() -> None:
    """Leave the Ray session (a local cluster stops with it)."""
    import ray

    if ray.is_initialized():
        ray.shutdown()

"""`python -m tools.bench --run`: what `check --run` costs next to a plain `check`, as a user runs them.

Each command runs in a fresh process (interpreter start and imports included), in the same cache
state: "cold" in an empty cache folder, "warm" the same command again over the folder the cold
run filled (the lowered program included). Plain and --run alternate, `repeats` times; medians are
reported with the CPU time of the child processes (on a shared machine the wall time also says
how busy the other processes were) and the load average. Target: --run ≤ 3× check.
"""
from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

RUNTIME_TARGET_RATIO = 3.0


def bench_runtime(models: tuple[str, ...] = ("resnet8",), quantizer: str = "xnnpack", repeats: int = 3,
                  runs: int = 20) -> list[dict]:
    """One row per model and cache state: median wall and CPU seconds of check and check --run."""
    rows = []
    for model in models:
        samples: dict[tuple[str, str], list[tuple[float, float]]] = {}
        for _ in range(repeats):
            folders = {kind: tempfile.mkdtemp(prefix=f"vpu-bench-{kind}-") for kind in ("check", "run")}
            for state in ("cold", "warm"):
                for kind in ("check", "run"):
                    extra = ["--run", "--runs", str(runs)] if kind == "run" else []
                    argv = ["check", model, "--quantizer", quantizer, "--format", "json", *extra]
                    samples.setdefault((state, kind), []).append(_timed(argv, folders[kind]))
        for state in ("cold", "warm"):
            check = [w for w, _ in samples[(state, "check")]]
            run = [w for w, _ in samples[(state, "run")]]
            ratio = statistics.median(run) / statistics.median(check)
            rows.append({"model": model, "quantizer": quantizer, "cache": state, "repeats": repeats,
                         "check_s": statistics.median(check), "check_run_s": statistics.median(run),
                         "check_cpu_s": statistics.median(c for _, c in samples[(state, "check")]),
                         "check_run_cpu_s": statistics.median(c for _, c in samples[(state, "run")]),
                         "ratio": ratio, "target_ratio": RUNTIME_TARGET_RATIO,
                         "within_target": ratio <= RUNTIME_TARGET_RATIO, "load_avg": os.getloadavg()[0]})
    return rows


def _timed(argv: list[str], cache: str) -> tuple[float, float]:
    """(wall, CPU) seconds of `python -m app ARGV` in a fresh process over cache folder `cache`."""
    env = {**os.environ, "VPU_INSPECTOR_CACHE_DIR": cache}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "app", *argv], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)

"""`python -m tools.bench --sweep`: a sweep with 2 workers against the same `check` runs one after another.

Both sides start from an empty disk cache of their own and run the same 8 configurations
(4 zoo models × the two quantizers, default options) as fresh processes of the real command
line: the sequential side is 8 `vpu-inspector check MODEL --quantizer Q --format json`
processes, one after another (the second quantizer of a model finds its export and
calibration in the cache, as a shell loop would); the sweep side is one `vpu-inspector sweep`
with `--workers 2`. Each round runs both, alternating which goes first; the ratio is
sweep / sequential (target ≤ 0.75).
"""
from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

MODELS = ("resnet8", "ds_cnn", "mobilenet_v1_025", "deep_autoencoder")
QUANTIZERS = ("vpu", "xnnpack")
TARGET = 0.75


def _env(cache: Path) -> dict:
    env = dict(os.environ)
    env["VPU_INSPECTOR_CACHE_DIR"] = str(cache)
    return env


def time_sequential(command: list[str], cache: Path, models: tuple[str, ...] = MODELS,
                    quantizers: tuple[str, ...] = QUANTIZERS) -> float:
    start = time.perf_counter()
    for model in models:
        for q in quantizers:
            done = subprocess.run([*command, "check", model, "--quantizer", q, "--format", "json"],
                                  env=_env(cache), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if done.returncode not in (0, 1):
                raise RuntimeError(f"check {model} --quantizer {q} failed (exit {done.returncode})")
    return time.perf_counter() - start


def time_sweep(command: list[str], cache: Path, out: Path, workers: int = 2, models: tuple[str, ...] = MODELS,
               quantizers: tuple[str, ...] = QUANTIZERS) -> float:
    start = time.perf_counter()
    done = subprocess.run([*command, "sweep", *models, "--quantizer", ",".join(quantizers),
                           "--workers", str(workers), "-o", str(out)],
                          env=_env(cache), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"sweep failed (exit {done.returncode})")
    return time.perf_counter() - start


def format_rows(rows: list[dict]) -> str:
    head = f"{'round':>6}  {'first':>10}  {'runs':>4}  {'workers':>7}  {'sequential s':>12}  {'sweep s':>8}  {'ratio':>6}  target"
    lines = [head]
    for r in rows:
        mark = "ok" if r["meets_target"] else "MISSED"
        lines.append(f"{r['round']!s:>6}  {r['first']:>10}  {r['runs']:>4}  {r['workers']:>7}  "
                     f"{r['sequential_s']:>12.1f}  {r['sweep_s']:>8.1f}  {r['ratio']:>6.3f}  <= {r['target']} {mark}")
    return "\n".join(lines)


def bench_sweep(command: list[str], repeat: int = 1, workers: int = 2) -> list[dict]:
    """Rows {round, first, sequential_s, sweep_s, ratio} and a last "median" row."""
    rows: list[dict] = []
    for r in range(repeat):
        with tempfile.TemporaryDirectory(prefix="vpu-bench-sweep-") as name:
            tmp = Path(name)
            times: dict[str, float] = {}
            order = ("sequential", "sweep") if r % 2 == 0 else ("sweep", "sequential")
            for side in order:
                if side == "sequential":
                    times[side] = time_sequential(command, tmp / "cache-seq")
                else:
                    times[side] = time_sweep(command, tmp / "cache-sweep", tmp / "out", workers)
        rows.append({"round": r + 1, "first": order[0], "runs": len(MODELS) * len(QUANTIZERS),
                     "workers": workers, "sequential_s": round(times["sequential"], 1),
                     "sweep_s": round(times["sweep"], 1),
                     "ratio": round(times["sweep"] / times["sequential"], 3)})
    if repeat > 1:
        def median(key: str) -> float:
            return float(statistics.median(float(x[key]) for x in rows))

        rows.append({"round": "median", "first": "", "runs": rows[0]["runs"], "workers": workers,
                     "sequential_s": round(median("sequential_s"), 1), "sweep_s": round(median("sweep_s"), 1),
                     "ratio": round(median("ratio"), 3)})
    for row in rows:
        row["target"] = TARGET
        row["meets_target"] = row["ratio"] <= TARGET
    return rows

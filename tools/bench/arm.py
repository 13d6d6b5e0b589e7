"""`python -m tools.bench --arm [MODEL…]`: what `check --target ethos-u55-128` costs next to a plain `check`.

Both run as a user runs them: fresh processes (interpreter start and imports included), each in an
empty cache folder of its own ("cold"), side by side, `repeats` rounds; medians of wall and CPU
seconds (on a shared machine the wall time also says how busy the other processes were), their
ratio, and the Arm run's stages from its JSON (`targets.<name>.timings_s`: export, to_edge,
partition, tosa, vela, verdict, estimate). Target: the Arm check within 2x the plain one.
"""
from __future__ import annotations

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ARM_TARGET_RATIO = 2.0
DEFAULT_MODELS = ("tests/corpus/mobilenetv2_mobile.py", "tests/corpus/vit_vision.py",
                  "tests/corpus/mobilevit_hybrid.py")


def bench_arm(models: tuple[str, ...] = DEFAULT_MODELS, target: str = "ethos-u55-128",
              repeats: int = 1) -> list[dict]:
    """One row per model: medians of `check MODEL` and `check MODEL --quantizer ethos-u --target TARGET`."""
    rows = []
    for model in models:
        plain: list[tuple[float, float, dict]] = []
        arm: list[tuple[float, float, dict]] = []
        for _ in range(repeats):
            plain.append(_timed(["check", model, "--format", "json"]))
            arm.append(_timed(["check", model, "--quantizer", "ethos-u", "--target", target, "--format", "json"]))
        wall = statistics.median(w for w, _, _ in arm) / statistics.median(w for w, _, _ in plain)
        cpu = statistics.median(c for _, c, _ in arm) / statistics.median(c for _, c, _ in plain)
        stages = _median_stages([d.get("targets", {}).get(target, {}).get("timings_s", {}) for _, _, d in arm])
        rows.append({"model": model, "target": target, "repeats": repeats,
                     "check_s": statistics.median(w for w, _, _ in plain),
                     "arm_check_s": statistics.median(w for w, _, _ in arm),
                     "check_cpu_s": statistics.median(c for _, c, _ in plain),
                     "arm_check_cpu_s": statistics.median(c for _, c, _ in arm),
                     "ratio": wall, "cpu_ratio": cpu, "target_ratio": ARM_TARGET_RATIO,
                     "within_target": wall <= ARM_TARGET_RATIO, "arm_stages_s": stages,
                     "error": next((d["error"] for _, _, d in arm + plain if "error" in d), None),
                     "load_avg": os.getloadavg()[0]})
    return rows


def _median_stages(runs: list[dict]) -> dict[str, float]:
    names = {k for r in runs for k in r}
    return {k: round(statistics.median(r.get(k, 0.0) for r in runs), 2) for k in sorted(names)}


def _timed(argv: list[str]) -> tuple[float, float, dict]:
    """(wall, CPU seconds, parsed JSON or {"error": last stderr line}) of `python -m app ARGV` in a
    fresh process over an empty cache folder."""
    cache = tempfile.mkdtemp(prefix="vpu-bench-arm-")
    env = {**os.environ, "VPU_INSPECTOR_CACHE_DIR": cache}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "app", *argv], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    shutil.rmtree(cache, ignore_errors=True)
    try:
        data = json.loads(done.stdout) if done.stdout.strip() else {}
    except ValueError:
        data = {}
    if done.returncode not in (0, 1):
        data = {"error": (done.stderr.strip().splitlines() or ["exit %d" % done.returncode])[-1]}
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), data

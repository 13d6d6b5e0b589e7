"""`python -m tools.bench --stages`: what `check --stages` costs, and how often a seeded fault is located.

Cost: per model, `check MODEL --no-cache --format json` and the same with `--stages`, each in a
fresh process, side by side (`repeats` rounds, medians): the ratio of their wall times (target at
most STAGES_TARGET). Faults: per model (the XNNPACK quantizer: stock PT2E) `faults` activation
scales, spread over the graph, each multiplied by 8 (vpu_core.stagediff.faults); a hit when the
first divergent op float → qdq is the faulted op or the op next to it in graph order (target:
9 of 10). A fault whose op the float graph never reaches with a value (an int64 op) is skipped.
"""
from __future__ import annotations

import dataclasses
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Sequence

STAGES_TARGET = 2.0
HIT_TARGET = 0.9
CORPUS = ("tests/corpus/batch1_reshape.py", "tests/corpus/resnet_bn.py", "tests/corpus/vit_vision.py")


def bench_stages_cost(models: Sequence[str], repeats: int = 1) -> list[dict]:
    rows = []
    for model in models:
        plain, staged = [], []
        for _ in range(max(1, repeats)):
            plain.append(_wall(["check", model, "--no-cache", "--format", "json"]))
            staged.append(_wall(["check", model, "--no-cache", "--format", "json", "--stages"]))
        check_s, stages_s = statistics.median(plain), statistics.median(staged)
        rows.append({"model": model, "check_s": round(check_s, 2), "check_stages_s": round(stages_s, 2),
                     "ratio": round(stages_s / check_s, 2), "target": STAGES_TARGET,
                     "within_target": stages_s / check_s <= STAGES_TARGET, "rounds": len(plain), "load_avg": _load()})
    return rows


def _wall(argv: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "app.cli", *argv], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.strip().splitlines()[-1:]}")
    return time.perf_counter() - start


def bench_faults(models: Sequence[str], faults: int = 3) -> list[dict]:
    from vpu_core.analysis.qgraph import is_op
    from vpu_core.config import RunConfig
    from vpu_core.pipeline import run_pipeline
    from vpu_core.stagediff import check_stages
    from vpu_core.stagediff.faults import activation_quantizes, seed_scale_fault

    rows: list[dict] = []
    for model in models:
        qm = run_pipeline(RunConfig(model=model, quantizer="xnnpack"))
        order = [n.name for n in qm.converted.graph.nodes if is_op(n)]
        sites = activation_quantizes(qm.converted)
        picks = sorted({round(i * (len(sites) - 1) / max(faults - 1, 1)) for i in range(faults)}) if sites else []
        clean = check_stages(qm, "none")
        found: list[dict] = []
        start = time.perf_counter()
        for k in picks:
            faulty, op = seed_scale_fault(qm.converted, k, 8.0)
            got = check_stages(dataclasses.replace(qm, converted=faulty), "none").divergence("float→qdq")
            hit = got is not None and got.node is not None and abs(order.index(got.node) - order.index(op)) <= 1
            found.append({"faulted": op, "first_divergent": got.node if got else None, "hit": hit})
        rows.append({"model": model, "faults": len(found), "hits": sum(f["hit"] for f in found),
                     "clean_first_divergent": getattr(clean.divergence("float→qdq"), "node", None),
                     "matched": dict(clean.matched)["float→qdq"] if clean.matched else None,
                     "seconds_per_fault": round((time.perf_counter() - start) / max(len(found), 1), 1),
                     "misses": [f for f in found if not f["hit"]]})
    total = sum(int(r["faults"]) for r in rows)
    hits = sum(int(r["hits"]) for r in rows)
    rows.append({"model": "all", "faults": total, "hits": hits, "hit_rate": round(hits / total, 3) if total else None,
                 "target": HIT_TARGET, "within_target": bool(total) and hits / total >= HIT_TARGET})
    return rows


def _load() -> float | None:
    try:
        return os.getloadavg()[0]
    except (OSError, AttributeError):
        return None


def main(argv: Sequence[str] | None = None) -> None:
    """python -m tools.bench.stages [cost|faults] MODEL… (one kind of row, as JSON)."""
    args = list(sys.argv[1:] if argv is None else argv)
    kind, models = (args[0], args[1:]) if args else ("faults", [])
    rows = bench_stages_cost(models or ["resnet8", *CORPUS[:1]]) if kind == "cost" else bench_faults(models or ["resnet8"])
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()

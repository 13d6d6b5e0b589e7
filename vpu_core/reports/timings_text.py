"""The "Timings:" line of `check`: what this run did and how long each stage took, and what it read
from the cache instead (a cached figure is never printed as this run's).

    Timings: export 5.10s, import 0.10s, prepare 1.21s, calibrate 14.43s, convert 2.40s, analyze 0.54s,
      sqnr 60.00s; ethos-u55-128: graph prep 0.08s, export 0.61s, to_edge 3.10s, partition 0.20s,
      TOSA 3.90s, Vela 0.05s, verdict 0.03s, estimate 0.02s; from cache: nothing
    Timings: analysis read from the cache in 0.12s; from cache: export, …, sqnr, ethos-u55-128
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:
    from collections.abc import Collection

    from vpu_core.stages import TimingKey
    from vpu_core.targets.results import TargetResult

ANALYSIS_STAGES: tuple[TimingKey, ...] = ("export", "import", "prepare", "calibrate", "convert", "analyze", "sqnr")
TARGET_STAGES = {"graph_prep": "graph prep", "export": "export", "to_edge": "to_edge", "partition": "partition",
                 "tosa": "TOSA", "vela": "Vela", "verdict": "verdict", "estimate": "estimate"}


def timings_line(timings: Mapping[TimingKey, float], ran: Collection[str], targets: Mapping[str, TargetResult],
                 cache_load_s: float | None = None) -> str:
    """`timings` the analysis' stage seconds (Analysis.timings_s), `ran` the stages this run reported
    (Inspection.stages_run), `targets` the judged targets (TargetResult.cached: read from the cache)."""
    # an analysis made by this run times the stages it ran (a stage whose result was reused has
    # no entry); one read from the cache carries the figures of the run that made it
    now: set[str] = set(timings) if "analyze" in ran else set()
    done = [f"{k} {timings[k]:.2f}s" for k in ANALYSIS_STAGES if k in now]
    cached: list[str] = [k for k in ANALYSIS_STAGES if k not in now]
    parts = [", ".join(done)] if done else []
    if cache_load_s is not None:
        parts.append(f"analysis read from the cache in {cache_load_s:.2f}s")
    for name, result in targets.items():
        if result.cached:
            cached.append(name)
            continue
        stages = result.timings_s or {"judged": result.seconds}
        parts.append(f"{name}: " + ", ".join(f"{TARGET_STAGES.get(k, k)} {s:.2f}s" for k, s in stages.items()))
    return "Timings: " + "; ".join([*parts, "from cache: " + (", ".join(cached) or "nothing")])

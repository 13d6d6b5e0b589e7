"""The session's side of a target: the TargetJob it hands a target, and the targets' result cache.

    result = session.target(config, "xnnpack")     # TargetResult: verdict (+ estimate), cached
    job = session.job(config, "xnnpack")           # what Target.verdict / run / export receive

A target's verdict and estimate are kept like the analysis (memory and disk, as JSON, keyed by
the analysis key and the target's name), so asking again — the overlay switched off and on, a
warm start — runs nothing.
"""
from __future__ import annotations

import dataclasses
import time
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from vpu_core.cache.analysis_store import SideStore
from vpu_core.cache.keys import digest
from vpu_core.stages import Store

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.cache.disk import DiskCache
    from vpu_core.cache.keys import StageKeys
    from vpu_core.cache.stage_store import MemoryCache
    from vpu_core.config import RunConfig
    from vpu_core.pipeline import QuantizedModel
    from vpu_core.progress import RunContext
    from vpu_core.session import Session
    from vpu_core.targets.results import TargetResult

T = TypeVar("T")
LOWERING: Store = "lowering"      # memory store: what a target remembered for a program (TargetJob.remembered)
RESULT_MODULES = ("vpu_core.analysis.results", "vpu_core.targets.results")


class SessionJob:
    """The TargetJob (vpu_core.targets.protocol) of one configuration and target in a session."""

    def __init__(self, session: Session, config: RunConfig, target: str, ctx: RunContext,
                 keys: StageKeys | None) -> None:
        self.session, self.target, self._config, self._ctx, self._keys = session, target, config, ctx, keys
        self.timings: dict[str, float] = {}      # the target's own stages that ran for this job

    @property
    def config(self) -> RunConfig:
        return self._config

    @property
    def ctx(self) -> RunContext:
        return self._ctx

    @property
    def keys(self) -> StageKeys | None:
        return self._keys

    @property
    def memory(self) -> MemoryCache:
        return self.session.memory

    @property
    def disk(self) -> DiskCache | None:
        return self.session.disk()

    def quantized(self) -> QuantizedModel:
        return self.session.quantized(self._config, self._ctx, self._keys)

    def analysis(self) -> Analysis:
        return self.session.analysis(self._config, self._ctx, keys=self._keys)

    def _memory_key(self, what: str) -> tuple | None:
        return None if self._keys is None else (self.target, what, self._keys.quantized)

    def remembered(self, what: str, make: Callable[[], T]) -> T:
        key = self._memory_key(what)
        if key is None:
            return make()
        hit = self.memory.get(LOWERING, key)
        if hit is None:
            hit = make()
            self.memory.put(LOWERING, key, hit)
        return hit

    def remembered_by(self, target: str, what: str) -> Any:
        return None if self._keys is None else self.memory.get(LOWERING, (target, what, self._keys.quantized))

    def timed(self, stage: str, seconds: float) -> None:
        self.timings[stage] = self.timings.get(stage, 0.0) + seconds

    def taken(self, what: str) -> Any:
        key = self._memory_key(what)
        if key is None:
            return None
        hit = self.memory.get(LOWERING, key)
        self.memory.drop(LOWERING, key)
        return hit


def target_store(session: Session, keys: StageKeys | None, name: str) -> SideStore:
    """Where `name`'s TargetResult of the configuration with `keys` is kept: under the analysis'
    key, or the quantized graph's for a target that does not read the profile (TargetInfo)."""
    from vpu_core import targets

    info = targets.info(name)
    key = None if keys is None else digest(keys.analysis if info.reads_profile else keys.quantized, "target", name)
    modules = (*RESULT_MODULES, *targets.info(name).result_modules)
    return SideStore("target", "TargetResult", key, session.memory, session.disk(), modules)


def target_result(session: Session, config: RunConfig, name: str, ctx: RunContext,
                  keys: StageKeys | None) -> TargetResult:
    """`name`'s verdict and estimate of `config`, judged or remembered; an InspectorError when
    the target cannot judge this quantizer's graph."""
    from vpu_core import targets
    from vpu_core.targets.results import TargetResult

    info = targets.info(name)
    store = target_store(session, keys, name)
    hit = store.get()
    if hit is not None:
        return dataclasses.replace(hit, cached=True)
    session.before_computing(f"target {name}")
    analysis = session.analysis(config, ctx, keys=keys)
    targets.check_target(name, analysis.quantizer, config.dynamic_batch)
    target = targets.load(name)
    job = SessionJob(session, config, name, ctx, keys)
    start = time.perf_counter()
    verdict = target.verdict(job)
    judged = time.perf_counter()
    estimate = target.estimate(job, verdict)
    end = time.perf_counter()
    # the verdict's own time is what is left once the stages the target noted are taken out
    stages = {**job.timings, "verdict": max(0.0, judged - start - sum(job.timings.values())), "estimate": end - judged}
    result = TargetResult(name, info.title, verdict, estimate, end - start, timings_s=stages)
    store.put(result)
    return result


def forget_targets(session: Session, keys: StageKeys) -> None:
    """Drop every target's result and remembered lowering of the configuration with `keys`."""
    from vpu_core import targets

    for name in targets.names():
        store = target_store(session, keys, name)
        session.memory.drop(store.store, store.key)
    session.memory.drop_if(LOWERING, lambda key: key[2] == keys.quantized)

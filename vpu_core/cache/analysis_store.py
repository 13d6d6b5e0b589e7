"""The analysis stage: the frozen Analysis of one configuration, from memory or disk (JSON).

Two entries per configuration: without and with the real XNNPACK delegation. The analysis with
the delegation is the one without plus its `delegation` field, so a request without it is also
answered by stripping that field from the one with it. Reading imports no torch: a warm start
shows a graph before torch is loaded.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import dataclasses
import time

from vpu_core.cache import codec
from vpu_core.cache.disk import DiskCache
from vpu_core.cache.keys import StageKeys

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.cache.stages import MemoryCache
    from vpu_core.intsim.results import IntSimReport

STAGE = "analysis"


class AnalysisStore:
    def __init__(self, keys: StageKeys | None, memory: MemoryCache, disk: DiskCache | None) -> None:
        self.keys, self.memory, self.disk = keys, memory, disk

    def _key(self, delegated: bool) -> str:
        assert self.keys is not None, "asked for a key of an uncached configuration"
        return self.keys.analysis_delegated if delegated else self.keys.analysis

    def get(self, delegated: bool) -> Any:
        """The cached Analysis (with the delegation if `delegated`), or None."""
        if self.keys is None:
            return None
        hit = self._load(self._key(delegated))
        if hit is None and not delegated:
            full = self._load(self._key(True))
            if full is not None:
                timings = {k: v for k, v in full.timings_s.items() if k != "xnnpack_delegation"}
                hit = dataclasses.replace(full, delegation=None, timings_s=timings)
                self.memory.put(STAGE, self._key(False), hit)
        return hit

    def put(self, analysis: Analysis) -> None:
        if self.keys is None:
            return
        key = self._key(analysis.delegation is not None)
        self.memory.put(STAGE, key, analysis)
        if self.disk is None:
            return
        try:
            data = codec.encode(analysis)
        except (TypeError, ValueError):  # holds something JSON cannot keep exactly: memory only
            return
        self.disk.write(STAGE, key, "json", data)

    def _load(self, key: str):
        hit = self.memory.get(STAGE, key)
        if hit is not None or self.disk is None:
            return hit
        start = time.perf_counter()
        data = self.disk.read(STAGE, key)
        if data is None:
            return None
        try:
            analysis = codec.decode(data)
        except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
            self.disk.remove(STAGE, key)   # well-formed bytes, wrong content: never trusted
            return None
        timings = {**analysis.timings_s, "cache_load": time.perf_counter() - start}
        analysis = dataclasses.replace(analysis, timings_s=timings)
        self.memory.put(STAGE, key, analysis)
        return analysis


class IntSimStore:
    """The integer simulation of one configuration (it depends on what the analysis depends on)."""

    STAGE = "int_sim"

    def __init__(self, keys: StageKeys | None, memory: MemoryCache, disk: DiskCache | None) -> None:
        self.key = keys.analysis if keys is not None else None
        self.memory, self.disk = memory, disk

    def get(self) -> Any:
        if self.key is None:
            return None
        hit = self.memory.get(self.STAGE, self.key)
        if hit is not None or self.disk is None:
            return hit
        data = self.disk.read(self.STAGE, self.key)
        if data is None:
            return None
        try:
            report = codec.decode(data, "IntSimReport")
        except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
            self.disk.remove(self.STAGE, self.key)
            return None
        self.memory.put(self.STAGE, self.key, report)
        return report

    def put(self, report: IntSimReport) -> None:
        if self.key is None:
            return
        self.memory.put(self.STAGE, self.key, report)
        if self.disk is not None:
            try:
                self.disk.write(self.STAGE, self.key, "json", codec.encode(report))
            except (TypeError, ValueError):
                pass

"""The analysis stage: the frozen Analysis of one configuration, from memory or disk (JSON).

One entry per configuration, in memory and on disk (the real XNNPACK delegation is no part of
it: the XNNPACK target's verdict, kept by the target's own store).
Reading imports no torch: a warm start shows a graph before torch is loaded. SideStore keeps the
results computed beside the analysis (each layer's own: vpu_core.intsim.store,
vpu_core.whatif.store, a target's verdict).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import time

from vpu_core.cache import codec
from vpu_core.cache.disk import DiskCache
from vpu_core.cache.keys import StageKeys
from vpu_core.stages import Store

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.cache.stage_store import MemoryCache

STORE: Store = "analysis"


class AnalysisStore:
    def __init__(self, keys: StageKeys | None, memory: MemoryCache, disk: DiskCache | None) -> None:
        self.keys, self.memory, self.disk = keys, memory, disk
        self.read_s: float | None = None      # seconds `get` spent reading it from disk (None: did not)

    def get(self) -> Any:
        """The cached Analysis, or None."""
        if self.keys is None:
            return None
        return self._load(self.keys.analysis)

    def put(self, analysis: Analysis) -> None:
        if self.keys is None:
            return
        key = self.keys.analysis
        self.memory.put(STORE, key, analysis)
        if self.disk is None:
            return
        try:
            data = codec.encode(analysis)
        except (TypeError, ValueError):  # holds something JSON cannot keep exactly: memory only
            return
        self.disk.write(STORE, key, "json", data)

    def _load(self, key: str):
        hit = self.memory.get(STORE, key)
        if hit is not None or self.disk is None:
            return hit
        start = time.perf_counter()
        data = self.disk.read(STORE, key)
        if data is None:
            return None
        try:
            analysis = codec.decode(data)
        except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
            self.disk.remove(STORE, key)   # well-formed bytes, wrong content: never trusted
            return None
        self.read_s = time.perf_counter() - start
        self.memory.put(STORE, key, analysis)
        return analysis


class SideStore:
    """A result computed from the same program and profile as the analysis, kept beside it
    (memory and disk, JSON through the codec): `kind` names its class, `modules` the torch-free
    modules whose dataclasses it is made of."""

    def __init__(self, store: Store, kind: str, key: str | None, memory: MemoryCache, disk: DiskCache | None,
                 modules: tuple[str, ...] = codec.DEFAULT_MODULES) -> None:
        self.store, self.kind, self.key, self.modules = store, kind, key, modules
        self.memory, self.disk = memory, disk

    def get(self) -> Any:
        if self.key is None:
            return None
        hit = self.memory.get(self.store, self.key)
        if hit is not None or self.disk is None:
            return hit
        data = self.disk.read(self.store, self.key)
        if data is None:
            return None
        try:
            report = codec.decode(data, self.kind, self.modules)
        except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
            self.disk.remove(self.store, self.key)
            return None
        self.memory.put(self.store, self.key, report)
        return report

    def put(self, report: Any) -> None:
        if self.key is None:
            return
        self.memory.put(self.store, self.key, report)
        if self.disk is not None:
            try:
                self.disk.write(self.store, self.key, "json", codec.encode(report, self.modules))
            except (TypeError, ValueError):
                pass


def sensitivity_store(keys: StageKeys | None, options_key: object, memory: MemoryCache,
                      disk: DiskCache | None) -> SideStore:
    """The sensitivity analysis of one configuration under one set of options (its --eval
    function's file bytes included in `options_key`): SensitivityReport."""
    from vpu_core.cache.keys import digest

    key = digest(keys.analysis, "sensitivity", options_key) if keys else None
    return SideStore("sensitivity", "SensitivityReport", key, memory, disk, ("vpu_core.sensitivity.results",))

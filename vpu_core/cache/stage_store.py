"""Stage results of one configuration: from memory, else from disk, else None (then computed).

`StageStore(keys, memory, disk)` is what `run_pipeline(store=...)` talks to. Memory holds live
objects (the float GraphModule, calibration tensors) for this process; disk holds their
serialised form (vpu_core.cache.artifacts) across launches. A disk entry that fails to load is
deleted and treated as missing: the stage runs again and writes a good one.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import threading
from collections import OrderedDict

from vpu_core.cache import artifacts
from vpu_core.cache.disk import DiskCache
from vpu_core.cache.keys import StageKeys
from vpu_core.stages import Store

if TYPE_CHECKING:
    from torch.fx import GraphModule


class MemoryCache:
    """Small LRU maps of live objects, one per store."""

    LIMITS: dict[Store, int] = {"export": 4, "calibration": 8, "qparams": 16, "quantized": 6, "analysis": 48,
              "int_sim": 16, "whatif": 16, "graph": 24, "target": 48, "lowering": 2}

    def __init__(self, limits: dict[Store, int] | None = None) -> None:
        self.limits = {**self.LIMITS, **(limits or {})}
        self._maps: dict[Store, OrderedDict] = {store: OrderedDict() for store in self.limits}
        self._lock = threading.Lock()

    def get(self, store: Store, key: object) -> Any:
        with self._lock:
            entries = self._maps[store]
            if key not in entries:
                return None
            entries.move_to_end(key)
            return entries[key]

    def put(self, store: Store, key: object, value: object) -> None:
        with self._lock:
            entries = self._maps[store]
            entries[key] = value
            entries.move_to_end(key)
            while len(entries) > self.limits[store]:
                entries.popitem(last=False)

    def values(self, store: Store) -> list:
        """The live objects of `store`, newest first."""
        with self._lock:
            return list(reversed(self._maps[store].values()))

    def drop(self, store: Store, key: object) -> None:
        with self._lock:
            self._maps[store].pop(key, None)

    def drop_if(self, store: Store, matches: Callable[[Any], bool]) -> None:
        """Drop every entry of `store` whose key `matches`."""
        with self._lock:
            entries = self._maps[store]
            for key in [k for k in entries if matches(k)]:
                del entries[key]

    def clear(self) -> None:
        with self._lock:
            for entries in self._maps.values():
                entries.clear()


class StageStore:
    """The export, calibration, qparams and converted-program stages of one configuration (see
    run_pipeline)."""

    def __init__(self, keys: StageKeys, memory: MemoryCache, disk: DiskCache | None) -> None:
        self.keys, self.memory, self.disk = keys, memory, disk

    # -- export: (name, float GraphModule, example inputs) ---------------------------------------
    def export(self) -> tuple[str, GraphModule, tuple] | None:
        from vpu_core.pipeline.tracing import program_module

        hit = self.memory.get("export", self.keys.export)
        if hit is not None:
            return hit
        data = self._read("export", self.keys.export)
        inputs = self._read("inputs", self.keys.export)
        if data is None or inputs is None:
            return None
        try:
            name, program, _ = artifacts.program_from_bytes(data)
            example = tuple(artifacts.tensors_from_bytes(inputs))
            value = (name, program_module(program), example)
        except (artifacts.BadEntry, TypeError) as exc:
            return self._bad("export", self.keys.export, exc)
        self.memory.put("export", self.keys.export, value)
        return value

    def put_export(self, name: str, program: Any, float_gm: GraphModule, example: tuple) -> None:
        if self.disk is not None:
            self.disk.write("inputs", self.keys.export, "pt", artifacts.tensors_to_bytes(list(example)))
            self.disk.write("export", self.keys.export, "pt2", artifacts.program_to_bytes(program, name))
        # The pipeline quantizes a deep copy: the remembered module stays the float graph.
        self.memory.put("export", self.keys.export, (name, float_gm, example))

    # -- calibration: (batches, held-aside batches) -----------------------------------------------
    def calibration(self) -> tuple[list[tuple], list[tuple]] | None:
        hit = self.memory.get("calibration", self.keys.calibration)
        if hit is not None:
            return hit
        data = self._read("calibration", self.keys.calibration)
        if data is None:
            return None
        try:
            value = artifacts.calibration_from_bytes(data)
        except artifacts.BadEntry as exc:
            return self._bad("calibration", self.keys.calibration, exc)
        self.memory.put("calibration", self.keys.calibration, value)
        return value

    def put_calibration(self, batches: list[tuple], heldouts: list[tuple]) -> tuple[list[tuple], list[tuple]]:
        if self.disk is not None:
            self.disk.write("calibration", self.keys.calibration, "pt",
                            artifacts.calibration_to_bytes(batches, heldouts))
        self.memory.put("calibration", self.keys.calibration, (batches, heldouts))
        return batches, heldouts

    # -- quantized: the qparams convert used ------------------------------------------------------
    def qparams(self) -> Any:
        hit = self.memory.get("qparams", self.keys.quantized)
        if hit is not None:
            return hit
        data = self._read("quantized", self.keys.quantized)
        if data is None:
            return None
        try:
            value = artifacts.tensors_from_bytes(data)
        except artifacts.BadEntry as exc:
            return self._bad("quantized", self.keys.quantized, exc)
        return value if isinstance(value, dict) else self._bad("quantized", self.keys.quantized, "not a dict")

    def put_qparams(self, recorded: dict) -> None:
        if self.disk is not None:
            self.disk.write("quantized", self.keys.quantized, "pt", artifacts.tensors_to_bytes(recorded))
        self.memory.put("qparams", self.keys.quantized, recorded)

    # -- program: the converted GraphModule itself (program_codec) ----------------------------------
    def converted(self) -> tuple[GraphModule, list[dict]] | None:
        """(converted GraphModule, observer scales) recorded by an earlier run, or None."""
        from vpu_core.cache import program_codec

        data = self._read("program", self.keys.quantized)
        if data is None:
            return None
        try:
            return program_codec.from_bytes(data)
        except artifacts.BadEntry as exc:
            return self._bad("program", self.keys.quantized, exc)

    def put_converted(self, gm: GraphModule, observer_scales: list[dict]) -> None:
        """Keep the converted graph on disk (not in memory: the session keeps the whole run)."""
        from vpu_core.cache import program_codec

        if self.disk is None:
            return
        try:
            data = program_codec.to_bytes(gm, observer_scales)
        except program_codec.Unsupported:       # e.g. a symbolic shape: convert again next time
            return
        self.disk.write("program", self.keys.quantized, "pt", data)

    # -- helpers -----------------------------------------------------------------------------
    def _read(self, store: Store, key: str) -> bytes | None:
        return self.disk.read(store, key) if self.disk is not None else None

    def _bad(self, store: Store, key: str, reason: object) -> Any:
        """A damaged or unusable entry: forget it, the stage runs again (None: nothing cached)."""
        if self.disk is not None:
            self.disk.remove(store, key)
            if store == "export":
                self.disk.remove("inputs", key)
        return None

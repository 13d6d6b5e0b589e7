"""The lowered program of one configuration, from memory, else from disk (vpu_core.cache).

One disk entry per quantized program (stage "program", key = the quantized key + "xnnpack"):
a torch.save of {"pte": uint8 tensor, "map": JSON text, "inputs" / "float" / "qdq": tensor lists},
read back with weights_only=True (nothing unpickled, like every cache entry). A program that
could not be lowered is remembered as {"refused": JSON text}: asking again does not spend another
minute lowering it. Measurements are never cached: a run measures again.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

from vpu_core.cache import artifacts
from vpu_core.cache.keys import StageKeys, digest
from vpu_core.stages import Store

if TYPE_CHECKING:
    from vpu_core.cache.disk import DiskCache
    from vpu_core.cache.stage_store import MemoryCache
    from vpu_core.targets.xnnpack.lowering import LoweredProgram, RuntimeRefusal

STORE: Store = "program"


def program_key(keys: StageKeys | None) -> str | None:
    return None if keys is None else digest(keys.quantized, "xnnpack_program")


class ProgramStore:
    def __init__(self, keys: StageKeys | None, memory: MemoryCache, disk: DiskCache | None) -> None:
        self.key, self.memory, self.disk = program_key(keys), memory, disk

    def get(self) -> LoweredProgram | RuntimeRefusal | None:
        """A LoweredProgram, a RuntimeRefusal (remembered), or None."""
        if self.key is None:
            return None
        hit = self.memory.get(STORE, self.key)
        if hit is not None or self.disk is None:
            return hit
        data = self.disk.read(STORE, self.key)
        if data is None:
            return None
        try:
            value = _decode(data)
        except (artifacts.BadEntry, KeyError, TypeError, ValueError):
            self.disk.remove(STORE, self.key)
            return None
        self.memory.put(STORE, self.key, value)
        return value

    def put(self, value: LoweredProgram | RuntimeRefusal) -> None:
        """Keep a LoweredProgram or a RuntimeRefusal."""
        if self.key is None:
            return
        self.memory.put(STORE, self.key, value)
        if self.disk is not None:
            self.disk.write(STORE, self.key, "pt", _encode(value))


def _encode(value) -> bytes:
    import torch

    from vpu_core.targets.xnnpack.lowering import RuntimeRefusal

    if isinstance(value, RuntimeRefusal):
        return artifacts.tensors_to_bytes({"refused": json.dumps(
            {"message": value.message, "op": value.op, "node": value.node})})
    meta = {"map": value.op_map.to_json(), "graph": value.graph_kind, "portable_ops": list(value.portable_ops),
            "folded_biases": value.folded_biases, "lowering_s": value.lowering_s, "meta": value.meta}
    return artifacts.tensors_to_bytes({
        "pte": torch.frombuffer(bytearray(value.buffer), dtype=torch.uint8),
        "map": json.dumps(meta), "inputs": list(value.inputs), "float": value.float_outputs,
        "qdq": list(value.qdq_outputs)})


def _decode(data: bytes):
    import torch

    from vpu_core.targets.xnnpack.lowering import LoweredProgram, RuntimeRefusal
    from vpu_core.targets.xnnpack.op_map import OpMap

    obj = artifacts.tensors_from_bytes(data)
    if "refused" in obj:
        r = json.loads(obj["refused"])
        return RuntimeRefusal(r["message"], op=r["op"], node=r["node"])
    meta = json.loads(obj["map"])
    tensors = [*obj["inputs"], *obj["qdq"], *(obj["float"] or [])]
    if not isinstance(obj["pte"], torch.Tensor) or not all(isinstance(t, torch.Tensor) for t in tensors):
        raise artifacts.BadEntry("program entry holds something other than tensors")
    return LoweredProgram(
        buffer=obj["pte"].numpy().tobytes(), op_map=OpMap.from_json(meta["map"]),
        inputs=tuple(obj["inputs"]), float_outputs=obj["float"], qdq_outputs=list(obj["qdq"]),
        graph_kind=meta["graph"], portable_ops=tuple(meta["portable_ops"]),
        folded_biases=int(meta["folded_biases"]), lowering_s=0.0, meta=meta["meta"])

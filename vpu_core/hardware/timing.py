"""The `[timing]` section of a hardware profile: what the VPU side of the timing model assumes.

    [timing]
    vpu_macs_per_s = 1.0e12       # multiply-accumulates per second the VPU's MAC array sustains
    link_bytes_per_s = 2.0e9      # bytes per second the VPU <-> CPU link moves
    launch_overhead_us = 20.0     # per VPU subgraph: starting it (command, sync, completion)
    transfer_latency_us = 5.0     # per boundary tensor moved (DMA set-up), on top of its bytes

The defaults describe a small int8 NPU (~2 TOPS) on a 2 GB/s link, stated so every figure built
on them can say so; they are not a measurement. The CPU side is never assumed: it is measured
(vpu_core.targets.xnnpack). Parsed here, apart from vpu_core.profile, which stores the result as one field.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from vpu_core.errors import ProfileError

TIMING_KEYS = ("vpu_macs_per_s", "link_bytes_per_s", "launch_overhead_us", "transfer_latency_us")


@dataclass(frozen=True)
class TimingAssumptions:
    vpu_macs_per_s: float = 1.0e12
    link_bytes_per_s: float = 2.0e9
    launch_overhead_us: float = 20.0
    transfer_latency_us: float = 5.0

    def compute_us(self, macs: int) -> float:
        return macs / self.vpu_macs_per_s * 1e6

    def transfer_us(self, nbytes: int) -> float:
        return self.transfer_latency_us + nbytes / self.link_bytes_per_s * 1e6


def parse_timing(path: str | Path, table: dict) -> TimingAssumptions:
    """The [timing] table of a profile (absent keys keep their defaults), validated."""
    values = {}
    for key in TIMING_KEYS:
        if key not in table:
            continue
        value = table[key]
        rates = key.endswith("_per_s")
        ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) \
            and (value > 0 if rates else value >= 0)
        if not ok:
            need = "a positive number" if rates else "a number ≥ 0 (microseconds)"
            raise ProfileError(f"Hardware profile {path}: timing.{key} must be {need} (got {value!r}).")
        values[key] = float(value)
    return TimingAssumptions(**values)

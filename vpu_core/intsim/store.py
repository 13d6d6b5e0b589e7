"""The integer simulation's store: one IntSimReport per configuration, beside its analysis (it
depends on what the analysis depends on), in memory and on disk. Torch-free."""
from __future__ import annotations

from typing import TYPE_CHECKING

from vpu_core.cache.analysis_store import SideStore

if TYPE_CHECKING:
    from vpu_core.cache.disk import DiskCache
    from vpu_core.cache.keys import StageKeys
    from vpu_core.cache.stage_store import MemoryCache


def int_sim_store(keys: StageKeys | None, memory: MemoryCache, disk: DiskCache | None) -> SideStore:
    """The integer simulation of one configuration, under its analysis key."""
    return SideStore("int_sim", "IntSimReport", keys.analysis if keys else None, memory, disk,
                     ("vpu_core.analysis.results", "vpu_core.intsim.results"))

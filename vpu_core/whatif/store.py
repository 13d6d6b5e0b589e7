"""The what-if's store: the op-list candidates and partition economics (PartitionWhatIf) of one
configuration, beside its analysis, in memory and on disk. Torch-free."""
from __future__ import annotations

from typing import TYPE_CHECKING

from vpu_core.cache.analysis_store import SideStore

if TYPE_CHECKING:
    from vpu_core.cache.disk import DiskCache
    from vpu_core.cache.keys import StageKeys
    from vpu_core.cache.stage_store import MemoryCache


def whatif_store(keys: StageKeys | None, memory: MemoryCache, disk: DiskCache | None) -> SideStore:
    """The op-list what-if and partition economics of one configuration, under its analysis key."""
    return SideStore("whatif", "PartitionWhatIf", keys.analysis if keys else None, memory, disk,
                     ("vpu_core.analysis.results", "vpu_core.whatif.results"))

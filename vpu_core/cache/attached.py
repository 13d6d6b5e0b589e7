"""Analyses with a result attached (the integer simulation, the what-if economics), remembered
per analysis object: asking again (the single view, then compare side A) gives the same object."""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.config import RunConfig


class AttachedResults:
    """At most `limit` attached analyses, the oldest dropped first."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._known: dict[tuple, tuple[Analysis, Analysis]] = {}    # key -> (analysis, with `what`)
        self._lock = threading.Lock()

    def get_or_make(self, what: str, config: RunConfig, analysis: Analysis,
                    make: Callable[[], Analysis]) -> Analysis:
        """`make()` (analysis with `what` attached), remembered per analysis object."""
        key = (what, config, id(analysis))
        with self._lock:
            known = self._known.get(key)
        if known is not None and known[0] is analysis:
            return known[1]
        attached = make()
        with self._lock:
            self._known[key] = (analysis, attached)
            while len(self._known) > self.limit:      # oldest first (insertion order)
                del self._known[next(iter(self._known))]
        return attached

    def forget(self, config: RunConfig) -> None:
        """Drop everything attached to analyses of `config`."""
        with self._lock:
            for key in [k for k in self._known if k[1] == config]:
                del self._known[key]

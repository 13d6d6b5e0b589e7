"""The hits of the last search on one canvas and the walk through them (N / Shift+N).

Searching is the core's (vpu_core.graph.search.find_nodes, over the whole graph, groups open);
this keeps the hits in model order and which one the walk is at.
"""
from __future__ import annotations

from vpu_core.graph.build import display_id
from vpu_core.graph.model import GraphModel
from vpu_core.graph.search import find_nodes


class SearchMatches:
    def __init__(self) -> None:
        self.ids: list[str] = []
        self.index = -1                  # the match the walk is at; -1 before the first step

    def find(self, model: GraphModel | None, text: str) -> list[str]:
        """Search `model` for `text` and restart the walk; the hits in model order."""
        self.ids = [] if model is None else find_nodes(model, text)
        self.index = -1
        return list(self.ids)

    def clear(self) -> None:
        self.ids, self.index = [], -1

    def drawn(self, shown: GraphModel) -> list[str]:
        """What to outline in `shown`: the hits drawn, and the closed groups that hide the others."""
        return list(dict.fromkeys(display_id(shown, m) for m in self.ids))

    def step(self, step: int) -> str | None:
        """The next (`step` 1) or previous (-1) hit, wrapping; the first step goes to the first
        or the last hit. None when there are none."""
        n = len(self.ids)
        if not n:
            return None
        self.index = (0 if step > 0 else n - 1) if self.index < 0 else (self.index + step) % n
        return self.ids[self.index]

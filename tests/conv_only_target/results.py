"""The conv-only target's estimate: torch-free, so the result cache can rebuild it."""
from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class ConvCycles:
    """One cycle per 64 MACs (a 64-lane MAC array), per conv."""

    cycles: tuple[tuple[str, float], ...]
    unit: Literal["cycles"] = "cycles"
    label: str = "64 MACs per cycle (toy estimate)"

    @property
    def total(self) -> float:
        return sum(c for _, c in self.cycles)

    def per_node(self) -> dict[str, float]:
        return dict(self.cycles)

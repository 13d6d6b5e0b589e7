"""What a stage diff reports: small frozen dataclasses of plain numbers (no torch).

A stage is one way of computing the model (the float graph, the converted Q/DQ graph, the VPU's
integer simulation, the XNNPACK runtime, or one side of `diff`); a transition is a pair of
consecutive stages ("float→qdq"). See vpu_core.stagediff for how nodes are matched and what
"added" and "first divergent" mean.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StageValue:
    """One node's value in one stage, against the float value and against the previous stage."""

    sqnr_db: float | None          # vs the first stage (float); None: identical or no signal
    cosine: float | None           # vs the first stage
    max_abs_lsb: float | None      # max |value − first stage's| in LSB of the node's output scale
    added_db: float | None         # SQNR of the error this stage adds at this node beyond what it
                                   # inherits from its inputs (None: it adds none)
    added_lsb: float | None        # max |value − previous stage's| in LSB (None: no scale)
    step_ratio: float | None       # added noise over one rounding step's noise (Δ²/12): > LIMIT diverges
    placement: str = ""            # where the stage runs it: "vpu 0", "cpu", "xnnpack 1", "portable"


@dataclass(frozen=True)
class StageNode:
    """A node matched across stages; `node` is its name in the last stage's graph."""

    node: str
    module: str                    # nn_module_stack path ("" at the top level)
    op: str                        # "conv2d.default"
    values: tuple[tuple[str, StageValue], ...]   # (stage name, value) for every stage but the first
    boundary: bool = False         # its placement differs from an input's in some stage


@dataclass(frozen=True)
class Divergence:
    """The first op, in graph order, whose added error its quantization step does not explain
    (node None: no op diverges, `why` says so and names the largest)."""

    node: str | None
    module: str | None
    op: str | None
    why: str
    boundary: bool = False


@dataclass(frozen=True)
class Unmatched:
    node: str
    stage: str                     # the stage whose graph holds `node`
    why: str


@dataclass(frozen=True)
class StageDiff:
    names: tuple[str, ...]                              # ("float", "qdq", "vpu")
    matched: tuple[tuple[str, float], ...]              # (transition, share of the later stage's ops matched)
    nodes: tuple[StageNode, ...]                        # in the last stage's graph order
    first_divergent: tuple[tuple[str, Divergence], ...]
    unmatched: tuple[Unmatched, ...]
    calls: int = 1                                      # held-aside calls the figures sum over
    # (delegated ops with a runtime value, delegated ops, XNNPACK operators surfaced, operators):
    # an op fused into the next op's operator (conv before its relu) is never materialised
    runtime_coverage: tuple[int, int, int, int] | None = None
    notes: tuple[str, ...] = ()
    seconds: float = 0.0

    @property
    def transitions(self) -> tuple[str, ...]:
        return tuple(f"{a}→{b}" for a, b in zip(self.names, self.names[1:]))

    def divergence(self, transition: str) -> Divergence | None:
        return dict(self.first_divergent).get(transition)

"""What-if results: small frozen dataclasses of plain numbers (no torch), like analysis.results.

Formatting them as sentences ("pow2 scales cost 2.1 dB here") lives in one place,
vpu_core.reports.whatif_text, used by the text report, the HTML report and the window.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# A profile edit that moves an op to the VPU: its op added to the op list, or a per-op limit relaxed.
EditKind = Literal["op_list", "limit"]


# -- constraint ablation -------------------------------------------------------------------------

@dataclass(frozen=True)
class LayerGain:
    node: str
    delta_db: float                    # layer SQNR with the constraint relaxed minus the baseline's


@dataclass(frozen=True)
class AblationEntry:
    """One constraint relaxed alone: what it costs (delta_db > 0: relaxing it gains accuracy)."""

    constraint: str                    # rule id, e.g. "pow2_scale"
    number: int                        # constraint number in docs/spec.md (2..8)
    title: str
    sqnr_db: float | None              # end to end, constraint relaxed
    delta_db: float                    # sqnr_db minus the baseline's; 0.0 when not measured
    layers: tuple[LayerGain, ...]      # the layers that gain most, best first
    violations: int                    # violations of the baseline profile's rules in the relaxed graph
    violations_by_rule: tuple[tuple[str, int], ...] = ()   # (rule id, count), non-zero only
    subgraphs: int = 0                 # partition of the relaxed graph (baseline profile)
    cpu_nodes: int = 0
    transfer_bytes: int = 0
    reason: str = ""                   # why nothing was measured ("" when it was quantized)
    seconds: float = 0.0
    delta_se_db: float | None = None   # jackknife standard error of delta_db over the held-out samples
    name: str = ""                     # the rule's what-if name ("pow2 scales", RuleInfo.name) …
    verb: str = "costs"                # … and its verb ("cost")

    @property
    def within_noise(self) -> bool:
        """The change is smaller than twice its standard error: rounding luck, not the constraint."""
        return self.delta_se_db is not None and abs(self.delta_db) < 2.0 * self.delta_se_db

    @property
    def measured(self) -> bool:
        return not self.reason


@dataclass(frozen=True)
class AblationReport:
    model: str
    profile: str
    baseline_sqnr_db: float | None
    baseline_violations: int
    baseline_subgraphs: int
    baseline_cpu_nodes: int
    baseline_transfer_bytes: int
    entries: tuple[AblationEntry, ...]  # one per rule id of constraints 2..8, in rule order
    seconds: float = 0.0

    def ranked(self) -> tuple[AblationEntry, ...]:
        """Costliest constraint first (largest gain when relaxed)."""
        return tuple(sorted(self.entries, key=lambda e: (-e.delta_db, e.number)))

    @property
    def has_noise_estimate(self) -> bool:
        """Whether the changes carry a standard error (the held-out batch had enough samples)."""
        return any(e.delta_se_db is not None for e in self.entries)


# -- op-list what-if -----------------------------------------------------------------------------

@dataclass(frozen=True)
class OpCandidate:
    """What adding one CPU-fallback op type to the VPU op list would change (re-partition only)."""

    op: str                            # ATen op as in cpu_nodes, e.g. "softmax.int"
    subgraphs_merged: int              # existing VPU subgraphs that join another one
    bytes_saved: int                   # boundary bytes before minus after (negative: more traffic)
    cpu_nodes_left: int                # CPU nodes after the change
    nodes_moved: int = 0               # CPU ops of this type that join the VPU
    macs_moved: int = 0                # their multiply-accumulates (what the candidate moves)
    new_subgraphs: int = 0             # subgraphs made only of moved ops (new islands)
    subgraphs_after: int = 0
    transfer_bytes_after: int = 0
    first_node: str = ""               # its first CPU node in graph order (where the window jumps)
    kind: EditKind = "op_list"         # "op_list": `op` added to the op list; "limit": one per-op
                                       # limit relaxed (`limit` from `bound_from` to `bound_to`)
    limit: str = ""                    # "conv2d.kernel_max"
    bound_from: object = None          # the profile's bound, e.g. (3, 3)
    bound_to: object = None            # the relaxed bound, e.g. (5, 5)


# -- partition economics -------------------------------------------------------------------------

@dataclass(frozen=True)
class SubgraphEconomics:
    """One VPU subgraph's boundary traffic against the work it keeps on the VPU."""

    subgraph: int
    ops: int                           # compute ops in the subgraph
    macs: int                          # multiply-accumulates of its conv / linear / matmul ops
    bytes_in: int                      # each tensor entering counted once
    bytes_out: int                     # each tensor leaving counted once
    pays: bool                         # bytes_in + bytes_out <= break_even * macs
    first_op: str = ""                 # its first compute op (where the window jumps)

    @property
    def bytes_total(self) -> int:
        return self.bytes_in + self.bytes_out

    @property
    def bytes_per_mac(self) -> float | None:
        return self.bytes_total / self.macs if self.macs else None


@dataclass(frozen=True)
class Economics:
    break_even_bytes_per_mac: float    # from the hardware profile
    subgraphs: tuple[SubgraphEconomics, ...]

    @property
    def flagged(self) -> tuple[SubgraphEconomics, ...]:
        return tuple(s for s in self.subgraphs if not s.pays)


@dataclass(frozen=True)
class PartitionWhatIf:
    """The op-list what-if and the partition economics of one analysis: computed when asked for
    (`Session.whatif`; `check`, `report` and the window's What-if dock ask), not with every
    analysis, since each candidate op costs a whole re-partition."""

    op_candidates: tuple[OpCandidate, ...]
    economics: Economics | None
    seconds: float = 0.0


# -- profile editing -----------------------------------------------------------------------------

@dataclass(frozen=True)
class ProfileChange:
    """One key that differs between two profiles (lists: what was added and removed)."""

    key: str                           # "ops.vpu", "constraints.pow2_scale", "requant.max_shift", …
    old: object                        # bool / int / float / str / tuple of str
    new: object
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


@dataclass(frozen=True)
class OpListRow:
    """One row of the editor's VPU op list: a profile entry, or a model op no entry covers."""

    name: str                          # the entry as the profile writes it ("softmax.int", "relu")
    listed: bool                       # in the profile's VPU op list
    count: int = 0                     # ops of this model it covers
    on_vpu: int = 0                    # of those, placed on the VPU


@dataclass(frozen=True)
class ModelOp:
    """One op type seen in a model (for the editor's op list)."""

    op: str                            # "conv2d.default"
    count: int
    on_vpu: int                        # how many of them the partition placed on the VPU

"""The hardware profile as the analysis reads it: a frozen dataclass of plain values (the VPU op
list, constraint switches, shift range, integer-simulation settings, per-op limits, [timing]).

Loading and validating one from TOML is vpu_core.profile (it knows the rules' switches, which the
analysis declares); this module holds only the values, so every layer can name the type.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from vpu_core.hardware.timing import TimingAssumptions

DEFAULT_BREAK_EVEN_BYTES_PER_MAC = 0.25


@dataclass(frozen=True)
class HardwareProfile:
    name: str
    description: str
    path: str
    vpu_ops: tuple[str, ...]
    shared_scale_ops: tuple[str, ...]
    fusable_ops: tuple[str, ...]
    fused_activations: tuple[str, ...]
    constraints: dict  # rule id -> bool
    min_shift: int
    max_shift: int
    rounding: str = "round_half_up"        # one of ROUNDING_MODES
    accumulator_bits: int = 32             # signed accumulator width; sums beyond it saturate
    avg_pool_divisor: str = "reciprocal"   # one of AVG_POOL_DIVISORS
    reciprocal_bits: int = 16              # "reciprocal": multiplier round(2^bits / K)
    # A VPU subgraph pays for its boundary transfers when it moves at most this many bytes per
    # MAC it keeps on the VPU (vpu_core.whatif.economics).
    break_even_bytes_per_mac: float = DEFAULT_BREAK_EVEN_BYTES_PER_MAC
    # The VPU side of the timing model (vpu_core.timing): [timing] in the TOML.
    timing: TimingAssumptions = TimingAssumptions()
    # Per-op limits and SRAM ([op.NAME] tables, [memory]): {"conv2d.kernel_max": (3, 3), …};
    # a key that is not set does not constrain anything (vpu_core.hardware.limits).
    limits: dict = field(default_factory=dict)

    def enabled(self, rule_id: str) -> bool:
        return bool(self.constraints.get(rule_id, True))

    def limit(self, limit_id: str) -> object:
        """The bound of one limit ("conv2d.kernel_max"), None when the profile sets none."""
        return self.limits.get(limit_id)

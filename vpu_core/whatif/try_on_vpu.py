"""One CPU node, the profile edit that would move it to the VPU, and what the edit did.

    fix = vpu_fix(analysis, "gelu")          # VpuFix: add "gelu.default" to the VPU op list
    draft = fixed_profile(profile, fix)      # the profile with that edit (None: nothing to edit)
    card = before_after(before, after, fix.text)   # BeforeAfter: the numbers that moved, with deltas

The window's three-click story ("why is this on the CPU, and what would fix it?"): select a CPU
node, "Try it on the VPU" (the What-if editor opens with `fixed_profile`), Apply; the card says
what changed. A node whose cause no profile edit removes (an integer tensor, an op XNNPACK left
in float) has no fix: `vpu_fix` returns None and the window offers nothing. Pure Python on the
analysis' plain values.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from vpu_core.hardware.limits import BY_ID, relaxations, value_text
from vpu_core.hardware.ops import op_matches
from vpu_core.whatif.profile_edit import op_pattern
from vpu_core.whatif.results import EditKind

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis
    from vpu_core.hardware.profile import HardwareProfile


@dataclass(frozen=True)
class VpuFix:
    """The profile edit that removes the reason one node runs on the CPU."""

    node: str
    op: str                  # the node's ATen op, "gelu.default"
    kind: EditKind           # "op_list": add `entry` to the VPU op list · "limit": relax `limit`
    entry: str = ""          # the op-list entry to add ("gelu.default")
    limit: str = ""          # the first failing per-op limit ("conv2d.kernel_max"), kind "limit"
    text: str = ""           # "add gelu.default to the VPU op list"
    bounds: tuple[tuple[str, object], ...] = ()   # kind "limit": every failing limit, relaxed just
                                                  # enough for this node ((limit id, new bound), …)


def vpu_fix(analysis: Analysis, node: str) -> VpuFix | None:
    """What would move `node` to the VPU (simulated partition), or None: it is not on the CPU,
    or no profile edit helps (an integer or bool tensor, an op XNNPACK keeps in float)."""
    cpu = next((c for c in analysis.partition.cpu_nodes if c.node == node), None)
    if cpu is None:
        return None
    cause = cpu.cause
    if cause == "op_list":
        entry = op_pattern(cpu.op)
        return VpuFix(node, cpu.op, "op_list", entry=entry, text=f"add {entry} to the VPU op list")
    limits = cpu.limits
    if cause in ("limit", "memory") and limits:
        bounds = tuple((f.limit, _admitting(f.limit, f.bound, f.value)) for f in limits)
        text = " and ".join(f"{limit} to {value_text(BY_ID[limit], bound)}" for limit, bound in bounds)
        return VpuFix(node, cpu.op, "limit", limit=limits[0].limit, text=f"relax {text}", bounds=bounds)
    return None


def _admitting(limit: str, bound: object, value: object) -> object:
    """The bound of `limit` relaxed just enough for `value` (the node's own): a pair or a maximum
    raised to it, a channel multiple lowered to one that divides it, groups opened to "any"."""
    return relaxations(BY_ID[limit], bound, [value])[-1]


def fixed_profile(profile: HardwareProfile, fix: VpuFix) -> HardwareProfile | None:
    """`profile` with the edit of `fix`: the op added to the VPU op list, or every failing limit
    relaxed to the node's value (None when there is no edit to make)."""
    if fix.kind == "limit":
        return replace(profile, limits={**profile.limits, **dict(fix.bounds)}) if fix.bounds else None
    if fix.kind != "op_list":
        return None
    if op_matches(fix.op, profile.vpu_ops):
        return profile
    return replace(profile, vpu_ops=(*profile.vpu_ops, fix.entry))


# -- what the change did ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Delta:
    """One number of the card, before and after the change."""

    key: str                 # "cpu_ops", "subgraphs", "boundary_bytes", "sqnr_db", "vpu_mac_share"
    title: str               # "CPU ops"
    before: float | None
    after: float | None
    better: str              # "low" | "high": which direction is an improvement
    unit: str = ""           # "", "B", "dB", "share" (0..1), "value" (a metric: 4 significant digits)

    @property
    def delta(self) -> float | None:
        if self.before is None or self.after is None:
            return None
        return self.after - self.before

    @property
    def improved(self) -> bool | None:
        """True better, False worse, None unchanged or unknown."""
        d = self.delta
        if d is None or math.isclose(d, 0.0, abs_tol=1e-9):
            return None
        return (d < 0) == (self.better == "low")


@dataclass(frozen=True)
class BeforeAfter:
    model: str
    change: str                          # what was applied ("add gelu.default to the VPU op list")
    rows: tuple[Delta, ...]
    moved: tuple[str, ...] = ()          # the nodes placed otherwise after it (CPU <-> VPU)

    def row(self, key: str) -> Delta:
        return next(r for r in self.rows if r.key == key)


def _mac_share(a: Analysis) -> float | None:
    return float(a.summary.vpu_mac_share) if a.summary is not None else None


def before_after(before: Analysis, after: Analysis, change: str = "", extra: tuple[Delta, ...] = ()) -> BeforeAfter:
    """CPU ops, VPU subgraphs, boundary bytes, end-to-end SQNR and the VPU's share of the MACs of
    two analyses of one model (the simulated partition), each with its delta; `extra` rows after
    the SQNR (the user's metric of a sensitivity fix)."""
    rows = []
    for key, title, better, unit, value in (
            ("cpu_ops", "CPU ops", "low", "", lambda a: float(len(a.partition.cpu_nodes))),
            ("subgraphs", "VPU partitions", "low", "", lambda a: float(len(a.partition.subgraphs))),
            ("boundary_bytes", "Boundary bytes", "low", "B", lambda a: float(a.partition.transfer_bytes)),
            ("sqnr_db", "SQNR", "high", "dB", lambda a: a.sqnr_db),
            ("vpu_mac_share", "VPU MAC share", "high", "share", _mac_share)):
        rows.append(Delta(key, title, value(before), value(after), better, unit))
        if key == "sqnr_db":
            rows.extend(extra)
    was, now = ({c.node for c in a.partition.cpu_nodes} for a in (before, after))
    return BeforeAfter(after.model, change, tuple(rows), tuple(sorted(was ^ now)))

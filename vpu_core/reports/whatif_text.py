"""The one place what-if numbers become words: text report, HTML report and window all use these.

    ablation_headline(entry)      "pow2 scales cost 3.6 dB here"
    economics_sentence(sub, be)   "a one-op island: 2.2 KiB in and out for 5.1 kMAC (0.43 B/MAC …)"
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

from vpu_core.formatting import human_bytes
from vpu_core.hardware.limits import BY_ID, pair_text, value_text

if TYPE_CHECKING:
    from vpu_core.whatif.results import (AblationEntry, AblationReport, Economics, OpCandidate,
                                         ProfileChange, SubgraphEconomics)

NOISE_DB = 0.05      # a smaller change is reported as no measurable cost


def constraint_name(rule: object) -> str:
    """A rule's what-if name ("pow2 scales"), as its module declares it (RuleInfo.name), from a
    RuleInfo or an AblationEntry; its id when it has none."""
    return getattr(rule, "name", "") or getattr(rule, "id", "") or getattr(rule, "constraint", str(rule))


def ablation_headline(e: AblationEntry) -> str:
    name, verb = constraint_name(e), e.verb
    if not e.measured:
        return f"{name}: no effect here ({e.reason})"
    if abs(e.delta_db) < NOISE_DB:
        return f"{name}: no measurable cost here ({e.delta_db:+.2f} dB)"
    if e.within_noise:
        return (f"{name}: {e.delta_db:+.1f} dB here, within the noise of one held-out batch "
                f"(±{e.delta_se_db:.1f} dB)")
    spread = f" (±{e.delta_se_db:.1f})" if e.delta_se_db is not None else ""
    if e.delta_db > 0:
        return f"{name} {verb} {e.delta_db:.1f} dB{spread} here"
    return f"{name}: relaxing loses {-e.delta_db:.1f} dB{spread} here (the constraint helps accuracy)"


def delta_text(e: AblationEntry) -> str:
    """"+3.59 ± 0.50 dB", "+0.00 dB", "0 (not run)"."""
    if not e.measured:
        return "0 (not run)"
    spread = f" ± {e.delta_se_db:.2f}" if e.delta_se_db is not None else ""
    return f"{e.delta_db:+.2f}{spread} dB"


def db(value: float | None) -> str:
    return "n/a" if value is None or not math.isfinite(value) else f"{value:.1f} dB"


def signed_bytes(n: int) -> str:
    return ("−" + human_bytes(-n)) if n < 0 else human_bytes(n)


def profile_change_lines(changes: tuple[ProfileChange, ...]) -> list[str]:
    """The structured diff of two profiles as short lines ("ops.vpu: + softmax.int")."""
    out = []
    for c in changes:
        if c.added or c.removed or (isinstance(c.old, tuple) and all(isinstance(x, str) for x in c.old)
                                    and isinstance(c.new, tuple)):
            parts = [f"+ {x}" for x in c.added] + [f"− {x}" for x in c.removed]
            out.append(f"{c.key}: {', '.join(parts) or 'reordered'}")
        else:
            out.append(f"{c.key}: {_toml_text(c.old)} → {_toml_text(c.new)}")
    return out


def _toml_text(v) -> str:
    if v is None:
        return "not set"
    if isinstance(v, tuple):
        return pair_text(v)                          # a pair such as kernel_max: 3×3
    return ("true" if v else "false") if isinstance(v, bool) else repr(v) if isinstance(v, str) else str(v)


def human_macs(n: int) -> str:
    """"0.3 MMAC" (G and M from a tenth of the unit, as hardware people say), "5.1 kMAC", "12 MAC"."""
    for unit, size, least in (("GMAC", 1e9, 1e8), ("MMAC", 1e6, 1e5), ("kMAC", 1e3, 1e3)):
        if n >= least:
            return f"{n / size:.1f} {unit}"
    return f"{n} MAC"


def economics_sentence(s: SubgraphEconomics, break_even: float) -> str:
    what = "a one-op island" if s.ops == 1 else f"{s.ops} ops"
    head = f"subgraph {s.subgraph}, {what}: {human_bytes(s.bytes_total)} in and out for {human_macs(s.macs)}"
    if s.bytes_per_mac is None:
        return head + (" — no multiply-accumulate kept on the VPU: the transfer outweighs the work"
                       if s.bytes_total else "")
    ratio = f"{s.bytes_per_mac:.3g} B/MAC"
    if s.pays:
        return f"{head} ({ratio}, within the break-even {break_even:g} B/MAC)"
    return f"{head} — {ratio}, above the break-even {break_even:g} B/MAC: the transfer outweighs the work"


# -- text report sections ------------------------------------------------------------------------

def noise_note(r: AblationReport) -> str:
    """How sure the changes are: the jackknife error, or why there is none."""
    if r.has_noise_estimate:
        return "± one jackknife standard error over the held-out samples"
    return "no noise estimate: too few held-out samples, or no output with a batch dimension"


def ablation_lines(r: AblationReport) -> list[str]:
    lines = [f"Constraint ablation (each constraint 2-8 relaxed alone; baseline SQNR {db(r.baseline_sqnr_db)}, "
             f"{r.baseline_violations} violations; {r.seconds:.1f} s; {noise_note(r)}):",
             f"  {'#':<2} {'constraint':<30} {'SQNR':>9} {'change':>16} {'viol.':>6} {'subgr.':>6} "
             f"{'CPU':>4}  layers that gain most"]
    for e in r.ranked():
        layers = ", ".join(f"{g.node} {g.delta_db:+.1f}" for g in e.layers[:3]) or "—"
        lines.append(f"  {e.number:<2} {e.constraint:<30} {db(e.sqnr_db):>9} {delta_text(e):>16} "
                     f"{e.violations:>6} {e.subgraphs:>6} {e.cpu_nodes:>4}  {layers}")
    lines += [f"  · {ablation_headline(e)}" for e in r.ranked()]
    return lines


def bound_text(value: object) -> str:
    """A limit's bound as people read it: "3×3", "512.0 KiB" for SRAM bytes, "one_or_depthwise"."""
    return pair_text(value) if isinstance(value, (tuple, list)) else str(value)


def candidate_name(c: OpCandidate) -> str:
    """"softmax.int" (added to the op list) or "conv2d kernel_max 3×3→5×5" (a limit relaxed)."""
    if c.kind != "limit":
        return c.op
    table, _, key = c.limit.partition(".")
    if table == "memory" and isinstance(c.bound_from, int) and isinstance(c.bound_to, int):
        limit = BY_ID[c.limit]
        return f"SRAM {value_text(limit, c.bound_from)}→{value_text(limit, c.bound_to)}"
    return f"{table} {key} {bound_text(c.bound_from)}→{bound_text(c.bound_to)}"


def candidate_sentence(c: OpCandidate) -> str:
    """"conv2d kernel_max 3×3→5×5 moves 12 ops, merges 4 subgraphs, saves 310.0 KiB"."""
    what = f"adding {c.op} to the op list" if c.kind != "limit" else candidate_name(c)
    saves = f"saves {human_bytes(c.bytes_saved)}" if c.bytes_saved >= 0 else \
        f"adds {human_bytes(-c.bytes_saved)} of transfers"
    return (f"{what} moves {c.nodes_moved} op{'s' if c.nodes_moved != 1 else ''}, merges "
            f"{c.subgraphs_merged} subgraph{'s' if c.subgraphs_merged != 1 else ''}, {saves}")


def op_candidate_lines(candidates: Sequence[OpCandidate]) -> list[str]:
    if not candidates:
        return ["Op-list what-if: no op falls back to the CPU for lack of a kernel or over a limit."]
    width = max(28, *(len(candidate_name(c)) for c in candidates))
    lines = ["Op-list what-if (add one op type to the VPU op list, or relax one per-op limit; "
             "re-partition only):",
             f"  {'op / limit':<{width}} {'moved':>6} {'subgraphs merged':>16} {'bytes saved':>12} "
             f"{'CPU nodes left':>14}"]
    for c in candidates:
        lines.append(f"  {candidate_name(c):<{width}} {c.nodes_moved:>6} {c.subgraphs_merged:>16} "
                     f"{human_bytes(c.bytes_saved):>12} {c.cpu_nodes_left:>14}")
    return lines


def economics_lines(e: Economics | None) -> list[str]:
    if e is None or not e.subgraphs:
        return []
    flagged = e.flagged
    lines = [f"Partition economics (break-even {e.break_even_bytes_per_mac:g} bytes per MAC): "
             f"{len(flagged)} of {len(e.subgraphs)} subgraph(s) move more than they compute"]
    lines += [f"  ! {economics_sentence(s, e.break_even_bytes_per_mac)}" for s in flagged]
    return lines

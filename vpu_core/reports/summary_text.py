"""The headline numbers as words, in one place: the text report, the HTML report, the status bar and
the node panel all say the same ("VPU: 94.3 % of 1.2 MMAC").

    mac_share_text(summary)        "94.3 % of 1.2 MMAC"
    headline(summary)              "VPU runs 94.3 % of 1.2 MMAC · 8 of 8 weights quantized · CPU ops: …"
    no_weighted_op_sentence(s)     one sentence when no conv / linear runs on the VPU ("" otherwise)
    causes_text(counts)            "10 op list, 5 dtype"
Pure Python on the plain Summary (no torch, no Qt).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from vpu_core.reports.whatif_text import human_macs

if TYPE_CHECKING:
    from vpu_core.analysis.results import CpuCause, Summary

CAUSE_WORDS: dict[CpuCause, str] = {"op_list": "not in the op list", "dtype": "integer / bool tensors",
               "limit": "over a per-op limit", "memory": "over the SRAM", "float": "left in float",
               # the real XNNPACK delegation (vpu_core.targets.xnnpack.why)
               "no_kernel": "no XNNPACK kernel", "rejected": "rejected by XNNPACK's checks",
               "left_out": "left out of the delegates", "removed": "removed while lowering"}
CAUSE_SHORT: dict[CpuCause, str] = {"op_list": "op list", "dtype": "dtype", "limit": "limit", "memory": "memory", "float": "float",
               "no_kernel": "no kernel", "rejected": "rejected", "left_out": "left out", "removed": "removed"}


def share_text(fraction: float) -> str:
    """"94.3 %", "100 %" only when it is all, "0 %" only when it is nothing."""
    if fraction >= 1.0:
        return "100 %"
    if fraction <= 0.0:
        return "0 %"
    return f"{min(max(100.0 * fraction, 0.1), 99.9):.1f} %"


def mac_share_text(s: Summary) -> str:
    """"94.3 % of 1.2 MMAC" (the model's multiply-accumulates on the VPU)."""
    if not s.macs_total:
        return "no MAC in the model"
    return f"{share_text(s.vpu_mac_share)} of {human_macs(s.macs_total)}"


Standing = Literal["runs", "low", "blocked"]


def mac_share_standing(s: Summary, violations: int) -> Standing:
    """What the MAC share means under the run's quantizer, for the colour it is shown in:
    "blocked" when rules are broken (the VPU runs no program that breaks its rules, so the share
    is only what it would run once they are met: XNNPACK's scales are never 2^k), "low" under
    half of the MACs, else "runs"."""
    if violations and s.macs_vpu:
        return "blocked"
    return "runs" if s.vpu_mac_share >= 0.5 else "low"


def mac_share_caveat(s: Summary, violations: int) -> str:
    """What a blocked share owes its reader: "once its 117 rule violations are fixed" ("" when
    the share runs as it is)."""
    if mac_share_standing(s, violations) != "blocked":
        return ""
    return f"once its {violations} rule violation{'s' if violations != 1 else ''} are fixed" \
        if violations != 1 else "once its rule violation is fixed"


def weights_text(s: Summary) -> str:
    return f"{s.weights_quantized} of {s.weights_total} weights quantized"


def causes_text(counts: dict, short: bool = True) -> str:
    """"10 op list, 5 dtype" (non-zero causes only); "none" when no op runs on the CPU."""
    words = CAUSE_SHORT if short else CAUSE_WORDS
    parts = [f"{n} {words.get(cause, cause)}" for cause, n in counts.items() if n]
    return ", ".join(parts) or "none"


def headline(s: Summary) -> str:
    """One line: what share of the model the VPU runs, how many weights are int8, why the rest
    runs on the CPU."""
    return (f"VPU runs {mac_share_text(s)} · {weights_text(s)} · "
            f"CPU ops by cause: {causes_text(s.cpu_ops_by_cause)}")


POOR_SQNR_DB = 20.0   # below it, the quantized output is off by more than a tenth of its signal's energy


def poor_sqnr_sentence(sqnr_db: float | None) -> str:
    """The sentence a poor end-to-end SQNR owes its reader (the report, the text, the status
    bar), "" when it is fine or not measured."""
    if sqnr_db is None or sqnr_db >= POOR_SQNR_DB:
        return ""
    return (f"The end-to-end SQNR of {sqnr_db:.1f} dB is poor (under {POOR_SQNR_DB:.0f} dB): check --sensitivity "
            "says which layers cost it and what brings it back.")


def empty_weights_reason(s: Summary | None, short: bool = False) -> str:
    """Why a chart of weights (scales per channel, shifts) has nothing to show; "" when it has.
    `short`: one line for a small plot."""
    if s is not None and not s.weights_total:
        return "No weight to show: the model has no conv or linear."
    if s is not None and not s.weights_quantized and short:
        return f"No weight quantized: none of {s.weights_total} conv / linear runs on the VPU."
    if s is not None and not s.weights_quantized:
        return (f"No weight to show: none of the model's {s.weights_total} conv / linear weights is "
                "quantized (no conv or linear runs on the VPU).")
    return ""


def no_weighted_op_short(s: Summary | None) -> str:
    """The same, short enough for a status bar: "no conv / linear runs on the VPU (0 of 8 weights
    quantized)"; "" when some weighted op runs on the VPU."""
    if s is None or s.weighted_on_vpu:
        return ""
    unchecked = ": no weight was checked" if not s.weights_quantized else ""
    return f"no conv / linear runs on the VPU ({weights_text(s)}){unchecked}"


def no_weighted_op_sentence(s: Summary | None) -> str:
    """The sentence a run owes its reader when its VPU part holds no conv / linear (its "0
    violations" then says nothing about weights); "" when some weighted op runs on the VPU."""
    if s is None or s.weighted_on_vpu:
        return ""
    if not s.weights_total:
        return ("No weighted op runs on the VPU: the model has no conv or linear, so no weight rule "
                "had anything to check.")
    unchecked = ", so the weight rules had nothing to check" if not s.weights_quantized else ""
    return (f"No weighted op runs on the VPU: none of the model's {s.weights_total} conv / linear "
            f"ops does ({weights_text(s)}; {mac_share_text(s)} on the VPU){unchecked}.")

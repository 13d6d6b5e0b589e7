"""The timing model in words and JSON: one place for "pays / costs 180 µs" and its assumptions.

JSON (`check --run`): "timing": {"assumptions": {...}, "subgraphs": [{"subgraph", "vpu_us",
"transfer_us", "total_us", "cpu_us", "saves_us", "pays", …}], "cpu_fallback_us", "split_us",
"all_cpu_ops_us", "all_cpu_latency_us", "runtime"}.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from vpu_core.formatting import count_text, human_bytes, time_text

if TYPE_CHECKING:
    from vpu_core.timing import SplitTiming, SubgraphTiming, TimingAssumptions


def verdict(s: SubgraphTiming) -> str:
    """"pays (saves 45 µs)" or "costs 180 µs"."""
    return f"pays (saves {time_text(s.saves_us)})" if s.pays else f"costs {time_text(-s.saves_us)}"


def rate_text(per_s: float, unit: str) -> str:
    """1e12 MAC/s -> "1 TMAC/s"; 2e9 B/s -> "2 GB/s"."""
    for prefix, size in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if per_s >= size:
            return f"{per_s / size:.3g} {prefix}{unit}/s"
    return f"{per_s:.3g} {unit}/s"


def assumptions_text(t: TimingAssumptions, profile: str = "") -> str:
    """The VPU-side assumptions in one line, as every timing figure is printed with."""
    where = f" of profile {profile}" if profile else ""
    return (f"[timing]{where}: VPU {rate_text(t.vpu_macs_per_s, 'MAC')}, {time_text(t.launch_overhead_us)} "
            f"launch per subgraph; link {rate_text(t.link_bytes_per_s, 'B')} + "
            f"{time_text(t.transfer_latency_us)} per transfer; ops without MACs free on the VPU")


def subgraph_sentence(s: SubgraphTiming) -> str:
    what = "a one-op island" if s.ops == 1 else f"{s.ops} ops"
    partial = "" if s.measured_ops >= s.ops else f", {s.measured_ops} of {s.ops} ops timed"
    return (f"subgraph {s.subgraph} ({what}): VPU {time_text(s.vpu_us)} + "
            f"{count_text(s.transfers, 'transfer')} {time_text(s.transfer_us)} ({human_bytes(s.transfer_bytes)}) "
            f"= {time_text(s.total_us)} vs CPU {time_text(s.cpu_us)} measured{partial}: {verdict(s)}")


def timing_lines(t: SplitTiming) -> list[str]:
    lines = [f"Partition economics in time ({len(t.not_paying)} of {len(t.subgraphs)} VPU subgraph(s) "
             "do not pay):",
             f"  Assumptions: {assumptions_text(t.assumptions, t.profile)}; CPU measured here "
             f"({t.runtime})"]
    lines += [f"  {'!' if not s.pays else ' '} {subgraph_sentence(s)}" for s in t.subgraphs]
    lines.append(f"  End to end: VPU + CPU split {time_text(t.split_us)} (estimate: subgraphs + transfers, "
                 f"plus {count_text(t.cpu_fallback_ops, 'CPU fallback op')} measured {time_text(t.cpu_fallback_us)}) "
                 f"vs all on the CPU {time_text(t.all_cpu_ops_us)} measured per op "
                 f"({time_text(t.all_cpu_latency_us)} wall-clock median)")
    return lines


def timing_to_json(t: SplitTiming) -> dict:
    a = t.assumptions
    return {
        "assumptions": {"vpu_macs_per_s": a.vpu_macs_per_s, "link_bytes_per_s": a.link_bytes_per_s,
                        "launch_overhead_us": a.launch_overhead_us,
                        "transfer_latency_us": a.transfer_latency_us, "profile": t.profile,
                        "cpu": t.runtime},
        "subgraphs": [{"subgraph": s.subgraph, "ops": s.ops, "macs": s.macs, "transfers": s.transfers,
                       "transfer_bytes": s.transfer_bytes, "launch_us": s.launch_us,
                       "compute_us": s.compute_us, "vpu_us": s.vpu_us, "transfer_us": s.transfer_us,
                       "total_us": s.total_us, "cpu_us": s.cpu_us, "saves_us": s.saves_us, "pays": s.pays,
                       "measured_ops": s.measured_ops, "verdict": verdict(s)} for s in t.subgraphs],
        "cpu_fallback_us": t.cpu_fallback_us, "cpu_fallback_ops": t.cpu_fallback_ops,
        "split_us": t.split_us, "all_cpu_ops_us": t.all_cpu_ops_us,
        "all_cpu_latency_us": t.all_cpu_latency_us,
    }

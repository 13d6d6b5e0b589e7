"""The Arm targets in the text report: Vela's estimate per partition and per node, the split in time.

Torch-free (it reads results.py's dataclasses): the text report and the window's panels call it.
"""
from __future__ import annotations

from vpu_core.formatting import human_bytes, time_text
from vpu_core.targets.arm.results import ArmSplit, VelaEstimate

TOP_NODES = 5


def cycles_text(cycles: float) -> str:
    """"27.5 k cycles", "1.2 M cycles", "512 cycles"."""
    for bound, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(cycles) >= bound:
            return f"{cycles / bound:.3g} {suffix} cycles"
    return f"{cycles:.0f} cycles"


def estimate_lines(e: VelaEstimate) -> list[str]:
    lines = [f"  {e.label}, {e.accelerator} at {e.clock_hz / 1e6:.0f} MHz: {cycles_text(e.total_cycles)} "
             f"({cycles_text(e.npu_cycles)} NPU), {e.inference_ms:.3f} ms; SRAM {human_bytes(e.sram_bytes)}, "
             f"flash {human_bytes(e.flash_bytes)}"]
    for p in e.partitions:
        lines.append(f"    partition {p.index}: {cycles_text(p.cycles)}, {p.inference_ms:.3f} ms, "
                     f"{p.macs:,} MACs, SRAM {human_bytes(p.sram_bytes)}, flash {human_bytes(p.flash_bytes)}, "
                     f"{p.operations} NPU operation(s)")
    top = sorted(e.nodes, key=lambda c: -c.cycles)[:TOP_NODES]
    if top:
        lines.append("    most cycles: " + ", ".join(
            f"{c.node} {cycles_text(c.cycles)} ({c.utilisation(e.macs_per_cycle):.0f} % MAC use)" for c in top))
    lines.append(f"    {100 * e.attributed_share:.1f} % of the cycles attributed to graph nodes"
                 + (f"; not attributed: {_unattributed(e)}" if e.unattributed else ""))
    return lines


def _unattributed(e: VelaEstimate) -> str:
    kinds: dict[str, int] = {}
    for u in e.unattributed:
        kinds[u.vela_op] = kinds.get(u.vela_op, 0) + u.cycles
    return ", ".join(f"{k} {cycles_text(v)}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]))


def split_lines(s: ArmSplit) -> list[str]:
    """"The NPU part takes 0.36 ms, the CPU avg-pool 0.05 ms, the hand-offs …" as one table."""
    lines = [f"  Time, one inference: NPU {time_text(s.npu_total_us)} ({s.label}) + CPU "
             f"{time_text(s.cpu_total_us)} (measured here: {s.cpu_runtime}, portable kernels, "
             f"{s.threads} thread(s)) = {time_text(s.total_us)}"]
    lines += [f"    NPU partition {i}: {time_text(us)} (estimate)" for i, us in s.npu_us]
    for island in s.islands:
        ops = ", ".join(island.ops)
        lines.append(f"    CPU island {island.index}: {time_text(island.us)} measured  "
                     f"{len(island.nodes)} op(s): {ops}")
    if s.handoff_nodes:
        lines.append(f"    hand-offs: {time_text(s.handoff_us)} measured  ({len(s.handoff_nodes)} quantize / "
                     "dequantize between the CPU and the delegates)")
    return lines

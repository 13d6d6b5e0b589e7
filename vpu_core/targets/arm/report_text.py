"""The Arm targets in words: Vela's estimate per partition and per node, the split in time, and the
rows the window's node panel, partition table and status bar show.

Torch-free (it reads results.py's dataclasses): the text report and the window's widgets call it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from vpu_core.formatting import human_bytes, time_text

if TYPE_CHECKING:
    from vpu_core.targets.arm.results import NodeCost, VelaEstimate
    from vpu_core.targets.arm.split import ArmSplit
    from vpu_core.analysis.results import PartitionReport

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


# -- the window's node panel, partition table and status bar (torch-free rows of text) ----------------

def node_rows(title: str, verdict: PartitionReport, estimate: VelaEstimate | None, node: str) -> list[tuple[str, str]]:
    """(label, value) rows for one node under an Arm target: where it runs and, on the NPU, Vela's
    figures for it; on the CPU, the backend's reason and the check that gave it."""
    where = verdict.assignment.get(node)
    cpu = next((c for c in verdict.cpu_nodes if c.node == node), None)
    if cpu is not None:
        detail = dict(cpu.detail)
        rows = [(title, f"CPU — {cpu.cause}"), ("Reason", cpu.reason.removeprefix(f"not delegated to {title}: "))]
        if detail.get("check"):
            rows.append(("Check", str(detail["check"])))
        return rows
    if not isinstance(where, int):
        return [(title, "CPU")]
    rows = [(title, f"partition {where} (NPU)")]
    cost = estimate.node(node) if estimate is not None else None
    if cost is None:
        return rows + ([("Vela", "no NPU operation of its own (fused or folded)")] if estimate is not None else [])
    return rows + [
        ("Cycles", f"{cost.cycles:,} ({cost.npu_cycles:,} NPU)"),
        ("MACs", f"{cost.macs:,} ({cost.utilisation(estimate.macs_per_cycle):.0f} % of the MAC array)"
         if estimate is not None else f"{cost.macs:,}"),
        ("Memory access", _access(cost)),
        ("Staging", human_bytes(cost.staging_bytes)),
        ("Vela ops", ", ".join(cost.vela_ops)),
        ("Estimate", estimate.label if estimate is not None else ""),
    ]


def _access(cost: NodeCost) -> str:
    parts = [(cost.sram_access_cycles, "SRAM"), (cost.dram_access_cycles, "DRAM"),
             (cost.onchip_flash_access_cycles, "on-chip flash"), (cost.offchip_flash_access_cycles, "flash")]
    shown = [f"{c:,} cycles {what}" for c, what in parts if c]
    return ", ".join(shown) or "none"


def partition_rows(estimate: VelaEstimate) -> list[tuple[str, str]]:
    """One row per partition: its cycles, time and memory (the partition table's Vela column)."""
    return [(f"partition {p.index}", f"{cycles_text(p.cycles)} · {p.inference_ms:.3f} ms · SRAM "
             f"{human_bytes(p.sram_bytes)} · flash {human_bytes(p.flash_bytes)}") for p in estimate.partitions]


def status_text(title: str, verdict: PartitionReport, estimate: VelaEstimate | None) -> str:
    """"Ethos-U55-128: 2 partitions, 5 CPU ops, 0.053 ms on the NPU (Vela 5.1.0 estimate)"."""
    from vpu_core.formatting import count_text

    text = f"{title}: {count_text(len(verdict.subgraphs), 'partition')}, {count_text(len(verdict.cpu_nodes), 'CPU op')}"
    if estimate is not None:
        text += f", {estimate.inference_ms:.3f} ms on the NPU (Vela {estimate.vela_version} estimate)"
    return text

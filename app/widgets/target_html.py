"""A target's own section of the node panel and its facts in the summary: the verdict of the
target the graph is coloured by, and its compiler's estimate (Vela's numbers for an Ethos-U).

Rows of (label, html value); app.widgets.node_html lays them out. Vela's figures are labelled as
the compiler's estimate with its version: they are Vela's model of the NPU, not a measurement,
and they change between Vela versions.
"""
from __future__ import annotations

import html
from typing import TYPE_CHECKING

from app import theme
from vpu_core.formatting import human_bytes
from vpu_core.targets.arm.report_text import cycles_text
from vpu_core.targets.arm.results import VelaEstimate

if TYPE_CHECKING:
    from vpu_core.targets.results import TargetResult

Rows = list[tuple[str, str]]

# vpu_core.targets.arm.results.ARM_CAUSES in a few words
ARM_CAUSE_WORDS = {
    "float": "not quantized (the INT profile computes integers)",
    "unsupported": "no TOSA / NPU operator for it",
    "limit": "supported op, unsupported arguments (kernel, stride, shape)",
    "dtype": "a tensor type the target does not take",
    "shape": "symbolic or unresolved shapes",
    "partition": "its partition was dropped as a whole",
    "left_out": "no check refused it, yet it runs on the CPU",
    "removed": "folded away while lowering",
}


def esc(value: object) -> str:
    return html.escape(str(value))


def vela_of(judged: TargetResult | None) -> VelaEstimate | None:
    estimate = judged.estimate if judged is not None else None
    return estimate if isinstance(estimate, VelaEstimate) else None


def target_rows(judged: TargetResult | None, members: tuple[str, ...]) -> tuple[str, Rows]:
    """(section title, rows) for a node drawn as `members` (itself and what is folded into it)
    under `judged`; ("", []) when the graph is not coloured by a target with more to say."""
    if judged is None or judged.target == "xnnpack":    # XNNPACK's reasons are in the Partition section
        return "", []
    verdict, node = judged.verdict, members[0]
    cpu = next((c for c in verdict.cpu_nodes if c.node == node), None)
    if cpu is not None:
        # the sentence is the Partition section's; here what said it and why it counts
        detail = dict(cpu.detail)
        why: Rows = [("cause", f"<b>{esc(cpu.cause)}</b> — {esc(ARM_CAUSE_WORDS.get(cpu.cause, cpu.cause))}")]
        for key, label in (("check", "check"), ("lowered_op", "lowered as")):
            if detail.get(key):
                why.append((label, f'<span style="font-family:{theme.MONO_CSS}">{esc(detail[key])}</span>'))
        return f"{judged.title} · why on the CPU", why
    side = verdict.assignment.get(node)
    if not isinstance(side, int) or isinstance(side, bool):
        return "", []
    vela = vela_of(judged)            # where it runs is the Partition section's; here Vela's numbers
    if vela is None:
        return "", []
    costs = [c for c in (vela.node(m) for m in members) if c is not None]
    if not costs:
        return estimate_title(vela), [("Vela", "no NPU operation of its own (fused into its neighbour or folded)")]
    macs = sum(c.macs for c in costs)
    cycles = sum(c.cycles for c in costs)
    util = 100.0 * macs / (cycles * vela.macs_per_cycle) if cycles and vela.macs_per_cycle else 0.0
    access = [(sum(c.sram_access_cycles for c in costs), "SRAM"), (sum(c.dram_access_cycles for c in costs), "DRAM"),
              (sum(c.onchip_flash_access_cycles for c in costs), "on-chip flash"),
              (sum(c.offchip_flash_access_cycles for c in costs), "off-chip flash")]
    share = 100.0 * cycles / vela.total_cycles if vela.total_cycles else 0.0
    rows: Rows = [
        ("cycles", f"<b>{cycles:,}</b> <span style='color:{theme.MUTED}'>({share:.1f} % of the network)</span>"),
        ("NPU cycles", f"{sum(c.npu_cycles for c in costs):,}"),
        ("MACs", f"{macs:,}"),
        ("utilisation", f"{util:.0f} % of the MAC array ({vela.macs_per_cycle} MACs / cycle)"),
        ("memory access", ", ".join(f"{n:,} cycles {what}" for n, what in access if n) or "none"),
        ("staging", human_bytes(max(c.staging_bytes for c in costs))),
        ("Vela ops", esc(", ".join(op for c in costs for op in c.vela_ops))),
    ]
    return estimate_title(vela), rows


def estimate_title(vela: VelaEstimate) -> str:
    """"Ethos_U55_128 · Vela 5.1.0 estimate"."""
    return f"{vela.accelerator} · Vela {vela.vela_version} estimate"


def estimate_facts(judged: TargetResult | None) -> Rows:
    """The summary's rows for Vela's estimate of the whole program (nothing for other targets)."""
    vela = vela_of(judged)
    if vela is None:
        return []
    return [("NPU time", f"<b>{vela.inference_ms:.3f} ms</b> at {vela.clock_hz / 1e6:.0f} MHz "
                         f"({cycles_text(vela.total_cycles)}) — {esc(vela.label)}"),
            ("NPU memory", f"SRAM {human_bytes(vela.sram_bytes)}, flash {human_bytes(vela.flash_bytes)}"),
            ("Attributed", f"{100 * vela.attributed_share:.1f} % of the cycles to graph nodes")]

"""What the Arm targets report, as small frozen dataclasses of plain values (no torch, no Vela).

The reports, the window and the cache read these; a cached estimate is rebuilt from this module
alone. Every figure of a `VelaEstimate` is Vela's own estimate for the partitions it compiled
(its performance database and network summary), labelled with Vela's version: its estimates
change between versions, and they are a compiler's model of the NPU, not a measurement.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Mapping

if TYPE_CHECKING:
    from vpu_core.analysis.results import NodeInfo, PartitionReport
    from vpu_core.targets.arm.split import ArmSplit
    from vpu_core.targets.results import RuntimeReport

ArmCause = Literal["float", "unsupported", "limit", "dtype", "shape", "partition", "left_out", "removed"]
# Why an op stays on the CPU under an Arm target (CpuNode.cause). The check that said no is kept
# in CpuNode.detail ("check": the class name in ExecuTorch's Arm backend).
ARM_CAUSES: tuple[ArmCause, ...] = (
    "float",        # not quantized: the quantizer left it in float (the INT profile computes integers)
    "unsupported",  # no TOSA / NPU operator for it (not in the backend's support lists)
    "limit",        # the op is supported, its arguments are not (kernel, stride, shape limits)
    "dtype",        # a tensor type the target does not take (int64, bool on the U55, …)
    "shape",        # symbolic or unresolved shapes
    "partition",    # its partition was dropped as a whole (nothing left to compute, uint8 inside)
    "left_out",     # no check refused it, yet the lowered program runs it on the CPU
    "removed",      # folded away while lowering: the lowered program has no op for it
)


@dataclass(frozen=True)
class NodeCost:
    """Vela's estimate for one node of the converted graph: the sum over the NPU operations Vela
    scheduled for it (a conv and its layout transposes, a decomposed softmax's pieces)."""

    node: str
    partition: int
    cycles: int                      # Vela's "Op Cycles": the operations' time, compute or memory bound
    npu_cycles: int                  # Vela's "NPU": their compute cycles
    macs: int
    sram_access_cycles: int
    dram_access_cycles: int
    onchip_flash_access_cycles: int
    offchip_flash_access_cycles: int
    staging_bytes: int               # the largest staging (SRAM) use among its operations
    vela_ops: tuple[str, ...]        # Vela's operator names, in schedule order ("Transpose", "Conv2D")

    def utilisation(self, macs_per_cycle: int) -> float:
        """The MAC array's use over its cycles, in percent (Vela's "Util% (MAC)")."""
        if self.cycles <= 0 or macs_per_cycle <= 0:
            return 0.0
        return 100.0 * self.macs / (self.cycles * macs_per_cycle)


@dataclass(frozen=True)
class UnattributedCost:
    """NPU operations no node of the converted graph accounts for (a Vela-internal operation whose
    TOSA source the debug information does not lead back to the graph)."""

    partition: int
    vela_op: str
    name: str
    cycles: int
    npu_cycles: int


@dataclass(frozen=True)
class PartitionCost:
    """One Ethos-U partition (one delegate of the program) as Vela's network summary reports it."""

    index: int                       # delegate order in the program (0, 1, …)
    cycles: int                      # Vela's total cycles
    npu_cycles: int                  # Vela's NPU (compute) cycles
    macs: int
    inference_ms: float              # total cycles at the system configuration's clock
    sram_bytes: int                  # SRAM Vela allocates for it (peak)
    flash_bytes: int                 # on- and off-chip flash (weights and constants)
    dram_bytes: int
    operations: int                  # NPU operations Vela scheduled for it (rows of its performance table)
    nodes: tuple[str, ...] = ()      # converted-graph ops in it


@dataclass(frozen=True)
class VelaEstimate:
    """Vela's estimate of every Ethos-U partition of one program (vpu_core.targets protocol's
    Estimate: unit "cycles", total over the partitions, per node)."""

    target: str                      # "ethos-u55-128"
    accelerator: str                 # Vela's name of it ("Ethos_U55_128")
    system_config: str
    memory_mode: str
    clock_hz: float
    vela_version: str
    macs_per_cycle: int
    partitions: tuple[PartitionCost, ...]
    nodes: tuple[NodeCost, ...]      # graph order
    unattributed: tuple[UnattributedCost, ...] = ()

    @property
    def unit(self) -> Literal["cycles"]:
        return "cycles"

    @property
    def total(self) -> float:
        return float(self.total_cycles)

    @property
    def label(self) -> str:
        return f"Vela {self.vela_version} estimate ({self.system_config}, {self.memory_mode})"

    def per_node(self) -> dict[str, float]:
        return {c.node: float(c.cycles) for c in self.nodes}

    def node_metrics(self) -> dict[str, dict[str, float]]:
        """The window's per-node metrics (vpu_core.graph.metrics): each node's NPU cycles."""
        return {"npu_cycles": {c.node: float(c.npu_cycles) for c in self.nodes}}

    @property
    def total_cycles(self) -> int:
        return sum(p.cycles for p in self.partitions)

    @property
    def npu_cycles(self) -> int:
        return sum(p.npu_cycles for p in self.partitions)

    @property
    def inference_ms(self) -> float:
        """All partitions, one after another, at the clock (the CPU parts between them not included)."""
        return sum(p.inference_ms for p in self.partitions)

    @property
    def sram_bytes(self) -> int:
        """The largest partition's SRAM: the partitions run one after another and reuse the arena."""
        return max((p.sram_bytes for p in self.partitions), default=0)

    @property
    def flash_bytes(self) -> int:
        """Every partition's weights and constants: each keeps its own in flash."""
        return sum(p.flash_bytes for p in self.partitions)

    @property
    def attributed_cycles(self) -> int:
        return sum(c.cycles for c in self.nodes)

    @property
    def attributed_share(self) -> float:
        """The share of the total cycles attributed to graph nodes (1.0 when nothing was left over)."""
        total = self.total_cycles
        return self.attributed_cycles / total if total else 1.0

    def node(self, name: str) -> NodeCost | None:
        return next((c for c in self.nodes if c.node == name), None)

    def split(self, nodes: Mapping[str, NodeInfo], verdict: PartitionReport, run: RuntimeReport) -> ArmSplit:
        """This estimate beside the CPU side a run measured: one table in time (split.py)."""
        from vpu_core.targets.arm.split import arm_split

        return arm_split(nodes, verdict, self, run)

    def brief(self) -> str:
        """One clause for a headline: "Vela 5.1.0 estimate: 0.446 ms (223 k cycles), SRAM 50.8 KiB, flash 81.0 KiB"."""
        from vpu_core.formatting import human_bytes
        from vpu_core.targets.arm.report_text import cycles_text

        return (f"Vela {self.vela_version} estimate: {self.inference_ms:.3f} ms ({cycles_text(self.total_cycles)}), "
                f"SRAM {human_bytes(self.sram_bytes)}, flash {human_bytes(self.flash_bytes)}")

    def text_lines(self) -> list[str]:
        """Its lines in the text report (report_text.py)."""
        from vpu_core.targets.arm.report_text import estimate_lines

        return estimate_lines(self)

    def to_json(self) -> dict:
        """The JSON `estimate` beyond the common face (docs/spec.md, section 9): Vela's totals,
        each partition, each node's figures, and what no node accounts for."""
        return {
            "vela_version": self.vela_version, "accelerator": self.accelerator,
            "system_config": self.system_config, "memory_mode": self.memory_mode, "clock_hz": self.clock_hz,
            "npu_cycles": self.npu_cycles, "total_cycles": self.total_cycles, "inference_ms": self.inference_ms,
            "sram_bytes": self.sram_bytes, "flash_bytes": self.flash_bytes,
            "attributed_share": self.attributed_share,
            "partitions": [{"index": p.index, "cycles": p.cycles, "npu_cycles": p.npu_cycles, "macs": p.macs,
                            "inference_ms": p.inference_ms, "sram_bytes": p.sram_bytes,
                            "flash_bytes": p.flash_bytes, "dram_bytes": p.dram_bytes,
                            "operations": p.operations, "nodes": list(p.nodes)} for p in self.partitions],
            "per_node": {c.node: {"cycles": c.cycles, "npu_cycles": c.npu_cycles, "macs": c.macs,
                                  "utilisation_pct": c.utilisation(self.macs_per_cycle),
                                  "sram_access_cycles": c.sram_access_cycles,
                                  "dram_access_cycles": c.dram_access_cycles,
                                  "onchip_flash_access_cycles": c.onchip_flash_access_cycles,
                                  "offchip_flash_access_cycles": c.offchip_flash_access_cycles,
                                  "staging_bytes": c.staging_bytes, "partition": c.partition,
                                  "vela_ops": list(c.vela_ops)} for c in self.nodes},
            "unattributed": [{"partition": u.partition, "vela_op": u.vela_op, "name": u.name,
                              "cycles": u.cycles, "npu_cycles": u.npu_cycles} for u in self.unattributed],
        }


@dataclass(frozen=True)
class PartitionNumerics:
    """One partition run in the TOSA reference model on the Q/DQ graph's own values of its inputs,
    its integer outputs against the Q/DQ graph's at the same nodes."""

    index: int
    outputs: int
    elements: int
    max_lsb: int                     # the largest difference, in units of the output's last bit
    differing: int                   # elements that differ at all

    @property
    def differing_share(self) -> float:
        return self.differing / self.elements if self.elements else 0.0


@dataclass(frozen=True)
class TosaNumerics:
    """The program with its TOSA partitions run in the TOSA reference model (tosa_numerics)."""

    reference: str                   # "TOSA reference model (tosa-tools 2026.5.0)"
    sqnr_vs_qdq_db: float | None
    sqnr_vs_qdq_reason: str
    outputs_identical: bool          # the outputs equal the Q/DQ graph's bit for bit
    sqnr_vs_float_db: float | None
    sqnr_vs_float_reason: str
    partitions: tuple[PartitionNumerics, ...]
    seconds: float = 0.0

    @property
    def max_lsb(self) -> int:
        return max((p.max_lsb for p in self.partitions), default=0)

    @property
    def differing_share(self) -> float:
        elements = sum(p.elements for p in self.partitions)
        return sum(p.differing for p in self.partitions) / elements if elements else 0.0

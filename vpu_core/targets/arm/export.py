"""`export --target ethos-u55-128 -o model.pte`: the Ethos-U program and its compiler's files beside it.

    model.pte                        the ExecuTorch program: EthosUBackend delegates (Vela's command
                                     stream and weights) and the portable ops between them; it runs
                                     on an Ethos-U system (a Corstone-300 / 320 board or FVP with
                                     ExecuTorch's Arm runtime), not on this machine
    model.ethos-u55-128/
        summary.json                 target, Vela version, system configuration, memory mode, and
                                     per partition: its nodes, Vela's cycles and memory
        partition_K/out.tosa         the TOSA flatbuffer Vela compiled for delegate K
        partition_K/debug.json       TOSA operator -> torch nodes (ExecuTorch's debug information)
        partition_K/output/…         Vela's per-layer CSV, network summary CSV and debug database
        vela.log                     what Vela printed

For `tosa-int` the program's delegates are TOSA flatbuffers (TOSABackend): the folder holds them
and their debug information, with no Vela reports.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from vpu_core.errors import InspectorError

if TYPE_CHECKING:
    from vpu_core.analysis.results import PartitionReport
    from vpu_core.targets.arm.lowering import ArmLowering
    from vpu_core.targets.arm.results import VelaEstimate


def artifacts_folder(output: Path, target: str) -> Path:
    """model.pte -> model.ethos-u55-128/ beside it."""
    return output.with_name(f"{output.stem}.{target}")


def export_program(lowering: ArmLowering, output: Path, verdict: PartitionReport,
                   estimate: VelaEstimate | None) -> tuple[int, Path]:
    """Write the .pte and the folder; (bytes of the .pte, the folder)."""
    import traceback

    from vpu_core.errors import short_reason

    # The portable quantize / dequantize kernels left between delegates need their out variants
    # registered before emitting; importing the Arm quantizer does it, but a warm cache converts
    # from stored qparams and never imports the quantizer.
    import executorch.kernels.quantized  # noqa: F401

    try:
        program = lowering.edge.to_executorch()
    except Exception as exc:  # ExecuTorch raises many types; the user gets one line
        raise InspectorError(f"ExecuTorch could not emit the {lowering.config.title} program: {short_reason(exc)}",
                             traceback.format_exc()) from None
    data = bytes(program.buffer)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(data)
    folder = artifacts_folder(output, lowering.config.name)
    folder.mkdir(parents=True, exist_ok=True)
    for part in lowering.partitions:
        for rel, content in part.files.items():
            path = folder / f"partition_{part.index}" / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
    if lowering.vela_log:
        (folder / "vela.log").write_text(lowering.vela_log, encoding="utf-8")
    (folder / "summary.json").write_text(json.dumps(_summary(lowering, verdict, estimate), indent=2) + "\n",
                                         encoding="utf-8")
    return len(data), folder


def _summary(lowering: ArmLowering, verdict: PartitionReport, estimate: VelaEstimate | None) -> dict:
    costs = {p.index: p for p in estimate.partitions} if estimate else {}
    partitions = []
    for part, sub in zip(lowering.partitions, verdict.subgraphs):
        entry: dict = {"index": part.index, "folder": f"partition_{part.index}", "nodes": list(sub.nodes)}
        cost = costs.get(part.index)
        if cost is not None:
            entry.update({"cycles": cost.cycles, "npu_cycles": cost.npu_cycles, "inference_ms": cost.inference_ms,
                          "sram_bytes": cost.sram_bytes, "flash_bytes": cost.flash_bytes})
        partitions.append(entry)
    out: dict = {"target": lowering.config.name, "backend": "EthosUBackend" if lowering.config.uses_vela
                 else "TOSABackend", "partitions": partitions,
                 "cpu_nodes": [{"node": c.node, "op": c.op, "reason": c.reason} for c in verdict.cpu_nodes]}
    if lowering.config.uses_vela:
        out.update({"vela_version": lowering.vela_version, "system_config": lowering.system_config,
                    "memory_mode": lowering.memory_mode})
    return out

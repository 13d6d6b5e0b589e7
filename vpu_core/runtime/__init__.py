"""Run it for real: the converted graph lowered to an ExecuTorch XNNPACK program, run on this CPU.

    lowered = lower_program(qm)                   # runtime.lowering: .pte bytes + op map + references
    report = run_program(lowered, runs=20)        # runtime.measure: RuntimeReport (plain numbers)

`check MODEL --run`, the window's Run ▸ "Run on this CPU" and `report --run` get it through
vpu_core.session (Session.runtime), which caches the lowered program (memory and disk: lowering
takes seconds to a minute, a measurement well under one) and turns a program that cannot be
lowered or run into a refusal sentence (RuntimeReport.refused) instead of an error.

Modules: lowering (export → to_edge_transform_and_lower → to_executorch; int32-bias folding for
VPU graphs), op_map (ETDump events → converted-graph node names), xnn_blob (the XNNPACK delegate's
operator list), measure (latency, ETDump per-op times, SQNR, output digests), store (the disk
cache entry), results (dataclasses). Importing this package does not import torch.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from vpu_core.progress import ProgressFn

if TYPE_CHECKING:
    from vpu_core.pipeline import QuantizedModel
    from vpu_core.runtime.lowering import LoweredProgram
    from vpu_core.runtime.results import RuntimeReport

__all__ = ["lower_program", "run_program"]


def lower_program(qm: QuantizedModel, progress: ProgressFn | None = None) -> LoweredProgram:
    """LoweredProgram of a QuantizedModel (vpu_core.runtime.lowering)."""
    from vpu_core.runtime.lowering import lower_program as lower

    return lower(qm, progress)


def run_program(lowered: LoweredProgram, runs: int = 20, warmup: int = 3,
                progress: ProgressFn | None = None) -> RuntimeReport:
    """RuntimeReport of a LoweredProgram (vpu_core.runtime.measure)."""
    from vpu_core.runtime.measure import run_program as run

    return run(lowered, runs, warmup, progress)

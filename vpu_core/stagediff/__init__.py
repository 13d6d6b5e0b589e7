"""Where between float and the device did the accuracy go: stages of one model, node by node.

    diff = check_stages(qm, "vpu")          # float → qdq → vpu (StageDiff, plain numbers)
    diff = diff_programs(qm_a, qm_b)         # `vpu-inspector diff A B`: side A → side B

Modules: matching (which node is which: module path + op + occurrence, batch norms folded),
capture (each stage's values per call), runtime_taps (XNNPACK's values inside its delegates),
tosa_stage (the TOSA reference model's values for the Arm targets), metrics (the sums, what a stage adds, the divergence criterion), build (the summary), check
(`check --stages`), programs (`diff`), faults (a wrong scale seeded into a program, for tests and
`python -m tools.bench --stages`), results (dataclasses). Importing this package does not import torch.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vpu_core.pipeline import QuantizedModel
    from vpu_core.progress import ProgressFn
    from vpu_core.stagediff.results import StageDiff


def check_stages(qm: QuantizedModel, target: str = "vpu", progress: ProgressFn | None = None,
                 arm: tuple[Any, Any] | None = None) -> StageDiff:
    """float → Q/DQ → `target`'s own numerics of `qm` on its held-aside calls (`arm`: an Arm
    target's prepared graph and partitions, for its TOSA reference model stage)."""
    from vpu_core.stagediff.check import check_stages as run

    return run(qm, target, progress, arm)


__all__ = ["check_stages"]

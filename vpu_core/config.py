"""What to inspect: the run configuration, importable without torch (the GUI reads it at start-up)."""
from __future__ import annotations

from dataclasses import dataclass

PARTITION_SOURCES = ("simulated", "xnnpack")


@dataclass(frozen=True)
class RunConfig:
    model: str = "resnet8"
    quantizer: str = "vpu"          # "vpu" | "xnnpack"
    per_tensor: bool = False        # XNNPACK weights per-tensor instead of per-channel
    dynamic_batch: bool = False
    calib_batches: int = 4
    batch_size: int | None = None   # None = the batch of the model's own example inputs
    seed: int = 0
    calib_data: str | None = None   # .pt / .npz file
    profile: str | None = None      # hardware profile TOML; None = shipped default
    reference_observers: bool = False  # torchao's stock observers instead of the fast, identical ones


@dataclass(frozen=True)
class ViewOptions:
    """How a result is drawn: parameters folded into their op, which partition colours it,
    Q/DQ chains folded into their edges, and module groups collapsed below a depth."""

    fold_params: bool = True
    partition_source: str = "simulated"   # one of PARTITION_SOURCES
    hide_qdq: bool = False                # quantize → dequantize folded into the edge they sit on
    collapse_depth: int | None = None     # None: the flat graph; k: module groups at depth k
                                          # and deeper drawn collapsed (1 = top-level blocks)

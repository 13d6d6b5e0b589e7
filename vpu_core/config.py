"""What to inspect: the run configuration, importable without torch (the GUI reads it at start-up)."""
from __future__ import annotations

import os
from dataclasses import dataclass

SIMULATED = "simulated"                # ViewOptions.partition_source of the VPU's simulated partition
# A registered quantizer's name ("vpu", "xnnpack", "ethos-u", "ethos-u-a16w8", "openvino"): an
# open set, each backend's target package registers its own (vpu_core.quantizers.registry: its
# names(), is_quantizer(), the --quantizer choices).
QuantizerName = str
# Samples every accuracy figure rests on at least (vpu_core.pipeline.calibration.heldout_calls):
# a batch-1 model's SQNR measured on one sample is one random draw; eight calls at the model's
# batch cost eight forward passes of each graph, and a model of batch 8 or more keeps its one call.
HELDOUT_SAMPLES = 8


def split_model_spec(spec: str) -> tuple[str, str]:
    """(path, callable) of a MODEL `path/to/file.py[:callable]`: the callable is "" when there is
    none; an existing file's whole name is the path (a ':' in it is part of the name)."""
    if os.path.exists(spec):         # not Path.exists: it raises on a name the system refuses
        return spec, ""
    path, _, attr = spec.partition(":")
    return path, attr


@dataclass(frozen=True)
class RunConfig:
    model: str = "resnet8"
    quantizer: QuantizerName = "vpu"
    per_tensor: bool = False        # XNNPACK weights per-tensor instead of per-channel
    dynamic_batch: bool = False
    calib_batches: int = 4
    batch_size: int | None = None   # None = the batch of the model's own example inputs
    seed: int = 0
    calib_data: str | None = None   # .pt / .npz file
    profile: str | None = None      # hardware profile TOML; None = shipped default
    reference_observers: bool = False  # torchao's stock observers instead of the fast, identical ones
    # Per-node changes of the quantization (vpu_core.quantizers.overrides; the fixes of
    # vpu_core.sensitivity apply them): op names of the exported graph.
    keep_float: tuple[str, ...] = ()       # left in float: they run on the CPU
    per_channel: tuple[str, ...] = ()      # weights per-channel where --per-tensor made them per-tensor
    observers: tuple[tuple[str, str], ...] = ()   # (op, observer kind) for that op's output tensor
    wide_activations: tuple[str, ...] = ()  # 16-bit activations (a16w8) where the quantizer offers them

    def __post_init__(self) -> None:
        # Sorted tuples whatever the caller passed (lists from JSON, repeated options): the same
        # change is one configuration, one cache key.
        for name in ("keep_float", "per_channel", "wide_activations"):
            object.__setattr__(self, name, tuple(sorted(set(getattr(self, name)))))
        object.__setattr__(self, "observers", tuple(sorted({(str(n), str(k)) for n, k in self.observers})))

    @property
    def has_overrides(self) -> bool:
        """Some op is quantized otherwise than the quantizer's own choice."""
        return bool(self.keep_float or self.per_channel or self.observers or self.wide_activations)


@dataclass(frozen=True)
class ViewOptions:
    """How a result is drawn: parameters folded into their op, which partition colours it,
    Q/DQ chains folded into their edges, and module groups collapsed below a depth."""

    fold_params: bool = True
    partition_source: str = SIMULATED     # SIMULATED (the VPU) or a target's name (vpu_core.targets)
    hide_qdq: bool = False                # quantize → dequantize folded into the edge they sit on
    collapse_depth: int | None = None     # None: the flat graph; k: module groups at depth k
                                          # and deeper drawn collapsed (1 = top-level blocks)
    label_scale: float = 1.0              # labels drawn this many times the normal font (large
                                          # labels, presentation): the boxes grow with them

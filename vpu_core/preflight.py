"""Check a run's input files before any work: a missing file is one sentence in milliseconds.

Importing torch takes seconds (2–4 s on an idle machine, 15–20 s loaded); a typo in a path must
not wait for it. `preflight(config)` raises the same errors, with the same sentences, that the
pipeline would raise later (vpu_core.pipeline.loading and vpu_core.pipeline.calibration call
check_model_spec and check_calibration_path themselves; vpu_core.profile), and returns the notes a
user should read about options that do not apply (printed on stderr by the CLI). This module
imports no torch.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from vpu_core.config import split_model_spec
from vpu_core.errors import CalibrationError, ModelLoadError, ProfileError

if TYPE_CHECKING:
    from vpu_core.config import RunConfig

PER_TENSOR_IGNORED = ("--per-tensor is ignored with the VPU quantizer: the VPU's weights are "
                      "per-channel by constraint 3 (weight_per_channel_symmetric); it applies to "
                      "--quantizer xnnpack and ethos-u only")


def preflight(config: RunConfig) -> list[str]:
    """Raise an InspectorError for a model, profile or calibration file that cannot be read;
    return notes on options this configuration ignores."""
    from vpu_core.quantizers.overrides import check_offered

    check_model_spec(config.model)
    check_profile_path(config.profile)
    if config.calib_data:
        check_calibration_path(config.calib_data)
    check_offered(config)           # a per-op change the quantizer does not offer (--keep-float, …)
    if not config.model.endswith(".pt2"):       # a program file is quantized already
        from vpu_core.quantizers.registry import info

        info(config.quantizer).check_available()    # the extra that brings its backend, in one sentence
    return [PER_TENSOR_IGNORED] if config.per_tensor and config.quantizer == "vpu" else []


def check_model_spec(spec: str) -> None:
    """MODEL is a zoo name or an existing .py / .pt2 file (as vpu_core.pipeline.loading reads it)."""
    from vpu_core.zoo import ZOO

    if spec in ZOO:
        return
    path = Path(split_model_spec(spec)[0])
    if path.suffix in (".py", ".pt2"):
        if not path.is_file():
            raise ModelLoadError(f"Cannot load {path}: no such file.")
        return
    if not path.exists():
        raise ModelLoadError(f"Unknown model '{spec}': not a zoo name (see `vpu-inspector models`) "
                             "and no such file.")
    raise ModelLoadError(f"Cannot load {path}: expected a .py file or a .pt2 program.")


def check_profile_path(spec: str | None) -> None:
    """The profile file exists (its content is validated by vpu_core.profile, which names ops
    torch knows: that waits for torch)."""
    from vpu_core.profile import resolve_profile

    path = resolve_profile(spec)
    if not path.is_file():
        raise ProfileError(f"Hardware profile {path} does not exist.")


def check_calibration_path(path: str | Path) -> None:
    path = Path(path)
    if not path.is_file():
        raise CalibrationError(f"Calibration file {path} does not exist.")
    if path.suffix not in (".npz", ".pt", ".pth"):
        raise CalibrationError(f"Calibration file {path}: expected .pt or .npz.")

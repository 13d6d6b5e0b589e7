"""Check a run's input files before any work: a missing file is one sentence in milliseconds.

Importing torch takes seconds (2–4 s on an idle machine, 15–20 s loaded); a typo in a path must
not wait for it. `preflight(config)` raises the same errors, with the same sentences, that the
pipeline would raise later (vpu_core.pipeline.loading and vpu_core.pipeline.calibration call
check_model_spec and check_calibration_path themselves; vpu_core.profile), and returns the notes a
user should read about options that do not apply (printed on stderr by the CLI). This module
imports no torch.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from vpu_core.config import split_model_spec
from vpu_core.errors import CalibrationError, ModelLoadError, ProfileError
from vpu_core.paths import MISSING, input_problem, refusal, shown

if TYPE_CHECKING:
    from vpu_core.config import RunConfig

PER_TENSOR_IGNORED = ("--per-tensor is ignored with the VPU quantizer: the VPU's weights are "
                      "per-channel by constraint 3 (weight_per_channel_symmetric); it applies to "
                      "--quantizer xnnpack and ethos-u only")


def preflight(config: RunConfig) -> list[str]:
    """Raise an InspectorError for a model, profile or calibration file that cannot be read;
    return notes on options this configuration ignores."""
    from vpu_core.quantizers.overrides import check_offered

    check_paths(config)
    check_offered(config)           # a per-op change the quantizer does not offer (--keep-float, …)
    if not config.model.endswith(".pt2"):       # a program file is quantized already
        from vpu_core.quantizers.registry import info

        info(config.quantizer).check_available()    # the extra that brings its backend, in one sentence
    return [PER_TENSOR_IGNORED] if config.per_tensor and config.quantizer == "vpu" else []


def check_paths(config: RunConfig) -> None:
    """Every file `config` names can be read (the window checks a request with it before a job)."""
    check_model_spec(config.model)
    check_profile_path(config.profile)
    if config.calib_data:
        check_calibration_path(config.calib_data)


def check_model_spec(spec: str) -> None:
    """MODEL is a zoo name or an existing .py / .pt2 file (as vpu_core.pipeline.loading reads it)."""
    from vpu_core.zoo import ZOO

    if spec in ZOO:
        return
    path = split_model_spec(spec)[0]
    if Path(path).suffix in (".py", ".pt2") or refusal(path):
        problem = input_problem(path)
        if problem:
            raise ModelLoadError(f"Cannot load {shown(path)}: {problem}.")
        if Path(path).suffix not in (".py", ".pt2"):
            raise ModelLoadError(f"Cannot load {shown(path)}: expected a .py file or a .pt2 program.")
        return
    if not os.path.lexists(path):
        raise ModelLoadError(f"Unknown model '{shown(spec)}': not a zoo name (see `vpu-inspector models`) "
                             "and no such file.")
    problem = input_problem(path)
    raise ModelLoadError(f"Cannot load {shown(path)}: "
                         f"{problem if problem and problem != MISSING else 'expected a .py file or a .pt2 program'}.")


def check_profile_path(spec: str | None) -> None:
    """The profile file can be read (its content is validated by vpu_core.profile, which names ops
    torch knows: that waits for torch)."""
    from vpu_core.profile import resolve_profile

    path = resolve_profile(spec)
    problem = input_problem(path)
    if problem == MISSING:
        raise ProfileError(f"Hardware profile {shown(path)} does not exist.")
    if problem:
        raise ProfileError(f"Hardware profile {shown(path)}: {problem}.")


def check_calibration_path(path: str | Path) -> None:
    problem = input_problem(path)
    if problem == MISSING:
        raise CalibrationError(f"Calibration file {shown(path)} does not exist.")
    if problem:
        raise CalibrationError(f"Calibration file {shown(path)}: {problem}.")
    if Path(path).suffix not in (".npz", ".pt", ".pth"):
        raise CalibrationError(f"Calibration file {shown(path)}: expected .pt or .npz.")

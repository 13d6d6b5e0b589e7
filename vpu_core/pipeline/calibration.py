"""Calibration batches: seeded synthetic data shaped like the example inputs, or a user file.

User files are read without pickle: .pt through torch.load(weights_only=True), .npz through
numpy with allow_pickle=False. Non-finite data is refused: it would silently give NaN scales.
"""
from __future__ import annotations

import zipfile
from pathlib import Path

import numpy as np
import torch

from vpu_core.errors import CalibrationError, short_reason


def synthetic_batches(example_inputs: tuple, n_batches: int, batch_size: int, seed: int) -> list[tuple]:
    """`n_batches` tuples of standard-normal tensors, deterministic in `seed`."""
    gen = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(n_batches):
        batch = []
        for t in example_inputs:
            shape = (batch_size, *t.shape[1:])
            if t.dtype.is_floating_point:
                batch.append(torch.randn(shape, generator=gen, dtype=t.dtype))
            else:  # integer inputs (token ids…): sample within the example's range
                hi = int(t.max()) + 1 if t.numel() else 2
                batch.append(torch.randint(0, max(hi, 2), shape, generator=gen, dtype=t.dtype))
        batches.append(tuple(batch))
    return batches


def load_calibration_file(path: str | Path, example_inputs: tuple, batch_size: int,
                          max_batches: int | None = None) -> list[tuple]:
    """Split the samples of a .pt / .npz file into batches matching the example inputs."""
    arrays = _read_arrays(Path(path))
    if len(arrays) != len(example_inputs):
        raise CalibrationError(f"Calibration file {path} holds {len(arrays)} tensor(s) but the model "
                               f"takes {len(example_inputs)} input(s).")
    n = arrays[0].shape[0] if arrays[0].dim() else 0
    for i, (a, ex) in enumerate(zip(arrays, example_inputs)):
        if a.dim() == 0 or a.shape[0] == 0:
            raise CalibrationError(f"Calibration file {path} is empty (input {i} has no samples).")
        if tuple(a.shape[1:]) != tuple(ex.shape[1:]):
            raise CalibrationError(f"Calibration file {path}: input {i} has samples of shape "
                                   f"{tuple(a.shape[1:])}, the model expects {tuple(ex.shape[1:])}.")
        if a.shape[0] != n:
            raise CalibrationError(f"Calibration file {path}: inputs have different sample counts.")
        if a.dtype.is_floating_point and not torch.isfinite(a).all():
            bad = int((~torch.isfinite(a)).sum())
            raise CalibrationError(f"Calibration file {path}: input {i} contains {bad} NaN/inf "
                                   "value(s); refusing to calibrate on them.")
    arrays = [a.to(ex.dtype) for a, ex in zip(arrays, example_inputs)]
    batches = [tuple(a[s:s + batch_size] for a in arrays) for s in range(0, n, batch_size)]
    # A static export fixes the batch size: a short last batch would not run through it.
    batches = [b for b in batches if b[0].shape[0] == batch_size] or batches[:1]
    return batches[:max_batches] if max_batches else batches


def _read_arrays(path: Path) -> list[torch.Tensor]:
    if not path.is_file():
        raise CalibrationError(f"Calibration file {path} does not exist.")
    if path.suffix == ".npz":
        try:
            with np.load(path, allow_pickle=False) as data:
                return [torch.from_numpy(np.array(data[k])) for k in data.files]
        except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
            raise CalibrationError(f"Calibration file {path} is not a readable .npz: {short_reason(exc)}.") from None
    if path.suffix in (".pt", ".pth"):
        try:
            obj = torch.load(path, weights_only=True, map_location="cpu")
        except Exception as exc:  # corrupt zip, pickle refused by weights_only, …
            raise CalibrationError(f"Calibration file {path} could not be read safely: "
                                   f"{short_reason(exc)}.") from None
        return _tensors_of(path, obj)
    raise CalibrationError(f"Calibration file {path}: expected .pt or .npz.")


def _tensors_of(path: Path, obj) -> list[torch.Tensor]:
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, (list, tuple)) and obj and all(isinstance(t, torch.Tensor) for t in obj):
        return list(obj)
    raise CalibrationError(f"Calibration file {path} must hold a tensor, or a list/tuple/dict of "
                           "tensors (one per model input, samples along dim 0).")

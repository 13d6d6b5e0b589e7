"""Calibration batches: seeded synthetic data shaped like the example inputs, or a user file.

User files are read without pickle: .pt through torch.load(weights_only=True), .npz through
numpy with allow_pickle=False. Non-finite data is refused: it would silently give NaN scales.
"""
from __future__ import annotations

import pickle
import traceback
import zipfile
from pathlib import Path
from typing import Any, Callable

import numpy as np
import torch

from vpu_core.config import HELDOUT_SAMPLES, RunConfig
from vpu_core.errors import CalibrationError
from vpu_core.pipeline.tracing import with_batch
from vpu_core.preflight import check_calibration_path


def heldout_calls(example_inputs: tuple) -> int:
    """Calls at the model's batch that hold HELDOUT_SAMPLES samples (1 at batch 8 and above)."""
    first = next((t for t in example_inputs if isinstance(t, torch.Tensor) and t.dim()), None)
    batch = max(int(first.shape[0]), 1) if first is not None else 1
    return -(-HELDOUT_SAMPLES // batch)


def calibration_data(config: RunConfig, example: tuple, names: list[str],
                     own: Callable[[int, int], Any] | None = None) -> tuple[list[tuple], list[tuple]]:
    """(calibration batches, held-aside batches). The held-aside side holds HELDOUT_SAMPLES
    samples in calls at the model's batch (8 calls of a batch-1 model, one of a batch-16 one),
    so that no accuracy figure rests on one sample; from a file, the batches calibration did not
    take, as many as hold that many samples (the file's last batch when it has only one).
    `own`, the model file's calibration_inputs(n, seed), replaces the synthetic batches: two
    sequences of its own (a decoder's decode steps from position 0 each, so the float and the
    quantized graph each fill their cache anew before they are compared)."""
    calls = heldout_calls(example)
    if own is not None and not config.calib_data:
        n = max(config.calib_batches, 1)
        return own_calls(own, n, config.seed, example), own_calls(own, calls, config.seed + 7919, example)
    if config.calib_data:
        batches = load_calibration_file(config.calib_data, example, names=names)
        calibration = batches[: max(min(config.calib_batches, len(batches) - 1), 1)]
        rest = batches[len(calibration):] or batches[-1:]
        return calibration, rest[-calls:]
    batches = synthetic_batches(example, max(config.calib_batches, 1), config.seed)
    return batches, synthetic_batches(example, calls, config.seed + 7919)


def own_calls(fn: Callable[[int, int], Any], n: int, seed: int, example: tuple) -> list[tuple]:
    """`fn(n, seed)` checked against the example inputs (count, shapes, dtypes) and re-batched
    to the example's batch; a call that does not fit is one sentence naming it."""
    where = "The model file's calibration_inputs"
    try:
        got = fn(n, seed)
    except Exception as exc:
        raise CalibrationError(f"{where}({n}, {seed}) raised {type(exc).__name__}: {exc}",
                               traceback.format_exc()) from None
    if not isinstance(got, (list, tuple)) or len(got) != n:
        raise CalibrationError(f"{where}({n}, {seed}) must return a list of {n} calls, each a tuple "
                               "of tensors like the example inputs.")
    batch = next((int(t.shape[0]) for t in example if t.dim() > 0), 1)
    out = []
    for i, call in enumerate(got):
        call = (call,) if isinstance(call, torch.Tensor) else call
        if not isinstance(call, (list, tuple)) or len(call) != len(example) \
                or not all(isinstance(t, torch.Tensor) for t in call):
            raise CalibrationError(f"{where}: call {i} is not a tuple of {len(example)} tensor(s) "
                                   "like the example inputs.")
        call = with_batch(tuple(call), batch) if call[0].dim() and call[0].shape[0] != batch else tuple(call)
        for k, (t, ex) in enumerate(zip(call, example)):
            if tuple(t.shape) != tuple(ex.shape) or t.dtype != ex.dtype:
                raise CalibrationError(
                    f"{where}: call {i}, input {k} is {str(t.dtype).replace('torch.', '')} "
                    f"{tuple(t.shape)}, the model takes {str(ex.dtype).replace('torch.', '')} {tuple(ex.shape)}.")
        out.append(call)
    return out


def synthetic_batches(example_inputs: tuple, n_batches: int, seed: int) -> list[tuple]:
    """`n_batches` tuples shaped and typed like the example inputs, deterministic in `seed`.

    Each input keeps its dtype, its exact shape (the model's batch) and its value range:
    - floating point: normal samples with the example's mean and spread, clipped to its
      [min, max] (an image in [0, 1] stays in [0, 1]); a constant or two-valued float input (a
      float mask) is kept as it is;
    - integer: uniform within the example's own [min, max], so token ids stay valid ids;
    - bool (masks): kept as they are.
    """
    gen = torch.Generator().manual_seed(seed)
    return [tuple(_sample_like(t, gen) for t in example_inputs) for _ in range(n_batches)]


def _sample_like(t: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    if t.numel() == 0 or t.dtype == torch.bool or t.is_complex():
        return t.clone()
    if t.dtype.is_floating_point:
        x = t.detach().float()
        if torch.unique(x).numel() <= 2:  # constant, or a 0/1-style float mask
            return t.clone()
        lo, hi = x.min(), x.max()
        sample = torch.randn(t.shape, generator=gen) * x.std() + x.mean()
        return sample.clamp(lo, hi).to(t.dtype)
    lo, hi = int(t.min()), int(t.max())
    return torch.randint(lo, hi + 1, t.shape, generator=gen, dtype=t.dtype)


def load_calibration_file(path: str | Path, example_inputs: tuple, batch_size: int | None = None,
                          max_batches: int | None = None, names: list[str] | None = None) -> list[tuple]:
    """Split the samples of a .pt / .npz file into batches matching the example inputs.

    The batch defaults to the example's (dim 0 of its first input); a short last batch is
    dropped, since a static export fixes the batch. See `_per_input` for the layouts a file may use.
    """
    path = Path(path)
    arrays = _per_input(path, _read(path), example_inputs, names)
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
        if a.dtype.is_floating_point and not ex.dtype.is_floating_point:
            raise CalibrationError(f"Calibration file {path}: input {i} holds floating-point values "
                                   f"but the model takes {str(ex.dtype).replace('torch.', '')} "
                                   "(token ids, masks): store them with that dtype.")
    batch_size = batch_size or next((int(t.shape[0]) for t in example_inputs if t.dim() > 0), 1)
    if n < batch_size:
        raise CalibrationError(f"Calibration file {path} holds {n} sample{'s' if n != 1 else ''}, "
                               f"the batch is {batch_size}: give at least {batch_size} samples (one "
                               "batch) or a smaller --batch-size.")
    arrays = [a.to(ex.dtype) for a, ex in zip(arrays, example_inputs)]
    batches = [tuple(a[s:s + batch_size] for a in arrays) for s in range(0, n, batch_size)]
    # A static export fixes the batch size: a short last batch would not run through it.
    batches = [b for b in batches if b[0].shape[0] == batch_size]
    return batches[:max_batches] if max_batches else batches


_LAYOUTS = ("a tensor (one input), a tuple/list/dict of tensors (one per model input, samples "
            "along dim 0), or a list of samples, each a tensor, tuple or dict")


def _per_input(path: Path, obj, example: tuple, names: list[str] | None) -> list[torch.Tensor]:
    """One tensor per model input, samples along dim 0, from any of the layouts in _LAYOUTS.

    Dict keys must be the model's input names, in any order (one key for a one-input model may
    be any name: .npz's arr_0). A list of samples is told from a list of per-input tensors by its
    elements: tuples or dicts, or (one-input models) more tensors than inputs.
    """
    if isinstance(obj, torch.Tensor):
        obj = [obj]
    if isinstance(obj, dict):
        obj = _ordered(path, obj, len(example), names)
    if not isinstance(obj, (list, tuple)) or not obj:
        raise CalibrationError(f"Calibration file {path} must hold {_LAYOUTS}.")
    if all(isinstance(t, torch.Tensor) for t in obj) and len(obj) == len(example):
        return list(obj)
    if all(isinstance(t, torch.Tensor) for t in obj) and len(example) > 1:
        raise CalibrationError(f"Calibration file {path} holds {len(obj)} tensor(s) but the model "
                               f"takes {len(example)} input(s).")
    samples = [_sample_inputs(path, s, example, names, i) for i, s in enumerate(obj)]
    return [torch.cat([s[k] for s in samples]) for k in range(len(example))]


def _sample_inputs(path: Path, sample, example: tuple, names, index: int) -> list[torch.Tensor]:
    """One sample of a list-of-samples file: a tensor per input, with a batch dim added to a
    sample stored without one."""
    if isinstance(sample, torch.Tensor):
        sample = [sample]
    elif isinstance(sample, dict):
        sample = _ordered(path, sample, len(example), names)
    if not isinstance(sample, (list, tuple)) or not all(isinstance(t, torch.Tensor) for t in sample):
        raise CalibrationError(f"Calibration file {path}: sample {index} is not a tensor, tuple or "
                               "dict of tensors.")
    if len(sample) != len(example):
        raise CalibrationError(f"Calibration file {path}: sample {index} holds {len(sample)} tensor(s) "
                               f"but the model takes {len(example)} input(s).")
    return [t.unsqueeze(0) if t.dim() == ex.dim() - 1 else t for t, ex in zip(sample, example)]


def _ordered(path: Path, d: dict, n_inputs: int, names: list[str] | None) -> list:
    """The dict's tensors in input order, matched by name: keys that are not exactly the model's
    input names are refused (taking them in order would feed a mask as token ids without a word).
    One key for a one-input model is unambiguous, whatever its name. Without names
    (never in a run) a dict with one key per input is taken in order."""
    if names and set(d) == set(names):
        return [d[k] for k in names]
    if names and not (n_inputs == 1 and len(d) == 1):
        keys = ", ".join(repr(k) for k in d)
        missing = [n for n in names if n not in d]
        raise CalibrationError(
            f"Calibration file {path}: its keys {{{keys}}} are not the model's input names "
            f"{{{', '.join(repr(n) for n in names)}}}"
            + (f" (missing {', '.join(repr(n) for n in missing)})" if missing else "")
            + "; key each tensor by its input's name.")
    if len(d) != n_inputs:
        raise CalibrationError(f"Calibration file {path}: keys {', '.join(map(str, d))} do not match "
                               f"the model's {n_inputs} input(s).")
    return list(d.values())


def _read(path: Path):
    """The file's content: a dict of arrays (.npz) or what torch.load(weights_only=True) gives."""
    check_calibration_path(path)   # an existing .npz / .pt / .pth: the sentences of the CLI's preflight
    if path.suffix == ".npz":
        try:
            with np.load(path, allow_pickle=False) as data:
                return {k: torch.from_numpy(np.array(data[k])) for k in data.files}
        except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
            raise CalibrationError(_unreadable(path, exc), traceback.format_exc()) from None
    try:                           # .pt / .pth
        return torch.load(path, weights_only=True, map_location="cpu")
    except Exception as exc:  # corrupt zip, pickle refused by weights_only, …
        raise CalibrationError(_unreadable(path, exc), traceback.format_exc()) from None


def _unreadable(path: Path, exc: BaseException) -> str:
    """Our sentence for a file numpy or torch cannot read (their own text, with its terminal
    colour codes and advice on unsafe loading, goes to the detail): what is wrong, what to save."""
    text = str(exc)
    if path.suffix == ".npz" and not zipfile.is_zipfile(path):
        return f"Calibration file {path} is not an .npz (numpy.savez) file, or it is cut short."
    if "allow_pickle" in text or "Weights only load failed" in text or isinstance(exc, pickle.UnpicklingError):
        return (f"Calibration file {path} holds Python objects, not only tensors (they are never "
                f"unpickled): save {_LAYOUTS}.")
    if isinstance(exc, (zipfile.BadZipFile, EOFError)) or "zip" in text.lower():
        kind = "an .npz (numpy.savez)" if path.suffix == ".npz" else "a torch.save"
        return f"Calibration file {path} is not {kind} file, or it is cut short."
    return f"Calibration file {path} could not be read ({type(exc).__name__}): save {_LAYOUTS}."

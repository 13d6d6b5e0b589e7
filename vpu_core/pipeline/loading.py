"""MODEL argument → something to quantize: a zoo name, `file.py[:callable]`, or a `.pt2` program.

Loading a .py file EXECUTES it (it is the user's own model code); .pt2 files go through
torch.export.load, which does not unpickle arbitrary objects.
"""
from __future__ import annotations

import importlib.util
import json
import sys
import traceback
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import torch
from torch import nn

from vpu_core import quiet
from vpu_core.config import split_model_spec
from vpu_core.errors import ModelLoadError, short_reason
from vpu_core.preflight import check_model_spec
from vpu_core.zoo import ZOO, build_zoo_model


# A model file's own calibration calls (docs/spec.md "Command line"): calibration_inputs(n, seed)
# gives n calls shaped like the example inputs, deterministic in seed; a decoder with a KV cache
# gives a sequence of decode steps at positions 0..n-1, as a user calibrates one.
CalibrationFn = Callable[[int, int], Any]
CALIBRATION_FN = "calibration_inputs"


@dataclass
class LoadedModel:
    """A float module with example inputs, or an already exported program (.pt2)."""

    name: str
    module: nn.Module | None = None
    example_inputs: tuple = ()
    program: torch.export.ExportedProgram | None = None  # set for .pt2 files
    quantizer: str | None = None     # .pt2: the quantizer its metadata names (program_file.PROGRAM_META)
    calibration: CalibrationFn | None = None   # .py: its calibration_inputs(n, seed), if it has one


def load_model(spec: str, batch_size: int | None = None, seed: int = 0) -> LoadedModel:
    """Load MODEL with its own example inputs. `batch_size` only shapes a zoo model's random
    example (None: the entry's own batch); files keep theirs (the pipeline re-batches if asked)."""
    if spec in ZOO:
        entry = ZOO[spec]
        gen = torch.Generator().manual_seed(seed)
        x = torch.randn((batch_size or entry.batch, *entry.input_shape), generator=gen)
        return LoadedModel(spec, build_zoo_model(spec, seed), (x,))
    check_model_spec(spec)   # an existing .py / .pt2 file, or the sentence the CLI's preflight gives
    path_part, attr = split_model_spec(spec)
    path = Path(path_part)
    if path.suffix == ".pt2":
        return _load_pt2(path)
    return _load_py(path, attr or "get_model")


def _load_pt2(path: Path) -> LoadedModel:
    if path.stat().st_size == 0:
        raise ModelLoadError(f"Cannot load {path}: the file is empty.")
    if not _is_zip(path):
        raise ModelLoadError(f"Cannot load {path}: not a torch.export program (.pt2 is a zip archive).")
    _check_pt2_version(path)
    from vpu_core.pipeline.program_file import PROGRAM_META, recorded_quantizer

    chatter = None
    quiet.import_torchao()  # registers torch.ops.quantized_decomposed, which a Q/DQ program calls
    extra = {PROGRAM_META: ""}
    try:
        with quiet.torch_chatter() as chatter:
            program = torch.export.load(str(path), extra_files=extra)
    except Exception as exc:  # torch raises many types for damaged archives
        raise ModelLoadError(f"Cannot load {path}: damaged or incompatible .pt2 ({short_reason(exc)}).",
                             traceback.format_exc() + (chatter.getvalue() if chatter else "")) from None
    try:
        inputs = _program_inputs(program)
    except Exception as exc:
        raise ModelLoadError(f"Cannot load {path}: its example inputs are unreadable ({short_reason(exc)}).",
                             traceback.format_exc()) from None
    return LoadedModel(path.stem, program=program, example_inputs=inputs,
                       quantizer=recorded_quantizer(extra[PROGRAM_META]))


def _is_zip(path: Path) -> bool:
    try:
        return zipfile.is_zipfile(path)
    except (zipfile.BadZipFile, OSError, ValueError):  # a damaged end record can raise here too
        return False


def _check_pt2_version(path: Path) -> None:
    """Name a schema-version mismatch plainly (torch only says "check the warnings above")."""
    from torch._export.serde.schema import SCHEMA_VERSION

    try:
        with zipfile.ZipFile(path) as archive:
            name = next((n for n in archive.namelist() if n.endswith("models/model.json")), None)
            if name is None:
                raise ModelLoadError(f"Cannot load {path}: the archive has no models/model.json; "
                                     "not a torch.export program.")
            major = json.loads(archive.read(name))["schema_version"]["major"]
    except ModelLoadError:
        raise
    except Exception as exc:  # zip, CRC, JSON and layout errors of a damaged archive
        raise ModelLoadError(f"Cannot load {path}: damaged archive ({short_reason(exc)}).") from None
    if major != SCHEMA_VERSION[0]:
        raise ModelLoadError(f"Cannot load {path}: saved with torch.export schema version {major}, "
                             f"this torch reads version {SCHEMA_VERSION[0]}; re-export it with torch 2.13.")


def _program_inputs(program: torch.export.ExportedProgram) -> tuple:
    saved = getattr(program, "example_inputs", None)
    if saved:
        args, _kwargs = saved
        return tuple(args)
    inputs = []
    user_inputs = set(program.graph_signature.user_inputs)
    for node in program.graph.nodes:
        if node.op == "placeholder" and node.name in user_inputs:
            val = node.meta.get("val")
            shape = [int(d) if isinstance(d, int) else 2 for d in val.shape]
            inputs.append(torch.randn(shape, dtype=val.dtype) if val.dtype.is_floating_point
                          else torch.zeros(shape, dtype=val.dtype))
    return tuple(inputs)


def model_calibration(spec: str) -> CalibrationFn | None:
    """The model file's calibration_inputs, without building the model (a cached export needs
    no model, only the calls to calibrate it with); None for a zoo model or a program."""
    if spec in ZOO:
        return None
    path_part, _attr = split_model_spec(spec)
    path = Path(path_part)
    if path.suffix == ".pt2":
        return None
    return _calibration_fn(_exec_file(path))


def _calibration_fn(module: Any) -> CalibrationFn | None:
    fn = getattr(module, CALIBRATION_FN, None)
    return fn if callable(fn) else None


def _load_py(path: Path, attr: str) -> LoadedModel:
    module = _exec_file(path)
    fn = getattr(module, attr, None)
    if not callable(fn):
        raise ModelLoadError(f"Cannot load {path}: it has no callable '{attr}' "
                             "(expected a function returning (nn.Module, example_inputs)).")
    try:
        result = fn()
    except Exception as exc:
        raise ModelLoadError(f"Cannot load {path}: {attr}() raised {type(exc).__name__}: "
                             f"{short_reason(exc)}.", traceback.format_exc()) from None
    return LoadedModel(path.stem, *_check_result(path, attr, result), calibration=_calibration_fn(module))


def _exec_file(path: Path) -> Any:
    """The user's model file, executed as a module (its own code: the CLI says so)."""
    mod_name = f"_vpu_user_model_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(mod_name, path)
    if spec is None or spec.loader is None:
        raise ModelLoadError(f"Cannot load {path}: not a Python file Python can import.")
    module = importlib.util.module_from_spec(spec)
    quiet.silence_torchao()   # the user's imports (transformers) may load torchao first
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise ModelLoadError(f"Cannot load {path}: syntax error on line {exc.lineno}: {exc.msg}.",
                             traceback.format_exc()) from None
    except Exception as exc:
        raise ModelLoadError(f"Cannot load {path}: it raised {type(exc).__name__} on import: "
                             f"{short_reason(exc)}.", traceback.format_exc()) from None
    finally:
        sys.modules.pop(mod_name, None)
    return module


def _check_result(path: Path, attr: str, result) -> tuple[nn.Module, tuple]:
    ok = isinstance(result, (tuple, list)) and len(result) == 2 and isinstance(result[0], nn.Module)
    if not ok:
        raise ModelLoadError(f"Cannot load {path}: {attr}() must return (nn.Module, example_inputs), "
                             f"got {type(result).__name__}.")
    model, inputs = result
    if isinstance(inputs, torch.Tensor):
        inputs = (inputs,)
    if not isinstance(inputs, (tuple, list)) or not inputs or \
            not all(isinstance(t, torch.Tensor) for t in inputs):
        raise ModelLoadError(f"Cannot load {path}: the example inputs must be a non-empty tuple of tensors.")
    if any(t.numel() == 0 for t in inputs):
        raise ModelLoadError(f"Cannot load {path}: an example input has zero elements "
                             f"(shape {tuple(next(t for t in inputs if t.numel() == 0).shape)}).")
    return model.eval(), tuple(inputs)

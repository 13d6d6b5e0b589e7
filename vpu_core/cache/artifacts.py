"""Stage results ↔ bytes for the disk cache, without pickle and without executing anything.

    export       torch.export.save of the float ExportedProgram (its example inputs inside) plus
                 extra/vpu_inspector.json {"name": ...}; read back through torch.export.load after
                 checking the archive stores every weight and constant as raw tensor data
    calibration  torch.save({"batches": [[tensor…]…], "heldout": [[tensor…]…]}); torch.load(weights_only=True)
    quantized    torch.save of the qparams convert_pt2e used, per observer module (see
                 pipeline/observing.py); torch.load(weights_only=True)
    analysis     JSON (vpu_core.cache.codec)

Why the quantized stage is not a torch.export program: torch.export cannot save a converted
GraphModule as it is; re-exporting it renames and restructures the Q/DQ graph (on resnet8: 71 of
132 node names change), which would change every node name in the analysis. The converted graph
is kept node for node by program_codec (JSON + tensors); the recorded qparams stay as well: for a
graph that codec cannot keep (a symbolic shape), prepare + convert from the float program and the
recorded qparams rebuild the very same converted graph in a fraction of the calibration +
observer time.
"""
from __future__ import annotations

from typing import Any

import io
import json
import re
import zipfile

META = "vpu_inspector.json"


class BadEntry(Exception):
    """Bytes that are not a well-formed entry of this stage."""


def program_to_bytes(program: Any, name: str) -> bytes:
    import torch

    buf = io.BytesIO()
    torch.export.save(program, buf, extra_files={META: json.dumps({"name": name})})
    return buf.getvalue()


# Libraries whose output types (e.g. transformers' ModelOutput dataclasses) a program's input /
# output specs may name: their module is imported first, so torch.export.load can rebuild the
# spec. A type from anywhere else (a user's own file) makes the load fail: the stage runs again.
PYTREE_TYPE_PACKAGES = ("transformers",)
_SPEC_TYPE = re.compile(r'type\\?"\s*:\s*\\?"((?:%s)(?:\.\w+)+)' % "|".join(PYTREE_TYPE_PACKAGES))


def program_from_bytes(data: bytes) -> tuple[str, Any, tuple]:
    """(name, ExportedProgram, example_inputs) of program_to_bytes."""
    import torch

    from vpu_core import quiet

    if "quantized_decomposed" in _import_spec_types(data):
        quiet.import_torchao()                  # registers quantized_decomposed ops first
                                                # (a float program needs no torchao: seconds)
    extra = {META: ""}
    try:
        with quiet.torch_chatter():
            program = torch.export.load(io.BytesIO(data), extra_files=extra)
        name = json.loads(extra[META])["name"]
        args, _kwargs = program.example_inputs
    except Exception as exc:  # torch raises many types for a bad archive
        raise BadEntry(str(exc)) from None
    return name, program, tuple(args)


def _import_spec_types(data: bytes) -> str:
    """Refuse pickled payloads; import the allowed library modules the pytree specs name.
    Returns the program's model description (its graph as JSON text)."""
    import importlib

    _check_raw_tensors(data)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        text = "".join(archive.read(n).decode("utf-8", "replace") for n in archive.namelist()
                       if n.endswith("models/model.json"))
    for type_name in sorted(set(_SPEC_TYPE.findall(text))):
        try:
            importlib.import_module(type_name.rsplit(".", 1)[0])
        except Exception:  # not installed / broken: torch.export.load fails, the stage runs again
            pass
    return text


def _check_raw_tensors(data: bytes) -> None:
    """Refuse archives that would make torch.export.load unpickle something."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for name in archive.namelist():
                if name.endswith("_config.json") and "/data/" in name:
                    config = json.loads(archive.read(name)).get("config", {})
                    for entry in config.values():
                        path = str(entry.get("path_name", ""))
                        if entry.get("use_pickle") or path.startswith(("custom_obj", "opaque")):
                            raise BadEntry(f"{name}: {path} is pickled")
    except (zipfile.BadZipFile, ValueError, KeyError, AttributeError) as exc:
        raise BadEntry(str(exc)) from None


def tensors_to_bytes(obj: object) -> bytes:
    import torch

    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def tensors_from_bytes(data: bytes) -> Any:
    import torch

    try:
        return torch.load(io.BytesIO(data), weights_only=True, map_location="cpu")
    except Exception as exc:  # corrupt zip, anything weights_only refuses
        raise BadEntry(str(exc)) from None


def calibration_to_bytes(batches: list[tuple], heldouts: list[tuple]) -> bytes:
    return tensors_to_bytes({"batches": [list(b) for b in batches], "heldout": [list(b) for b in heldouts]})


def calibration_from_bytes(data: bytes) -> tuple[list[tuple], list[tuple]]:
    import torch

    obj = tensors_from_bytes(data)
    try:
        batches = [tuple(b) for b in obj["batches"]]
        heldouts = [tuple(b) for b in obj["heldout"]]
    except (KeyError, TypeError) as exc:
        raise BadEntry(str(exc)) from None
    if not batches or not heldouts or \
            not all(isinstance(t, torch.Tensor) for b in [*batches, *heldouts] for t in b):
        raise BadEntry("calibration entry holds something other than tensors")
    return batches, heldouts

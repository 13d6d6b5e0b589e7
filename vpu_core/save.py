"""Save a converted Q/DQ program with torch.export.save, atomically (temp file + rename)."""
from __future__ import annotations

import os
import tempfile
import traceback
from pathlib import Path

from vpu_core.errors import InspectorError, short_reason


class SaveError(InspectorError):
    """Writing an output file failed."""


def check_output_path(path: str | Path, suffixes: tuple[str, ...], what: str) -> Path:
    """Fail before any work when `what` ("the report", "an image") cannot be written to `path`."""
    path = Path(path)
    if path.suffix.lower() not in suffixes:
        raise SaveError(f"Cannot write {what} to {path}: the file name must end in "
                        f"{' or '.join(suffixes)}.")
    if not path.parent.is_dir():
        raise SaveError(f"Cannot write {what} to {path}: the folder {path.parent} does not exist.")
    return path


def atomic_write(path: Path, write_fn) -> None:
    """Call write_fn(tmp_path) on a temp file beside `path`, then rename it into place."""
    path = Path(path)
    if not path.parent.exists():
        raise SaveError(f"Cannot write {path}: the folder {path.parent} does not exist.")
    # Keep the suffix: writers choose the format from it (.png / .svg / .pt2).
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.tmp-", suffix=path.suffix, dir=path.parent)
    os.close(fd)
    try:
        write_fn(Path(tmp))
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; outputs get the usual mode
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def save_program(qm, path: Path) -> None:
    """Re-export the converted GraphModule and save it, loadable with torch.export.load."""
    import torch  # lazily: the GUI uses this module's path checks before torch is loaded

    dynamic_shapes = None
    if qm.config.dynamic_batch and not qm.already_quantized:
        batch = torch.export.Dim("batch", min=1, max=4096)
        dynamic_shapes = tuple({0: batch} for _ in qm.example_inputs)
    try:
        program = torch.export.export(qm.converted, tuple(qm.example_inputs),
                                      dynamic_shapes=dynamic_shapes, strict=False)
    except Exception as exc:
        raise SaveError(f"Could not export the converted program for saving: {short_reason(exc)}",
                        traceback.format_exc()) from None
    try:
        atomic_write(path, lambda tmp: torch.export.save(program, str(tmp)))
    except OSError as exc:
        raise SaveError(f"Cannot write {path}: {exc.strerror or short_reason(exc)}.") from None

"""Output files: check a path before any work, write atomically (temp file + rename)."""
from __future__ import annotations

from typing import Callable

import os
import tempfile
from pathlib import Path

from vpu_core.errors import InspectorError


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


def atomic_write(path: Path, write_fn: Callable[[Path], object]) -> None:
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

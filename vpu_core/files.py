"""Output files: check a path before any work, write atomically (temp file + rename)."""
from __future__ import annotations

from typing import Callable

import os
import tempfile
from pathlib import Path

from vpu_core.errors import InspectorError
from vpu_core.paths import NAME_MAX, output_problem, refusal, shown

# atomic_write's temp file beside the output: "." + stem + ".tmp-" + 8 random characters + suffix
TEMP_EXTRA = 14


class SaveError(InspectorError):
    """Writing an output file failed."""


def check_output_path(path: str | Path, suffixes: tuple[str, ...], what: str) -> Path:
    """Fail before any work when `what` ("the report", "an image") cannot be written to `path`."""
    text = os.fspath(path)
    problem = refusal(text)
    if problem is None and Path(text).suffix.lower() not in suffixes:
        problem = f"the file name must end in {' or '.join(suffixes)}"
    if problem is None and len(os.fsencode(os.path.basename(text))) > NAME_MAX - TEMP_EXTRA:
        problem = f"the name is too long (a file written here has at most {NAME_MAX - TEMP_EXTRA} bytes)"
    problem = problem or output_problem(text)
    if problem:
        raise SaveError(f"Cannot write {what} to {shown(text)}: {problem}.")
    return Path(text)


def check_output_folder(path: str | Path, what: str, parents: bool = False) -> Path:
    """Fail before any work when the folder `what` (`parents`: created with its parents) cannot be written."""
    problem = output_problem(path, "folder", parents)
    if problem:
        raise SaveError(f"Cannot write {what} to {shown(path)}: {problem}.")
    return Path(path)


def atomic_write(path: Path, write_fn: Callable[[Path], object]) -> None:
    """Call write_fn(tmp_path) on a temp file beside `path`, then rename it into place."""
    path = Path(path)
    if not path.parent.exists():
        raise SaveError(f"Cannot write {shown(path)}: the folder {shown(path.parent)} does not exist.")
    # Keep the suffix: writers choose the format from it (.png / .svg / .pt2).
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.tmp-", suffix=path.suffix, dir=path.parent)
    except OSError as exc:      # the folder changed since the check: read-only, full, gone
        raise SaveError(f"Cannot write {shown(path)}: {(exc.strerror or str(exc)).lower()}.") from None
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

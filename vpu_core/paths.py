"""A path the user gave, checked once before any work: what the operating system refuses is one phrase.

Every file or folder a user names (the model, calibration data, a profile, an --eval metric, a
saved program, a report, an image, a screenshot, an export, a sweep folder) is looked at here
before torch is imported. `Path.exists()` itself raises on a name the system refuses (Python
3.11: "[Errno 36] File name too long"), so nothing else may look first. The phrases name the
reason — too long, a folder where a file is wanted, no permission, a dangling link, a loop of
links, a name that is not text or holds a NUL or a control character — and `shown` prints the
name on one line (control characters escaped, a long name cut in the middle), since an
InspectorError keeps only the first line of its message. No torch, no Qt.
"""
from __future__ import annotations

import errno
import os
import stat
import unicodedata
from pathlib import Path
from typing import Literal, Union

PathLike = Union[str, "os.PathLike[str]"]
MISSING = "no such file"
NAME_MAX, PATH_MAX = 255, 4096   # bytes, Linux's (and most file systems') limits
SHOWN_CHARS = 72                 # longer names are cut in the middle when shown


def shown(path: PathLike) -> str:
    """`path` as one printable line: control, format and unencodable characters escaped; a name
    longer than SHOWN_CHARS cut in the middle, with its length."""
    text = os.fspath(path)
    out = "".join(ch.encode("unicode_escape", "backslashreplace").decode("ascii")
                  if unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp") else ch for ch in text)
    if len(out) <= SHOWN_CHARS:
        return out
    return f"{out[:44]}…{out[-24:]} ({len(text)} characters)"


def refusal(path: PathLike, control: bool = True) -> str | None:
    """Why the text of `path` cannot name a file here (None: it can). `control`: a control
    character counts as a reason too (an existing file may hold one; a new one should not)."""
    text = os.fspath(path)
    if not text:
        return "the name is empty"
    if "\x00" in text:
        return "the name contains a NUL character, which no file name can"
    try:
        raw = os.fsencode(text)
    except UnicodeEncodeError:
        return "the name is not valid text (it holds half of a UTF-16 surrogate pair)"
    if len(raw) >= PATH_MAX:
        return f"the path is too long ({len(raw)} bytes; the system allows {PATH_MAX - 1})"
    longest = max(raw.split(b"/"), key=len)
    if len(longest) > NAME_MAX:
        return (f"the name is too long ({len(longest)} bytes; a file or folder name has at most "
                f"{NAME_MAX})")
    bad = next((ch for ch in text if unicodedata.category(ch) == "Cc"), None)
    if control and bad is not None:
        return f"the name contains a control character ({shown(bad)})"
    return None


def input_problem(path: PathLike, want: Literal["file", "folder"] = "file") -> str | None:
    """Why `path` cannot be read as a `want` (MISSING when it does not exist), or None."""
    text = os.fspath(path)
    try:
        st = os.stat(text)
    except (ValueError, UnicodeEncodeError):       # a NUL byte, a lone surrogate
        return refusal(text) or "the name cannot be used"
    except OSError as exc:
        return refusal(text) or _errno_reason(text, exc)
    if want == "folder":
        if not stat.S_ISDIR(st.st_mode):
            return "it is a file, not a folder"
        try:
            with os.scandir(text):
                return None
        except OSError as exc:
            return _errno_reason(text, exc)
    if stat.S_ISDIR(st.st_mode):
        return "it is a folder, not a file"
    if not stat.S_ISREG(st.st_mode):
        return "it is not a regular file (a device, a pipe or a socket)"
    try:
        with open(text, "rb"):
            return None
    except OSError as exc:
        return _errno_reason(text, exc)


def output_problem(path: PathLike, want: Literal["file", "folder"] = "file", parents: bool = False) -> str | None:
    """Why a `want` cannot be written at `path` (`parents`: a folder created with its parents), or None."""
    text = os.fspath(path)
    reason = refusal(text)
    if reason:
        return reason
    try:
        st = os.stat(text)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        return _errno_reason(text, exc)
    if st is not None:
        if want == "file" and stat.S_ISDIR(st.st_mode):
            return "it is a folder, not a file"
        if want == "file" and not stat.S_ISREG(st.st_mode):
            return "it is not a regular file (a device, a pipe or a socket)"
        if want == "folder" and not stat.S_ISDIR(st.st_mode):
            return "it is a file, not a folder"
        return None if os.access(text, os.W_OK) else "permission denied"
    parent = Path(text).parent
    if parents:                          # created with its parents: the nearest existing one counts
        while not os.path.lexists(parent) and parent != parent.parent:
            parent = parent.parent
    return _folder_problem(parent)


def _folder_problem(folder: Path) -> str | None:
    """Why no file can be created in `folder`, or None."""
    name = shown(folder)
    if not os.path.exists(folder):
        if os.path.islink(folder):
            return f"the folder {name} is a link to {shown(os.readlink(folder))}, which does not exist"
        return f"the folder {name} does not exist"
    if not os.path.isdir(folder):
        return f"{name} is a file, not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {name} cannot be written to (permission denied or a read-only file system)"
    return None


def _errno_reason(text: str, exc: OSError) -> str:
    """The phrase for an OSError of a path lookup."""
    code = exc.errno
    if code == errno.ENOENT:
        if os.path.islink(text):
            return f"it is a link to {shown(os.readlink(text))}, which does not exist"
        return MISSING
    if code == errno.ENOTDIR:
        part = next((p for p in reversed(Path(text).parents) if os.path.isfile(p)), None)
        return f"{shown(part)} is a file, not a folder" if part else "a part of the path is not a folder"
    if code == errno.ENAMETOOLONG:
        return "the name is too long for the file system"
    if code == errno.ELOOP:
        return "it is a link that leads back to itself (a loop of links)"
    if code in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if code == errno.EROFS:
        return "the file system is read-only"
    return (exc.strerror or str(exc)).lower()

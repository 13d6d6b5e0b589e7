"""Can Qt open a window here? Asked before Qt is imported, so that a machine without a display, or
a bare Debian box without the X libraries Qt's xcb plugin links against, gets one sentence and
exit 2 that says what to install, instead of Qt's abort ("no Qt platform plugin could be
initialized", which names xcb-cursor0 whatever is missing).

The xcb plugin's libraries are not Python packages (pip cannot install them): their Debian
packages are named from the sonames by Debian's rule (libxcb-icccm.so.4 → libxcb-icccm4,
libxkbcommon-x11.so.0 → libxkbcommon-x11-0). `ldd` (glibc's, on every Debian system) says which
ones the dynamic loader cannot find; libxcb-cursor is loaded at run time, so it is tried apart.
"""
from __future__ import annotations

import ctypes
import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Mapping

RUN_TIME_LOADED = ("libxcb-cursor.so.0",)      # dlopen'ed by the plugin, not in its ELF needs
_NOT_FOUND = re.compile(r"^\s*(\S+\.so[.\d]*)\s+=>\s+not found", re.MULTILINE)


def debian_package(soname: str) -> str:
    """The Debian package that ships a library: libNAME.so.N → libNAMEN, libNAME-N when NAME ends
    in a digit (Debian policy 8.1), lower case."""
    name, _, version = soname.partition(".so")
    version = version.lstrip(".").split(".")[0]
    return (name + ("-" if name[-1:].isdigit() and version else "") + version).lower()


def not_found(ldd_output: str) -> list[str]:
    """The sonames `ldd` reports as "not found", in its order, each once."""
    return list(dict.fromkeys(_NOT_FOUND.findall(ldd_output)))


def _xcb_plugin() -> Path | None:
    spec = importlib.util.find_spec("PySide6")        # finds the package without importing Qt
    for folder in (spec.submodule_search_locations or []) if spec else []:
        plugin = Path(folder) / "Qt" / "plugins" / "platforms" / "libqxcb.so"
        if plugin.is_file():
            return plugin
    return None


def missing_x_libraries() -> list[str]:
    """Debian packages of the X libraries Qt's xcb plugin cannot load on this machine (empty when
    none is missing, or when this cannot be told: no plugin, no ldd)."""
    plugin = _xcb_plugin()
    if plugin is None:
        return []
    try:
        ldd = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    missing = not_found(ldd)
    for soname in RUN_TIME_LOADED:
        try:
            ctypes.CDLL(soname)
        except OSError:
            missing.append(soname)
    return list(dict.fromkeys(debian_package(s) for s in missing))


def display_problem(env: Mapping[str, str], missing: list[str] | None = None) -> str | None:
    """Why the window cannot open under this environment, in one sentence (None: it can, or Qt
    is not using X). `missing` is missing_x_libraries(), looked up only when X is used."""
    platform = env.get("QT_QPA_PLATFORM", "")
    if not sys.platform.startswith("linux") or (platform and not platform.startswith("xcb")):
        return None
    if not platform and env.get("WAYLAND_DISPLAY"):
        return None                                 # Qt may take Wayland: not ours to predict
    headless = ("the commands without a window work here: `vpu-inspector check MODEL`, `report`, "
                "`render`, or `gui MODEL --screenshot F.png`")
    if not env.get("DISPLAY"):
        return f"There is no display to open the window on (DISPLAY is not set); {headless}."
    missing = missing_x_libraries() if missing is None else missing
    if not missing:
        return None
    names = " and ".join([", ".join(missing[:-1]), missing[-1]] if len(missing) > 1 else missing)
    return (f"Qt cannot open its window on X: {names} {'is' if len(missing) == 1 else 'are'} "
            f"not installed (pip cannot install system libraries): `sudo apt-get install {' '.join(missing)}`; "
            f"meanwhile {headless}.")

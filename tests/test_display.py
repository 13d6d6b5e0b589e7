"""Where Qt cannot open a window (no display, or a bare Debian box without the X libraries of
Qt's xcb plugin), `vpu-inspector gui` says so in one sentence with the packages to install, exit 2,
before Qt is imported (Qt's own failure is an abort naming xcb-cursor0 whatever is missing)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from app.window.display import debian_package, display_problem, missing_x_libraries, not_found

ROOT = Path(__file__).resolve().parents[1]
# ldd's lines for the xcb plugin of PySide6 6.11 on a Debian 12 box without two of its libraries
LDD = """\tlinux-vdso.so.1 (0x00007ffd...)
\tlibQt6XcbQpa.so.6 => /venv/PySide6/Qt/plugins/platforms/../../lib/libQt6XcbQpa.so.6 (0x00007f...)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-icccm.so.4 => not found
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f...)
"""


def test_sonames_become_debian_package_names():
    assert [debian_package(s) for s in ("libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxcb-cursor.so.0",
                                        "libxkbcommon-x11.so.0", "libX11-xcb.so.1", "libxcb-render-util.so.0")] == [
        "libxcb-icccm4", "libxcb-keysyms1", "libxcb-cursor0", "libxkbcommon-x11-0", "libx11-xcb1",
        "libxcb-render-util0"]
    assert not_found(LDD) == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]


def test_the_sentence_names_what_to_install_and_what_works_meanwhile():
    x = {"DISPLAY": ":0"}
    said = display_problem(x, ["libxcb-icccm4", "libxcb-keysyms1"])
    assert said is not None and "`sudo apt-get install libxcb-icccm4 libxcb-keysyms1`" in said
    assert "libxcb-icccm4 and libxcb-keysyms1 are not installed" in said and "vpu-inspector check MODEL" in said
    assert display_problem(x, []) is None
    assert "DISPLAY is not set" in (display_problem({}, []) or "")
    # Qt not on X: offscreen (tests, screenshots), Wayland, or another platform asked for
    assert display_problem({"QT_QPA_PLATFORM": "offscreen"}, ["libxcb-icccm4"]) is None
    assert display_problem({"WAYLAND_DISPLAY": "wayland-0"}, ["libxcb-icccm4"]) is None
    assert display_problem({"QT_QPA_PLATFORM": "xcb", "DISPLAY": ":0"}, ["libxcb-icccm4"]) is not None


def test_this_machine_is_looked_at_for_real():
    missing = missing_x_libraries()                # whatever this machine has: package names only
    assert all(name.startswith("lib") and ".so" not in name for name in missing)


def test_gui_without_a_display_is_one_sentence_and_exit_2():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    done = subprocess.run([sys.executable, "-m", "app.cli", "gui", "conv_relu"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("vpu-inspector: error: There is no display") and len(done.stderr.splitlines()) == 1

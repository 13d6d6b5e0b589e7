"""The wheel holds the product and nothing else: built from a copy of this tree, it has app,
vpu_core and resources but no developer tool (tools/: benchmarks, documentation pictures,
synthetic and reference layouts), no test and no benchmark model; and the command it installs
answers `--help` for every subcommand with the wheel alone (no repository, no dependency)."""
from __future__ import annotations

import configparser
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LEFT_OUT = (".git", ".venv", "build", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", "docs")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel of a copy of the tree (setuptools' build/ folder keeps files deleted since an
    earlier build: a build in the work tree itself could hold what this test looks for)."""
    tmp = tmp_path_factory.mktemp("wheel")
    shutil.copytree(ROOT, tmp / "src", ignore=shutil.ignore_patterns(*LEFT_OUT))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp / "dist"), str(tmp / "src")], check=True)
    return next((tmp / "dist").glob("vpu_inspector-*.whl"))


def test_the_wheel_has_the_product_and_no_developer_tools(wheel: Path):
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"app", "vpu_core", "resources"}
    assert "vpu_core/cli.py" in names and "app/cli.py" in names and "resources/fonts/__init__.py" in names
    dev = [n for n in names if any(word in n for word in ("devtools", "bench", "synthetic", "_reference",
                                                          "tests/", "tools/", "corpus", "real_size"))]
    assert dev == []


def test_the_installed_command_answers_help_from_the_wheel_alone(wheel: Path, tmp_path: Path):
    target = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(target)          # what pip install --no-deps puts in site-packages
    entry = configparser.ConfigParser()
    entry.read(next(target.glob("*.dist-info")) / "entry_points.txt")
    module, function = entry["console_scripts"]["vpu-inspector"].split(":")
    # -S: no site-packages (no torch, no Qt, not this repository's editable install), -I: no
    # PYTHONPATH, no current folder: only the standard library and the wheel's files
    script = (f"import sys; sys.path.insert(0, {str(target)!r}); sys.argv[0] = 'vpu-inspector'; "
              f"from {module} import {function} as main; sys.exit(main(sys.argv[1:]))")

    def run(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-I", "-S", "-c", script, *argv], capture_output=True, text=True,
                              cwd=tmp_path)
    top = run("--help")
    assert top.returncode == 0, top.stderr
    commands = top.stdout.split("{", 1)[1].split("}", 1)[0].split(",")
    assert "check" in commands and "gui" in commands and "bench" not in commands
    for command in commands:
        done = run(command, "--help")
        assert done.returncode == 0 and done.stdout.startswith(f"usage: vpu-inspector {command}"), done.stderr

"""Generated arguments for every subcommand end in exit 0 / 1 / 2 and never in "internal error".

The argv is built from the real parser (every subcommand, every option, so an option added later is
walked too) with values of every kind: paths that exist, do not, are folders, dangling links, loops
of links, files where folders are wanted, names too long, with NUL or control characters, half a
surrogate pair, unicode; numbers out of range; free text. Each argv runs in this process through
app.cli.main up to the first heavy step (the session's work, the window, the renderer, a sweep's
runs), which raises `Reached` instead: everything before it —
argparse, the preflight of every path, the option checks — is what is tested, in milliseconds.

Under HYPOTHESIS_PROFILE=ci the examples are a fixed set (conftest.py); local runs explore, and
what they find becomes a case of test_os_refusals_are_one_sentence.
"""
from __future__ import annotations

import argparse
import contextlib
import functools
import io
import os

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from app.cli import main
from vpu_core.cli import build_parser


class Reached(BaseException):
    """The argv got through its checks to the heavy work (not an Exception: no handler swallows it)."""


def _reached(*_args, **_kwargs):
    raise Reached


class _Session:
    """default_session() in the test: its work is heavy, its cache switch is not."""

    def set_disk_cache(self, _on: bool) -> None:
        pass

    def __getattr__(self, name: str):
        return _reached


HEAVY = (   # (module, attribute): where each command's work begins
    ("vpu_core.session", "default_session"),
    ("app.window.launch", "run_gui"),
    ("app.export.render", "render_model"),
    ("app.export.report", "report_model"),
    ("vpu_core.sweep.run", "run_sweep"),
    ("vpu_core.agree", "_one"), ("vpu_core.agree", "_child"),
    ("vpu_core.whatif.ablation", "check_quantizer"),
    ("vpu_core.sensitivity.user_metric", "load_metric"),
)


@pytest.fixture(scope="module")
def places(tmp_path_factory):
    """Paths of every kind in a fresh folder (the test runs there: relative outputs land in it)."""
    root = tmp_path_factory.mktemp("fuzz")
    (root / "folder.py").mkdir()
    (root / "dir").mkdir()
    (root / "empty.py").write_text("")
    (root / "metric.py").write_text("def evaluate(model):\n    return 1.0\n")
    (root / "p.toml").write_text("[ops]\nvpu = ['conv2d']\n")
    (root / "c.npz").write_bytes(b"not numpy")
    (root / "file").write_text("x")
    (root / "model.py").write_text("raise SystemExit('never run: the work is stubbed')\n")
    os.symlink(root / "gone.py", root / "dangling.py")
    os.symlink(root / "loop.py", root / "loop.py")
    names = ["folder.py", "dir", "empty.py", "metric.py", "metric.py:evaluate", "p.toml", "c.npz",
             "dangling.py", "loop.py", "file/inside.py", "file/out.html", "dir/out.png", "dir/", "."]
    return root, [str(root / "model.py")] + [str(root / n) for n in names] + names + [
        "/", "/proc/version", "/dev/null", "-", ""]


SUFFIXES = ("", ".py", ".pt2", ".pt", ".npz", ".toml", ".html", ".png", ".svg", ".pte", ":fn")
NUMBERS = st.one_of(st.integers(-10**30, 10**30).map(str), st.sampled_from(
    ["0", "-1", "1e400", "nan", "inf", "-inf", "9" * 5000, "0x10", "1_000", "²", "１２", " 3 ", "3.5"]))
ODD = st.sampled_from(["\x00", "\n", "\r", "\t", "\x1b[31m", "\udcff", "\ud800", "\u202e", "é", "漢字",
                       "😀", "..", "/", "~", "$HOME", "%s", "{}", "'", '"', "\\", "*", "-"])


def _path_text(places: list[str]):
    long = st.integers(200, 5000).map(lambda n: "x" * n)
    made = st.tuples(st.one_of(st.text(max_size=12), long, ODD), st.sampled_from(SUFFIXES)).map("".join)
    return st.one_of(st.sampled_from(places), made, st.tuples(st.sampled_from(places), ODD).map("".join))


@functools.lru_cache(maxsize=1)
def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


VALID_BY_TYPE = {"int": "2", "positive": "2", "float": "20", "window_size": "1280x720", "_quantizers": "vpu,xnnpack",
                 "_targets": "xnnpack", "_seconds": "60", "_workers": "1", "_observer": "conv2d=minmax"}
VALID_BY_DEST = {"model": "resnet8", "models": "conv_relu", "profile": "p.toml", "calib_data": "c.npz",
                 "eval": "metric.py:evaluate", "compare": "xnnpack", "select": "conv2d", "sweep": "dir",
                 "output": "out.html", "save_program": "out.pt2", "screenshot": "out.png"}
OUTPUT_OF = {"report": "out.html", "render": "dir/o.svg", "export": "out.pte"}


def _valid(action: argparse.Action, command: str):
    """A value the option takes (so that a single wild value elsewhere is what is tested)."""
    if action.choices:
        return st.sampled_from(list(action.choices))
    if action.type is not None:
        return st.just(VALID_BY_TYPE.get(getattr(action.type, "__name__", ""), "1"))
    if action.dest == "output":
        return st.just(OUTPUT_OF.get(command, "outdir"))
    if action.dest in ("save_program", "screenshot"):
        return st.just(VALID_BY_DEST[action.dest])
    if action.dest in ("model", "models"):
        return st.sampled_from(["resnet8", "conv_relu", "model.py"])
    return st.just(VALID_BY_DEST.get(action.dest, "conv2d"))


def _wild(action: argparse.Action, paths):
    """Anything: a path of any kind, a number out of range, free text, control characters."""
    if action.choices:
        return st.one_of(st.sampled_from(list(action.choices)), st.text(max_size=8), ODD)
    return st.one_of(paths, NUMBERS, st.text(max_size=30), ODD)


@st.composite
def argvs(draw, places: list[str]):
    """[command, ...]: in "chaos" every value may be wild; otherwise one value is (or none), the
    rest valid, so the wild one gets past argparse to the command's own checks."""
    sub = _subparsers()
    command = draw(st.sampled_from(sorted(sub)))
    paths = _path_text(places)
    chaos = draw(st.integers(0, 3)) == 0
    wild_at, count = draw(st.integers(-1, 12)), iter(range(1000))

    def value(action: argparse.Action) -> str:
        wild = chaos or next(count) == wild_at
        return draw(_wild(action, paths) if wild else _valid(action, command))

    argv = [command]
    for action in sub[command]._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if not action.option_strings:         # a positional: almost always given
            n = 1 if action.nargs in (None, "?") else draw(st.integers(1, 3))
            argv += [value(action) for _ in range(n)] if draw(st.integers(0, 9)) else []
            continue
        if not action.required and draw(st.integers(0, 5)):    # an option given one time in six
            continue
        flag = action.option_strings[-1]
        if action.nargs == 0:
            argv.append(flag)
        elif action.nargs in ("*", "+"):
            argv += [flag, *[value(action) for _ in range(draw(st.integers(0, 2)))]]
        else:
            argv += [flag, value(action)]
    return argv


def _run(argv: list[str]) -> tuple[int | str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code: int | str = main(argv)
        except SystemExit as exc:             # argparse: usage errors exit 2, --help 0
            code = exc.code if isinstance(exc.code, int) else 2
        except Reached:
            code = "reached"
    return code, err.getvalue()


@pytest.fixture
def stubbed(places, monkeypatch):
    import importlib

    for module, name in HEAVY:
        monkeypatch.setattr(importlib.import_module(module), name,
                            (lambda: _Session()) if name == "default_session" else _reached)
    monkeypatch.chdir(places[0])
    return places[1]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(data=st.data())
def test_no_argument_reaches_internal_error(stubbed, data):
    argv = data.draw(argvs(stubbed), label="argv")
    code, err = _run(argv)
    assert code in (0, 1, 2, "reached"), (argv, code, err)
    assert "internal error" not in err and "Traceback" not in err, (argv, err)


LONG = "x" * 300


@pytest.mark.parametrize("argv, needle", [
    (["check", f"{LONG}.py"], "the name is too long (303 bytes; a file or folder name has at most 255)"),
    (["gui", f"{LONG}.py"], "the name is too long"),
    (["check", "a\x00b.py"], "the name contains a NUL character"),
    (["check", "resnet8\n"], "the name contains a control character (\\n)"),
    (["check", "\udcff.py"], "no such file"),
    (["check", "\ud800.py"], "the name is not valid text"),
    (["check", "{d}"], "it is a folder, not a file"),
    (["check", "{d}/dangling.py"], "it is a link to"),
    (["check", "{d}/loop.py"], "a loop of links"),
    (["check", "{d}/file/inside.py"], "file is a file, not a folder"),
    (["check", "resnet8", "--calib-data", "{d}"], "it is a folder, not a file"),
    (["check", "resnet8", "--calib-data", "/dev/null"], "not a regular file"),
    (["check", "resnet8", "--profile", f"{LONG}.toml"], "the name is too long"),
    (["check", "resnet8", "--save-program", "{d}/file/q.pt2"], "is a file, not a folder"),
    (["report", "resnet8", "-o", f"{'x' * 250}.html"], "the name is too long"),
    (["render", "resnet8", "-o", "{d}"], "the file name must end in .png or .svg"),
    (["gui", "resnet8", "--screenshot", "a\nb.png"], "control character"),
    (["gui", "resnet8", "--sweep", "{d}/file"], "it is a file, not a folder"),
    (["sweep", "resnet8", "-o", "{d}/file"], "it is a file, not a folder"),
    (["check", "resnet8", "--overlay", "/dev/zero"], "Cannot read the overlay file /dev/zero: it is not a regular file"),
    (["export", "resnet8", "--format", "model-explorer", "-o", "{d}/file/me"], "file is a file, not a folder"),
])
def test_os_refusals_are_one_sentence(stubbed, argv, needle):
    folder = os.getcwd()
    argv = [a.replace("{d}", folder) for a in argv]
    code, err = _run(argv)
    assert code == 2 and err.count("\n") == 1 and err.startswith("vpu-inspector: error: "), (argv, err)
    assert needle in err, err


@pytest.mark.parametrize("argv, needle", [     # numbers that reached torch or Qt and raised there
    (["check", "conv_relu", "--seed", str(2**70)], "argument --seed: must be between -2^63 and 2^63-1"),
    (["gui", "resnet8", "--size", f"{10**20}x720"], "argument --size: expected WIDTHxHEIGHT (each 200 to 16384)"),
    (["gui", "resnet8", "--size", "²⁰⁰x720"], "argument --size: expected WIDTHxHEIGHT"),
    (["sweep", "resnet8", "-o", "s", "--timeout", "nan"], "argument --timeout: must be a positive number"),
    (["agree", "resnet8", "--examples", "-2"], "argument --examples: must be 0 or more"),
    (["check", "conv_relu", "--sensitivity", "--reach-db", "inf"], "argument --reach-db: must be a finite"),
])
def test_numbers_out_of_range_are_usage_errors(stubbed, argv, needle):
    code, err = _run(argv)
    assert code == 2 and needle in err, err


def _as_unprivileged(fn):
    """fn() in a user that file permissions apply to: this process when it is not root, else a
    forked child that drops to `nobody` (root reads and writes everything: a permission test run
    as root would pass without testing anything). Returns what fn returned (a short string)."""
    if os.geteuid() != 0:
        return fn()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:                                   # the child: never returns into pytest
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            os.write(write, fn().encode("utf-8", "backslashreplace"))
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        out = pipe.read().decode()
    os.waitpid(pid, 0)
    return out


def test_no_permission_is_one_sentence(stubbed):
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="vpu-perm-")      # not under pytest's folder: that one is 0700
    secret, shut = os.path.join(folder, "secret.py"), os.path.join(folder, "shut")
    with open(secret, "w") as f:
        f.write("x = 1\n")
    os.makedirs(shut, exist_ok=True)
    os.chmod(secret, 0o000)
    os.chmod(shut, 0o555)                 # readable, not writable
    os.chmod(folder, 0o755)

    def run(*argv: str) -> str:
        return lambda: "{} {}".format(*_run(list(argv)))

    try:
        assert _as_unprivileged(run("check", secret)) == (
            f"2 vpu-inspector: error: Cannot load {secret}: permission denied.\n")
        out = _as_unprivileged(run("report", "resnet8", "-o", os.path.join(shut, "r.html")))
        assert out.startswith("2 vpu-inspector: error: Cannot write the report to ") and \
            "cannot be written to (permission denied" in out, out
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_a_device_or_a_pipe_is_never_read_for_a_cache_key(tmp_path):
    """The window hashes a pasted --eval file for its cache key on the GUI thread: /dev/zero froze
    it for good (found by the long monkey run); a FIFO would wait for a writer."""
    import threading

    from vpu_core.cache.keys import FileHashes

    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    out: list[object] = []
    worker = threading.Thread(target=lambda: out.extend(FileHashes().of(p) for p in ("/dev/zero", fifo)),
                              daemon=True)
    worker.start()
    worker.join(10)
    assert out == [None, None]

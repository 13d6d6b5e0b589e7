"""Shared test setup and fixtures: Qt offscreen, quiet library logs, cached real pipeline runs, the
graph-reading helpers, and the real window with its run helpers.

Nothing is imported from other test modules: everything shared is a fixture here.

    run(model, quantizer="vpu", …)      a real QuantizedModel (cached per process; never mutate it)
    analysis(model, quantizer="vpu", …) its Analysis (cached)
    fx.node / fx.attr / fx.edited_copy / fx.fired     reading and editing converted graphs
    profiles.with_rule_off / profiles.write           hardware profile files for a test
    partition_is_sound(gm, report)      the partition invariants (every node once, no cycle)
    window, run_and_wait, error_box     the real MainWindow (settings in a temp file)

Tests that take more than ~10 s (real quantization of several models, or a whole GUI story) are
marked `slow`: `pytest -m "not slow"` is the quick loop.
"""
import os
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Tests never touch the real user cache: one throw-away cache folder for the whole run
# (tests that need their own set VPU_INSPECTOR_CACHE_DIR with monkeypatch).
os.environ["VPU_INSPECTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="vpu-inspector-test-cache-")
if os.environ.get("PYTEST_XDIST_WORKER"):
    # Two xdist workers share two cores: one torch thread each, not two that contend.
    os.environ.setdefault("OMP_NUM_THREADS", "1")

import copy  # noqa: E402
import functools  # noqa: E402
from html.parser import HTMLParser  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402
from types import SimpleNamespace  # noqa: E402

import pytest  # noqa: E402

from vpu_core import quiet  # noqa: E402

quiet.import_torchao()

# CI replays a fixed set of hypothesis examples (a landing is never blocked by a new random draw);
# local runs keep exploring, and what they find becomes a named regression test.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("ci", derandomize=True, database=None)
_hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

RUN_TIMEOUT_MS = 180_000

# The README's test command runs two xdist workers, one file per work unit (--dist loadfile keeps a
# file's session-cached runs in one process). Files are handed out in collection order, so the
# longest go first (seconds on a quiet machine, `--durations`): otherwise the corpus, started
# last, runs alone for two minutes while the other worker idles.
LONGEST_FILES_FIRST = ("test_corpus.py", "test_gui.py", "test_gui_compare.py", "test_gui_keep_place.py",
                       "test_delegation.py", "test_export.py", "test_gui_runtime.py", "test_sweep_ray.py")


@pytest.hookimpl(tryfirst=True)   # before xdist's own, which turns "no distribution" into --dist load
def pytest_cmdline_main(config):
    """`-n N` distributes one file per worker (--dist loadfile) unless --dist says otherwise. Here, not in
    pyproject's addopts: without xdist (`-p no:xdist`) there is no --dist option to give."""
    if getattr(config.option, "numprocesses", None) and config.option.dist == "no":
        config.option.dist = "loadfile"


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FILES_FIRST)}
    # sorted() is stable: tests keep their order within a file, the other files theirs.
    items[:] = sorted(items, key=lambda item: rank.get(item.path.name, len(rank)))
_PROFILE_DIR = Path(tempfile.mkdtemp(prefix="vpu_profiles_"))


# -- real pipeline runs ---------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _cached_run(**kwargs):
    from vpu_core.pipeline import RunConfig, run_pipeline

    return run_pipeline(RunConfig(**kwargs))


@pytest.fixture(scope="session")
def run_cached():
    """Real pipeline runs shared across tests: run_cached(model="conv_relu", quantizer="vpu")."""
    return lambda **kw: _cached_run(**kw)


CORPUS_DIR = os.path.join(os.path.dirname(__file__), "corpus")


def corpus_models() -> list[str]:
    """Stems of the real-model corpus files (tests/corpus/*.py)."""
    return sorted(f[:-3] for f in os.listdir(CORPUS_DIR) if f.endswith(".py") and not f.startswith("_"))


def run_main(argv) -> tuple[int, str, str]:
    """`vpu-inspector ARGV` in this process: (exit code, stdout, stderr)."""
    import contextlib
    import io

    from app.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def run_check(*argv) -> tuple[int, str, str]:
    """`vpu-inspector check ARGV` in this process (usable at any fixture scope)."""
    return run_main(["check", *argv])


@pytest.fixture(scope="session")
def check_json():
    """check_json(*argv) -> (exit code, parsed JSON or None, stderr) of `check ARGV --format json`,
    run once per session for each argv (share one expensive run between several tests)."""
    import json

    @functools.lru_cache(maxsize=None)
    def run(*argv: str):
        code, out, err = run_check(*argv, "--format", "json")
        return code, json.loads(out) if out else None, err

    return run


@pytest.fixture(scope="session")
def corpus_check(tmp_path_factory):
    """corpus_check(stem, quantizer, save) -> dict with the `check --format json` run of a corpus model at
    its own batch (calib_batches 1, the program saved), the display graph the window would draw of
    it, and the same check of the saved .pt2: {"code", "json", "err", "pt2", "shown": (display
    nodes, laid-out boxes), "saved": {"code", "json", "err"} (with `save`)}. Each runs once per session."""
    import json

    folder = tmp_path_factory.mktemp("corpus_programs")

    @functools.lru_cache(maxsize=None)
    def run(stem: str, quantizer: str, save: bool = True) -> dict:
        path, pt2 = os.path.join(CORPUS_DIR, f"{stem}.py"), str(folder / f"{stem}_{quantizer}.pt2")
        code, out, err = run_check(path, "--quantizer", quantizer, "--calib-batches", "1",
                                   "--format", "json", *(("--save-program", pt2) if save else ()))
        result = {"code": code, "err": err, "json": json.loads(out) if out else None, "pt2": pt2}
        if code in (0, 1):
            # What the window draws: the display graph and layout of the same (remembered) run.
            from vpu_core.config import RunConfig
            from vpu_core.session import default_session, display_graph

            config = RunConfig(model=path, quantizer=quantizer, calib_batches=1)
            shown = display_graph(default_session().analysis(config))
            result["shown"] = (len(shown.model.nodes), len(shown.layout.boxes))
            code, out, err = run_check(pt2, "--quantizer", quantizer, "--format", "json")
            result["saved"] = {"code": code, "err": err, "json": json.loads(out) if out else None}
        return result

    return run


def profile_with(rule_off: str | None = None, **requant) -> str | None:
    """Path of a copy of the shipped profile with one constraint switched off / a shift range."""
    from resources import DEFAULT_PROFILE

    if rule_off is None and not requant:
        return None
    text = DEFAULT_PROFILE.read_text(encoding="utf-8")
    if rule_off:
        text = text.replace(f"{rule_off} = true", f"{rule_off} = false")
    for key, value in requant.items():
        text = text.replace(f"{key} = ", f"{key} = {value}\n# was: {key} = ", 1)
    name = f"off_{rule_off}" if rule_off else "custom"
    path = _PROFILE_DIR / f"{name}_{'_'.join(f'{k}{v}' for k, v in requant.items())}.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def write_profile(name: str, text: str) -> str:
    path = _PROFILE_DIR / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


@functools.lru_cache(maxsize=None)
def _run(model: str, quantizer: str = "vpu", dynamic_batch: bool = False, rule_off: str | None = None,
         batch_size: int = 4, profile: str | None = None):
    from vpu_core.pipeline import RunConfig, run_pipeline

    config = RunConfig(model=model, quantizer=quantizer, dynamic_batch=dynamic_batch,
                       calib_batches=2, batch_size=batch_size,
                       profile=profile or profile_with(rule_off))
    return run_pipeline(config)


@functools.lru_cache(maxsize=None)
def _analysis(model: str, quantizer: str = "vpu", dynamic_batch: bool = False, rule_off: str | None = None):
    from vpu_core.analysis import analyze

    return analyze(_run(model, quantizer, dynamic_batch, rule_off))


@pytest.fixture(scope="session")
def run():
    """run(model, quantizer="vpu", dynamic_batch=False, rule_off=None, batch_size=4, profile=None)."""
    return _run


@pytest.fixture(scope="session")
def analysis():
    """analysis(model, quantizer="vpu", dynamic_batch=False, rule_off=None): analyze(run(...))."""
    return _analysis


@pytest.fixture(scope="session")
def profiles():
    return SimpleNamespace(with_rule_off=profile_with, write=write_profile)


# -- reading converted graphs -------------------------------------------------------------------------

def _node(gm, name: str):
    return next(n for n in gm.graph.nodes if n.name == name)


def _attr(gm, n):
    """The tensor behind a get_attr node, read independently of the analysis code."""
    obj = gm
    for part in str(n.target).split("."):
        obj = getattr(obj, part)
    return obj


def _fired(violations) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in violations:
        out[v.rule] = out.get(v.rule, 0) + 1
    return out


@pytest.fixture(scope="session")
def fx():
    return SimpleNamespace(node=_node, attr=_attr, edited_copy=copy.deepcopy, fired=_fired)


def _unit(assignment, name):
    side = assignment[name]
    return ("cpu", name) if side == "cpu" else ("vpu", side)


def _assert_partition_is_sound(gm, report):
    names = [n.name for n in gm.graph.nodes]
    # Every graph node exactly once, and the subgraph lists agree with the assignment.
    assert sorted(report.assignment) == sorted(names)
    listed = [n for s in report.subgraphs for n in s.nodes]
    assert len(listed) == len(set(listed))
    assert {n for n, side in report.assignment.items() if side != "cpu"} == set(listed)
    for s in report.subgraphs:
        assert all(report.assignment[n] == s.id for n in s.nodes)
    # No cycle between units (each subgraph one unit, each CPU node its own unit).
    edges = {}
    for n in gm.graph.nodes:
        for i in n.all_input_nodes:
            a, b = _unit(report.assignment, i.name), _unit(report.assignment, n.name)
            if a != b:
                edges.setdefault(a, set()).add(b)
    state = {}

    def visit(u):
        state[u] = "open"
        for v in edges.get(u, ()):
            assert state.get(v) != "open", f"cycle through {u} and {v}"
            if v not in state:
                visit(v)
        state[u] = "done"

    for u in list(edges):
        if u not in state:
            visit(u)
    assert report.transfer_bytes == sum(b.bytes for b in report.boundaries)


@pytest.fixture(scope="session")
def partition_is_sound():
    return _assert_partition_is_sound


# -- reading outputs ------------------------------------------------------------------------------------

class Page(HTMLParser):
    """Section ids, URLs of src/href attributes, inline <svg> count, and table rows by class."""

    def __init__(self, html: str):
        super().__init__()
        self.ids, self.urls, self.svgs, self.scripts_src, self.links = [], [], 0, [], []
        self.rows: dict[str, list[list[str]]] = {}
        self.rules_of_rows: list[str] = []
        self._rule, self._row_class, self._cell, self._row = None, None, None, None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and "id" in a:
            self.ids.append(a["id"])
        for key in ("src", "href"):
            if key in a:
                self.urls.append(a[key])
        if tag == "svg":
            self.svgs += 1
        if tag == "script" and "src" in a:
            self.scripts_src.append(a["src"])
        if tag == "link":
            self.links.append(a)
        if tag == "details" and "data-rule" in a:
            self._rule = a["data-rule"]
        if tag == "tr" and a.get("class"):
            self._row_class, self._row = a["class"].split()[0], []
        if tag == "td" and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self._row.append(" ".join(" ".join(self._cell).split()))
            self._cell = None
        if tag == "tr" and self._row is not None:
            self.rows.setdefault(self._row_class, []).append(self._row)
            if self._row_class == "violation":
                self.rules_of_rows.append(self._rule)
            self._row = None
        if tag == "details":
            self._rule = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


@pytest.fixture(scope="session")
def html_page():
    """html_page(html): a parsed report page (section ids, URLs, inline SVGs, table rows)."""
    return Page


@pytest.fixture
def run_cli():
    """run_cli(*argv) -> (exit code, stdout, stderr) of `vpu-inspector` in this process."""
    return lambda *argv: run_main(argv)


@pytest.fixture(scope="session")
def cli():
    """run_cli for fixtures of any scope (a module-scoped export shared by a module's tests)."""
    return lambda *argv: run_main(argv)


# -- the real window --------------------------------------------------------------------------------

_QAPP = []     # keeps the session's QApplication alive


@pytest.fixture(scope="session")
def qapp(qapp_args, qapp_cls, pytestconfig):
    """pytest-qt's QApplication, with the bundled fonts as the application has them (app.fonts):
    a widget test measures text in the same face as the window, on every machine."""
    from app import fonts

    app = qapp_cls.instance()
    if app is None:
        app = qapp_cls(qapp_args)
        app.setApplicationName(pytestconfig.getini("qt_qapp_name"))
        _QAPP.append(app)
    fonts.install(app)
    return app


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    """The real MainWindow at 1600×1000, settings in a temporary INI file (never the user's)."""
    from PySide6.QtWidgets import QApplication

    from app import theme
    from app.settings import ENV_VAR

    monkeypatch.setenv(ENV_VAR, str(tmp_path / "settings.ini"))
    theme.apply_theme(QApplication.instance())
    from app.window.main_window import MainWindow

    win = MainWindow()
    qtbot.addWidget(win)
    win.resize_for(1600, 1000)
    win.show()
    qtbot.waitExposed(win)
    yield win
    win.runs.jobs.shutdown()


@pytest.fixture
def run_and_wait(qtbot):
    """run_and_wait(win, config=None, action=None): start a run of `config` (a RunConfig or a
    dict of its fields), or perform `action`, which starts one; return its Inspection /
    InspectionPair once it is on screen (fails the test when the run fails)."""
    def start_and_wait(win, config=None, action=None):
        from vpu_core.config import RunConfig

        outcome = []
        runs = win.runs
        runs.succeeded.connect(outcome.append)
        runs.failed.connect(outcome.append)
        try:
            if action is not None:
                action()
            else:
                runs.start(RunConfig(**config) if isinstance(config, dict) else config)
            qtbot.waitUntil(lambda: bool(outcome), timeout=RUN_TIMEOUT_MS)
        finally:
            runs.succeeded.disconnect(outcome.append)
            runs.failed.disconnect(outcome.append)
        assert not hasattr(outcome[0], "message"), f"run failed: {outcome[0].message}\n{outcome[0].detail}"
        return outcome[0]
    return start_and_wait


@pytest.fixture
def error_box(qtbot):
    """error_box(): the visible QMessageBox, once there is one."""
    def find():
        from PySide6.QtWidgets import QApplication, QMessageBox

        def visible():
            return [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]

        qtbot.waitUntil(lambda: bool(visible()), timeout=RUN_TIMEOUT_MS)
        return visible()[0]
    return find

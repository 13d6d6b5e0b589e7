"""Shared test setup: Qt offscreen, quiet library logs, and cached real pipeline runs."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import functools  # noqa: E402

import pytest  # noqa: E402

from vpu_core import quiet  # noqa: E402

quiet.import_torchao()


@functools.lru_cache(maxsize=None)
def _cached_run(**kwargs):
    from vpu_core.pipeline import RunConfig, run_pipeline

    return run_pipeline(RunConfig(**kwargs))


@pytest.fixture(scope="session")
def run_cached():
    """Real pipeline runs shared across tests: run_cached(model="conv_relu", quantizer="vpu").

    Tests must not mutate the returned QuantizedModel (copy its graph first).
    """
    return lambda **kw: _cached_run(**kw)


CORPUS_DIR = os.path.join(os.path.dirname(__file__), "corpus")


def corpus_models() -> list[str]:
    """Stems of the real-model corpus files (tests/corpus/*.py)."""
    return sorted(f[:-3] for f in os.listdir(CORPUS_DIR) if f.endswith(".py") and not f.startswith("_"))


def run_check(*argv) -> tuple[int, str, str]:
    """The real command line in this process: (exit code, stdout, stderr)."""
    import contextlib
    import io

    from app.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["check", *argv])
    return code, out.getvalue(), err.getvalue()


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

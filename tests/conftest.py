"""Shared test setup: Qt offscreen, quiet library logs, and cached real pipeline runs."""
import os
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# Tests never touch the real user cache: one throw-away cache folder for the whole run
# (tests that need their own set VPU_INSPECTOR_CACHE_DIR with monkeypatch).
os.environ["VPU_INSPECTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="vpu-inspector-test-cache-")

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

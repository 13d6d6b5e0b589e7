"""`sweep --ray`: the same runs as Ray tasks on a local Ray cluster (one session for every assert).

The rows equal the local engine's (timings aside), a crashing task is a row, a hang is
cancelled at the timeout (ray.cancel(force=True)), and the driver's folder gets the same files.
"""
import json
import os
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")

TINY = (Path(__file__).parent / "models" / "softmax_classifier.py").read_text(encoding="utf-8")
EXITS = "import os\n\ndef get_model():\n    os._exit(7)\n"
SLEEPS = "import time\n\ndef get_model():\n    time.sleep(120)\n"
TIMING = ("seconds", "cached")


@pytest.fixture(scope="module")
def ray_session():
    from vpu_core.sweep.ray_engine import connect, shutdown

    connect("local", 2)          # starts a local Ray with 2 CPUs; the sweeps below reuse it
    yield
    shutdown()


def _plan(folder: Path, **files: str):
    from vpu_core.config import RunConfig
    from vpu_core.sweep.plan import plan_sweep

    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / f"{name}.py").write_text(text, encoding="utf-8")
    return plan_sweep([str(folder)], ("xnnpack",), (None,), RunConfig(calib_batches=1))


@pytest.mark.slow
def test_ray_local_gives_the_local_engines_rows_and_isolates_failures(ray_session, tmp_path):
    from vpu_core.sweep.ledger import SweepOptions
    from vpu_core.sweep.run import run_sweep

    plan = _plan(tmp_path / "models", tiny=TINY, exits=EXITS)
    local = run_sweep(plan, tmp_path / "local", SweepOptions(workers=2, timeout_s=300), stream=open(os.devnull, "w"))
    on_ray = run_sweep(plan, tmp_path / "ray", SweepOptions(workers=2, timeout_s=300), ray_address="local",
                       stream=open(os.devnull, "w"))
    assert on_ray.summary["engine"] == "ray"
    by_model = {r["model"]: r for r in on_ray.rows}
    assert by_model["exits"]["status"] == "error" and "Ray worker process crashed" in by_model["exits"]["reason"]
    for a, b in zip(local.rows, on_ray.rows):
        if a["status"] == "ok":
            assert {k: v for k, v in a.items() if k not in TIMING} == {k: v for k, v in b.items() if k not in TIMING}
        assert (a["model"], a["status"], a["key"]) == (b["model"], b["status"], b["key"])
    tiny = by_model["tiny"]
    for name in (tiny["json"], tiny["html"]):
        assert (tmp_path / "ray" / name).is_file()
    a_json = json.loads((tmp_path / "local" / tiny["json"]).read_text())
    b_json = json.loads((tmp_path / "ray" / tiny["json"]).read_text())
    a_json.pop("timings_s"), b_json.pop("timings_s")
    for t in [*a_json["targets"].values(), *b_json["targets"].values()]:   # this run's times and cache hits
        t.pop("timings_s", None), t.pop("from_cache", None)
    assert a_json == b_json
    assert on_ray.exit_code == 1 and ray.is_initialized()     # our session stays up for the next test


@pytest.mark.slow
def test_ray_cancels_a_hang_at_the_timeout(ray_session, tmp_path):
    from vpu_core.sweep.ledger import SweepOptions
    from vpu_core.sweep.run import run_sweep

    plan = _plan(tmp_path / "models", sleeper=SLEEPS)
    result = run_sweep(plan, tmp_path / "out", SweepOptions(workers=2, timeout_s=6), ray_address="local",
                       stream=open(os.devnull, "w"))
    assert [r["status"] for r in result.rows] == ["timeout"] and result.exit_code == 2

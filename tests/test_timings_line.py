"""check's "Timings:" line names the stages this run did, the Arm lowering's included, and what came from the cache."""
import contextlib
import io
import re
from pathlib import Path

import pytest

PROBE = str(Path(__file__).parent / "models" / "arm_probe.py")
ARGV = ("check", PROBE, "--quantizer", "ethos-u", "--target", "ethos-u55-128")


def _timings() -> str:
    from app.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(ARGV))
    assert code in (0, 1), err.getvalue()
    (line,) = [s for s in out.getvalue().splitlines() if s.startswith("Timings: ")]
    return line


@pytest.mark.slow
def test_the_timings_line_names_this_runs_stages_and_what_came_from_the_cache(tmp_path, monkeypatch):
    from vpu_core.config import RunConfig
    from vpu_core.session import default_session

    monkeypatch.setenv("VPU_INSPECTOR_CACHE_DIR", str(tmp_path))      # an empty disk cache
    default_session().forget(RunConfig(model=PROBE, quantizer="ethos-u"))
    cold = _timings()
    for stage in ("export", "calibrate", "convert", "analyze"):
        assert re.search(rf"\b{stage} \d+\.\d\ds", cold), (stage, cold)
    arm = re.search(r"ethos-u55-128: ([^;]+)", cold).group(1)
    assert [s.rsplit(" ", 1)[0] for s in arm.split(", ")] == [
        "graph prep", "export", "to_edge", "partition", "TOSA", "Vela", "verdict", "estimate"]
    assert cold.endswith("from cache: nothing")
    warm = _timings()                  # the same session again: nothing is computed, nothing reprinted
    done, cached = warm.removeprefix("Timings: ").split("from cache: ")
    assert not re.search(r"\d+\.\d\ds", done)
    assert cached.split(", ")[:7] == ["export", "import", "prepare", "calibrate", "convert", "analyze", "sqnr"]
    assert "ethos-u55-128" in cached.split(", ")

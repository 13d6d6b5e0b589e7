"""Ethos-U configurations of one TOSA subset share the lowering: only Vela runs again (real ExecuTorch and
Vela, no mocks). The shared result is the one a lowering of its own gives."""
from pathlib import Path

import pytest

from vpu_core.config import RunConfig
from vpu_core.session import Session

PROBE = str(Path(__file__).parent / "models" / "arm_probe.py")


@pytest.mark.slow
def test_a_second_u55_configuration_runs_only_vela_and_judges_as_its_own_lowering():
    config = RunConfig(model=PROBE, quantizer="ethos-u")
    shared = Session(disk_cache=False)
    first = shared.target(config, "ethos-u55-128")
    second = shared.target(config, "ethos-u55-256")
    assert {"to_edge", "tosa"} <= set(first.timings_s)
    assert set(second.timings_s) == {"vela", "verdict", "estimate"}       # no export, to_edge or TOSA again
    alone = Session(disk_cache=False).target(config, "ethos-u55-256")
    assert {"to_edge", "tosa"} <= set(alone.timings_s)
    assert second.verdict == alone.verdict
    assert second.estimate == alone.estimate
    assert second.estimate.total_cycles != first.estimate.total_cycles     # Vela did run for the 256

"""The core session: one inspection end to end, another view without a run, and compare mode."""
from __future__ import annotations

import pytest

from vpu_core.config import RunConfig, ViewOptions
from vpu_core.errors import StaticShapeError
from vpu_core.graph.build import build_graph_model
from vpu_core.session import Session


CONFIG = RunConfig(model="conv_relu", calib_batches=1, batch_size=2)


def test_redraw_draws_another_view_from_memory():
    session, config = Session(), CONFIG
    seen = []
    first = session.inspect(config, ViewOptions(), progress=lambda stage, f: seen.append(stage))
    assert seen[0] == "load" and seen[-1] == "layout"
    assert first.graph.model == build_graph_model(first.analysis, fold_params=True)

    unfolded = session.redraw(first, ViewOptions(fold_params=False))
    assert unfolded.analysis is first.analysis and unfolded.config == config      # no run
    assert unfolded.graph.model == build_graph_model(first.analysis, fold_params=False)
    assert session.redraw(first, ViewOptions(fold_params=False)).graph is unfolded.graph   # remembered
    with pytest.raises(ValueError):
        session.redraw(first, ViewOptions(partition_source="xnnpack"))    # not lowered: a job, not a redraw

    again = session.inspect(config, ViewOptions())                         # from memory
    assert again.analysis is first.analysis


@pytest.mark.slow
def test_compare_is_two_inspections_and_names_the_failing_side():
    session, config = Session(), CONFIG
    first = session.inspect(config, ViewOptions())
    fractions = []
    pair = session.compare(config, RunConfig(model="conv_relu", calib_batches=1, batch_size=2, per_tensor=True,
                                             quantizer="xnnpack"),
                           ViewOptions(), progress=lambda stage, f: fractions.append(f))
    assert pair.a.analysis is first.analysis                               # side A was known
    assert (pair.comparison.a_label, pair.comparison.b_label) == ("VPU", "XNNPACK · per-tensor")
    assert min(fractions) >= 0.0 and fractions[-1] == pytest.approx(1.0)   # one bar for both sides
    with pytest.raises(StaticShapeError, match=r"^B · VPU · dynamic batch: "):
        session.compare(config, RunConfig(model="conv_relu", calib_batches=1, batch_size=2, dynamic_batch=True))

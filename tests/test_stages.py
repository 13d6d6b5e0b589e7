"""The one stage vocabulary (vpu_core.stages): every stage's title, timings key and cache stores in
one table, and the names the pipeline, the cache and the reports use all come from it."""
from typing import get_args

from vpu_core import stages
from vpu_core.cache.stage_store import MemoryCache
from vpu_core.config import RunConfig
from vpu_core.reports.json_report import analysis_to_json
from vpu_core.session import Session
from vpu_core.worker.ending import doing


def test_every_stage_has_an_entry_and_every_timing_key_and_store_belongs_to_a_stage():
    assert set(stages.STAGE_INFO) == set(stages.STAGES) == set(get_args(stages.Stage))
    timed = {i.timing for i in stages.STAGE_INFO.values()}
    # reading the cache is the one time that is no stage's
    assert set(get_args(stages.TimingKey)) - timed == {"cache_load"}
    stored = {s for i in stages.STAGE_INFO.values() for s in i.stores}
    assert stored == set(get_args(stages.Store))
    assert set(MemoryCache.LIMITS) <= stored
    # a stage on the inspection's bar is one the progress line can name
    assert set(stages.STAGE_SPANS) <= set(stages.STAGE_TITLES)
    assert stages.STAGE_TITLES["calibrate"] == "Calibrating" and doing("export") == "exporting it (torch.export)"
    assert doing("sensitivity") == "sensitivity" and doing("layers") == "layers"      # no words of their own


def test_a_run_reports_and_times_stages_of_the_vocabulary_under_the_json_keys_it_always_had(tmp_path):
    seen: list[str] = []
    inspection = Session(cache_dir=tmp_path).inspect(RunConfig("conv_relu", calib_batches=1),
                                                     progress=lambda stage, f: seen.append(stage))
    assert seen and set(seen) <= set(stages.STAGES)
    assert set(inspection.stages_run) <= set(stages.STAGES)
    assert set(inspection.analysis.timings_s) <= set(get_args(stages.TimingKey))
    out = analysis_to_json(inspection.analysis)
    assert list(out["timings_s"]) == ["export", "prepare", "calibrate", "convert", "analyze", "sqnr", "import"]

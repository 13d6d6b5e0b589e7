"""The sensitivity analysis of one configuration as a job (`Session.sensitivity`: seconds, each
predicted fix a re-quantization), and the user's metric of one configuration (`Session.metric_of`,
the Apply card's after value). Like the ablation, it runs in the worker, which reuses what it
remembers of the configuration on screen; Cancel stops it like every job.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from app.jobs.worker import Job, remembered, window_session
from vpu_core.config import RunConfig
from vpu_core.worker import jobs

if TYPE_CHECKING:
    from vpu_core.sensitivity.options import SensitivityOptions
    from vpu_core.sensitivity.results import SensitivityReport


def _step(config: RunConfig, options: SensitivityOptions) -> jobs.JobCall:
    return jobs.call(jobs.sensitivity, config=config, options=options)


class SensitivityJob(Job):
    def __init__(self, config: RunConfig, options: SensitivityOptions) -> None:
        super().__init__(config, _step(config, options))


class MetricJob(Job):
    """fn(model) of --eval for the quantized model of `config` (a float)."""

    def __init__(self, config: RunConfig, spec: str) -> None:
        super().__init__(config, jobs.call(jobs.metric, config=config, spec=spec))


def known_sensitivity(config: RunConfig, options: SensitivityOptions) -> SensitivityReport | None:
    """The report of `config` under `options` that came back, or that the disk cache holds (never
    runs one)."""
    return remembered(_step(config, options)) or window_session().known_sensitivity(config, options)

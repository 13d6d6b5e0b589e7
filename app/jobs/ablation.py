"""The constraint ablation of one configuration as a job (`Session.ablate`, seconds to a minute).

It runs in the worker, which reuses what it remembers for the configuration on screen (export,
calibration data, baseline analysis); it reports the ablation's progress and honours cancel like
every job. An ablation that came back is remembered by the window (`known_ablation`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from app.jobs.worker import Job, remembered
from vpu_core.config import RunConfig
from vpu_core.worker import jobs

if TYPE_CHECKING:
    from vpu_core.whatif.results import AblationReport


def _step(config: RunConfig) -> jobs.JobCall:
    return jobs.call(jobs.ablate, config=config)


class AblationJob(Job):
    def __init__(self, config: RunConfig) -> None:
        super().__init__(config, _step(config))


def known_ablation(config: RunConfig) -> AblationReport | None:
    """The ablation of `config` this window already has, or None (never runs one)."""
    return remembered(_step(config))

"""The constraint ablation of one configuration as a job (`Session.ablate`, seconds to a minute).

It reuses what the session remembers for the configuration on screen (export, calibration data,
baseline analysis), reports the session's progress and honours cancel like every job.
"""
from __future__ import annotations

import threading

from app.jobs.worker import Job
from vpu_core.config import RunConfig, ViewOptions


class AblationJob(Job):
    def __init__(self, config: RunConfig) -> None:
        super().__init__(config, ViewOptions())

    def work(self, cancel: threading.Event) -> object:
        from vpu_core.session import default_session

        # The baseline stages only run when the session no longer has the window's run: they
        # count as the start of the bar.
        bar = self.context(cancel).scaled({"ablate": (0.0, 1.0)}, default=(0.0, 0.0))
        return default_session().ablate(self.config, ctx=bar)

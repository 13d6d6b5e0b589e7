"""The sensitivity analysis of one configuration as a job (`Session.sensitivity`: seconds, each
predicted fix a re-quantization), and the user's metric of one configuration (`Session.metric_of`,
the Apply card's after value). Like the ablation, it reuses what the session remembers of the
configuration on screen and honours cancel like every job.
"""
from __future__ import annotations

import threading

from app.jobs.worker import Job
from vpu_core.config import RunConfig, ViewOptions
from vpu_core.sensitivity.options import SensitivityOptions


class SensitivityJob(Job):
    def __init__(self, config: RunConfig, options: SensitivityOptions) -> None:
        super().__init__(config, ViewOptions())
        self.options = options

    def work(self, cancel: threading.Event) -> object:
        from vpu_core.session import default_session

        bar = self.context(cancel).scaled({"sensitivity": (0.0, 1.0)}, default=(0.0, 0.0))
        return default_session().sensitivity(self.config, self.options, bar)


class MetricJob(Job):
    """fn(model) of --eval for the quantized model of `config` (a float)."""

    def __init__(self, config: RunConfig, spec: str) -> None:
        super().__init__(config, ViewOptions())
        self.spec = spec

    def work(self, cancel: threading.Event) -> object:
        from vpu_core.session import default_session

        return default_session().metric_of(self.config, self.spec, self.context(cancel))

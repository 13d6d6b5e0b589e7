"""What the sweep's fork server imports once, so that no run imports it again.

Only imports: nothing here runs torch (no export, no op, no thread pool), so a process forked
from the server starts as a fresh `python -m vpu_core.sweep.worker` would, minus ~4 s of
imports per run (torch, torchao's PT2E, ExecuTorch's XNNPACK quantizer, networkx, our pipeline).
"""
from vpu_core import quiet

quiet.import_torchao()

import torchao.quantization.pt2e.quantize_pt2e  # noqa: E402,F401

import vpu_core.analysis.analyzer  # noqa: E402,F401
import vpu_core.cache.analysis_store  # noqa: E402,F401
import vpu_core.pipeline  # noqa: E402,F401
import vpu_core.quantizers.fast_observers  # noqa: E402,F401
import vpu_core.reports.html  # noqa: E402,F401
import vpu_core.reports.json_report  # noqa: E402,F401
import vpu_core.session  # noqa: E402,F401
import vpu_core.sweep.worker  # noqa: E402,F401
import vpu_core.targets.vpu.quantizer  # noqa: E402,F401
import vpu_core.targets.xnnpack.quantizer  # noqa: E402,F401
import vpu_core.whatif.op_candidates  # noqa: E402,F401
import vpu_core.zoo.models  # noqa: E402,F401

from vpu_core.worker.server import ready_to_fork  # noqa: E402

ready_to_fork()

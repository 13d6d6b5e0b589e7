"""The OpenVINO program run here: latency and SQNR, with ExecuTorch's Python runtime.

    report = run_lowered(qm, lowering, runs=20, warmup=3)      # RuntimeReport, backend "openvino"

1. Latency: the .pte loaded with `executorch.runtime.Runtime` (the OpenVINO backend ships in the
   executorch wheel and loads OpenVINO's runtime from the openvino package), `warmup` untimed
   calls of `forward`, then `runs` calls each timed with perf_counter around `Method.execute`.
   Median, p10 and p90. No per-op times: an OpenVINO delegate is one compiled model, and
   ExecuTorch's ETDump sees only its call.
2. Numerics: the last outputs against the float graph's and the converted Q/DQ graph's on the same
   held-aside batch (vpu_core.analysis.sqnr). OpenVINO runs its own int8 kernels, so the Q/DQ
   graph is a reference, not a bit-exact twin.
"""
from __future__ import annotations

import statistics
import time
from typing import TYPE_CHECKING

import torch
from torch.utils._pytree import tree_leaves

from vpu_core.analysis.sqnr import compare_outputs
from vpu_core.errors import short_reason
from vpu_core.targets.openvino import signal_stack_kept
from vpu_core.targets.results import Latency, RuntimeReport

if TYPE_CHECKING:
    from vpu_core.pipeline import QuantizedModel
    from vpu_core.targets.openvino.lowering import OpenvinoLowering


def run_lowered(qm: QuantizedModel, lowering: OpenvinoLowering, runs: int = 20, warmup: int = 3,
                backend: str = "openvino") -> RuntimeReport:
    """The program run here, or a RuntimeReport whose `refused` says why it could not run."""
    start = time.perf_counter()
    with signal_stack_kept():           # OpenVINO's models set one of their own (see there)
        return _run(qm, lowering, runs, warmup, backend, start)


def _run(qm: QuantizedModel, lowering: OpenvinoLowering, runs: int, warmup: int, backend: str,
         start: float) -> RuntimeReport:
    from executorch import version
    from executorch.runtime import Runtime

    from vpu_core.targets.xnnpack.measure import native_stderr

    inputs = tuple(qm.heldout)
    try:
        with native_stderr():       # the backend logs where it loaded OpenVINO's runtime from
            # the Program is held as long as its Method: a Method outliving its Program ended the
            # process with a segmentation fault when both were collected later (pytest, once)
            program = Runtime.get().load_program(lowering.buffer)
            method = program.load_method("forward")
            outputs = [method.execute(inputs) for _ in range(max(0, warmup))]
        times = []
        for _ in range(max(1, runs)):
            t0 = time.perf_counter()
            outputs = [method.execute(inputs)]
            times.append((time.perf_counter() - t0) * 1e3)
    except Exception as exc:  # the runtime raises RuntimeError with the backend's status
        return RuntimeReport(backend, refused=f"ExecuTorch's runtime could not run the OpenVINO program: "
                             f"{short_reason(exc)}")
    got = [t.clone() for t in tree_leaves(list(outputs[-1])) if isinstance(t, torch.Tensor)]
    del outputs, method, program        # the Method before its Program
    with torch.inference_mode():
        qdq = _leaves(qm.converted(*inputs))
        floats = _leaves(qm.float_graph(*inputs)) if qm.float_graph is not None else None
    qdq_db, qdq_reason, identical = compare_outputs(qdq, got)
    if floats is None:
        float_db, float_reason = None, "the program was loaded already quantized: there is no float model"
    else:
        float_db, float_reason, _ = compare_outputs(floats, got)
    latency = Latency(statistics.median(times), _percentile(times, 10), _percentile(times, 90), len(times),
                      max(0, warmup), min(times), max(times))
    return RuntimeReport(backend, runtime=f"executorch {version.__version__}, OpenVINO {_openvino_version()}",
                         latency=latency, sqnr_vs_float_db=float_db, sqnr_vs_float_reason=float_reason,
                         sqnr_vs_qdq_db=qdq_db, sqnr_vs_qdq_reason=qdq_reason, outputs_identical=identical,
                         program_bytes=len(lowering.buffer), lowering_s=lowering.seconds,
                         seconds=time.perf_counter() - start)


def _leaves(value: object) -> list[torch.Tensor]:
    return [t.detach().clone() for t in tree_leaves(value) if isinstance(t, torch.Tensor)]


def _percentile(values: list[float], p: float) -> float:
    data = sorted(values)
    k = (len(data) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (k - lo)


def _openvino_version() -> str:
    import openvino

    return str(getattr(openvino, "__version__", "?")).split("-")[0]

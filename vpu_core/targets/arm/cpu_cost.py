"""The cost of falling back, in time: an Ethos-U program's CPU side measured here, beside Vela's NPU.

    runtime = measure_cpu_side(qm, prepared_gm, runs=20, warmup=3, backend="ethos-u55-128")
    split = arm_split(analysis.nodes, verdict, estimate, runtime)   # split.py: results.ArmSplit

An Ethos-U program cannot run on this machine (its delegates need the NPU or Arm's Corstone
FVP). What runs on the CPU of an Ethos-U system is known though: the ops the partitioner left
out, as ExecuTorch's portable kernels (on a Cortex-M, the same kernels compiled for it), and the
quantize / dequantize at each hand-over between the CPU and a delegate. Those are measured here:
the prepared graph (graph_prep) lowered to an ExecuTorch program WITHOUT delegates — every op a
portable kernel, so the CPU's ops run exactly as in the Ethos-U program, each timed by ETDump
(vpu_core.targets.xnnpack.measure, the `--run` machinery) — and only the CPU side's nodes are read:

    CPU islands   connected groups of ops the verdict leaves on the CPU, each with its measured µs
    hand-offs     the quantize entering each delegate and the dequantize leaving it (INT-only
                  delegates exchange int8 / int16 tensors; the CPU converts)
    NPU           each partition's inference time at the system configuration's clock (Vela)

The times are this x86 CPU's, not a Cortex-M's (which is several times slower): what they show
is which CPU island costs what relative to the others, and against the NPU part.
"""
from __future__ import annotations

import dataclasses
import time
import traceback
from typing import TYPE_CHECKING

import torch
from torch.fx import GraphModule

from vpu_core.targets.xnnpack.lowering import LoweredProgram, RuntimeRefusal, _refuse_missing_kernels, _tensor_leaves

if TYPE_CHECKING:
    from vpu_core.pipeline import QuantizedModel
    from vpu_core.targets.results import GraphKind, RuntimeReport

PORTABLE: GraphKind = "portable kernels (the CPU side of the Ethos-U program, measured on this CPU)"


def portable_program(qm: QuantizedModel, prepared: GraphModule) -> LoweredProgram:
    """`prepared` as an ExecuTorch program of portable kernels only (no partitioner)."""
    from executorch.exir import to_edge_transform_and_lower

    from vpu_core.targets.xnnpack.measure import native_stderr

    with native_stderr():       # the runtime's start-up chatter (cpuinfo)
        import executorch.kernels.quantized  # noqa: F401  (registers the quantize / dequantize kernels)

    from vpu_core import quiet
    from vpu_core.targets.xnnpack.lowering import lowering_refusal
    from vpu_core.targets.xnnpack.op_map import build_op_map, non_delegated_kernels

    start = time.perf_counter()
    try:
        with quiet.torch_chatter():
            exported = torch.export.export(prepared, tuple(qm.example_inputs), strict=False)
            program = to_edge_transform_and_lower(exported).to_executorch()
    except Exception as exc:  # ExecuTorch raises many types; the user gets one line
        raise lowering_refusal(exc, traceback.format_exc()) from None
    program_gm = program.exported_program().graph_module
    _refuse_missing_kernels(program_gm, prepared)
    inputs = tuple(qm.heldout)
    with torch.inference_mode():
        qdq = _tensor_leaves(qm.converted(*inputs))
        floats = _tensor_leaves(qm.float_graph(*inputs)) if qm.float_graph is not None else None
    return LoweredProgram(
        buffer=bytes(program.buffer), op_map=build_op_map(program_gm, prepared), inputs=inputs,
        float_outputs=floats, qdq_outputs=qdq, graph_kind=PORTABLE,
        portable_ops=tuple(sorted({k for k, _ in non_delegated_kernels(program_gm)})),
        lowering_s=time.perf_counter() - start)


def measure_cpu_side(qm: QuantizedModel, prepared: GraphModule, runs: int, warmup: int,
                     backend: str) -> RuntimeReport:
    """The portable program run here (latency of the whole graph on the CPU, per-node times)."""
    from vpu_core.targets.xnnpack.measure import run_program

    try:
        report = run_program(portable_program(qm, prepared), runs, warmup)
    except RuntimeRefusal as refusal:
        from vpu_core.targets.results import RuntimeReport

        return RuntimeReport(backend, refused=refusal.message, refused_op=refusal.op, refused_node=refusal.node)
    return dataclasses.replace(report, backend=backend)

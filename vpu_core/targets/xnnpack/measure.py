"""Run a lowered program with ExecuTorch's Python runtime: latency, outputs, per-op times.

    report = run_program(lowered, runs=20, warmup=3)      # RuntimeReport

1. Latency: the program loaded with `executorch.runtime.Runtime` (no profiling attached),
   `warmup` untimed calls of `forward`, then `runs` calls each timed with perf_counter around
   `Method.execute` (what a Python caller waits for: input hand-over, the run, output copies).
   Median, p10 and p90 over those runs.
2. Per-op times: the program loaded a second time with ETDump enabled and run `runs` + 1 times,
   each profiled run right after a timed one (the two passes see the same load on a shared
   machine, so the per-op times add up to the latency beside them; and neither copy stays hot in
   the caches between its runs, as in an application that does other work between inferences);
   the ETDump written to a
   temporary file and read with `executorch.devtools.Inspector` (µs). Each
   event's first run is dropped (first-call setup), the middle half of the rest averaged
   (`middle_mean`: robust to a run the shared machine interrupted, and XNNPACK logs whole
   microseconds, which a mean resolves below 1 µs where a median cannot). Events become graph
   nodes through the OpMap (vpu_core.targets.xnnpack.op_map): the portable kernel of an instruction
   (OPERATOR_CALL, else its native_call) and every XNNPACK operator inside a delegate call.
3. Numerics: the latency pass's last outputs against the float graph's and the converted Q/DQ
   graph's outputs on the same held-aside batch (vpu_core.analysis.sqnr), and a SHA-256 of each
   output so another process can check the same program gives the same bytes.
"""
from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import statistics
import sys
import tempfile
import time
import traceback
import warnings

from typing import Iterator

import torch

from vpu_core.analysis.sqnr import compare_outputs
from vpu_core.errors import short_reason
from vpu_core.progress import ProgressFn
from vpu_core.targets.xnnpack.lowering import BACKEND, LoweredProgram, RuntimeRefusal
from vpu_core.targets.xnnpack.op_map import OpMap
from vpu_core.targets.results import DelegateTime, Latency, OpTime, OutputDigest, RuntimeReport
from vpu_core.targets.xnnpack.xnn_blob import XNode, align

IDENTICAL = "the program's outputs equal the converted Q/DQ graph's bit for bit"


def run_program(lowered: LoweredProgram, runs: int = 20, warmup: int = 3,
                progress: ProgressFn | None = None) -> RuntimeReport:
    start = time.perf_counter()
    runs, warmup = max(1, int(runs)), max(0, int(warmup))
    latency, outputs, profiled = _runs(lowered, runs, warmup, progress)
    ops, delegates = _profile(lowered, profiled)
    numerics = _numerics(lowered, outputs)
    from executorch import version

    return RuntimeReport(
        backend=BACKEND, runtime=f"executorch {version.__version__}", threads=_threads(),
        graph_kind=lowered.graph_kind, latency=latency, ops=ops, delegates=delegates,
        outputs=tuple(_digest(t) for t in outputs), profiled_runs=runs,
        program_bytes=len(lowered.buffer), portable_ops=lowered.portable_ops,
        folded_biases=lowered.folded_biases, lowering_s=lowered.lowering_s,
        seconds=time.perf_counter() - start, **numerics)


def _method(lowered: LoweredProgram, etdump: bool = False):
    from executorch.runtime import Runtime

    with native_stderr() as chatter:
        try:
            program = Runtime.get().load_program(lowered.buffer, enable_etdump=etdump)
            return program, program.load_method("forward")
        except Exception as exc:
            failure = exc, traceback.format_exc()
    raise load_refusal(failure[0], chatter.getvalue(), lowered.op_map, failure[1]) from None


_XNN_BUILD = re.compile(r"Failed to create (\w+) node (\d+) with code: (\w+)")
_MISSING = re.compile(r"Missing operator: \[\d+\] ([\w:.]+)")


def load_refusal(exc: BaseException, log: str, op_map: OpMap, detail: str = "") -> RuntimeRefusal:
    """One sentence for a program the runtime would not load, naming the op from the runtime's log:
    an XNNPACK node it cannot build (traced back to its graph node through the delegates' xnodes)
    or an operator without a kernel; else the runtime's own message."""
    found = _XNN_BUILD.search(log)
    if found:
        kind, handle, status = found.group(1), int(found.group(2)), found.group(3)
        # XNNPACK names the node by its debug handle ("copy", "BMM", "StaticConstantPad", …): of the
        # xnodes with that handle, the one whose type reads like the name, else the first
        named = [(t, n) for d in op_map.delegates for (t, n), h in zip(d.xnodes, d.handles) if h == handle]
        like = [n for t, n in named if kind.lower() in t.lower()]
        node = (like or [n for _, n in named] or [None])[0]
        where = f" (node {node})" if node else ""
        return RuntimeRefusal(f"XNNPACK cannot build the {kind} operator{where} it was given ({status}), so "
                              "the lowered program does not load on this CPU.", detail + log, op=kind, node=node)
    missing = _MISSING.search(log)
    if missing:
        return RuntimeRefusal(f"ExecuTorch's runtime has no kernel for {missing.group(1)}, so the lowered "
                              "program does not load on this CPU.", detail + log, op=missing.group(1))
    return RuntimeRefusal(f"ExecuTorch's runtime could not load the program: {short_reason(exc)}", detail + log)


@contextlib.contextmanager
def native_stderr() -> Iterator[io.StringIO]:
    """Capture what the runtime writes to stderr meanwhile, natively (file descriptor 2) or through
    Python's sys.stderr (ExecuTorch's cpuinfo reports the files it cannot open when its threadpool
    starts): stderr is for our one-line errors."""
    captured = io.StringIO()
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            with contextlib.redirect_stderr(captured):
                yield captured
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            captured.write(sink.read().decode("utf-8", "replace"))


def _execute(method, inputs: tuple) -> list:
    try:
        return list(method.execute(inputs))
    except Exception as exc:
        raise RuntimeRefusal(f"ExecuTorch's runtime failed to run the program: {short_reason(exc)}",
                             traceback.format_exc()) from None


def _runs(lowered: LoweredProgram, runs: int, warmup: int, progress) -> tuple[Latency, list, object]:
    """The timed runs and the profiled runs, interleaved: on a shared machine both passes then see
    the same load, so the per-op times add up to the latency they are shown beside."""
    _program, method = _method(lowered)
    profiled = _method(lowered, etdump=True)
    outputs = []
    for _ in range(warmup):
        outputs = _execute(method, lowered.inputs)
    _execute(profiled[1], lowered.inputs)               # its first run is dropped from every event
    times = []
    for i in range(runs):
        t0 = time.perf_counter()
        outputs = _execute(method, lowered.inputs)
        times.append((time.perf_counter() - t0) * 1e3)
        _execute(profiled[1], lowered.inputs)
        if progress is not None:
            progress("run", 0.9 * (i + 1) / runs)
    return Latency(statistics.median(times), _percentile(times, 10), _percentile(times, 90), runs, warmup,
                   min(times), max(times)), [t for t in outputs if isinstance(t, torch.Tensor)], profiled[0]


def _percentile(values: list[float], p: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    data = sorted(values)
    k = (len(data) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(data) - 1)
    return data[lo] + (data[hi] - data[lo]) * (k - lo)


def _profile(lowered: LoweredProgram, program) -> tuple[tuple[OpTime, ...], tuple[DelegateTime, ...]]:
    """Per-node and per-delegate times from the ETDump of `program` (the profiled runs)."""
    with tempfile.TemporaryDirectory(prefix="vpu-etdump-") as folder:
        path = os.path.join(folder, "run.etdp")
        program.write_etdump_result_to_file(path, os.path.join(folder, "debug.bin"))
        events = _events(path)
    return _map_events(lowered, events)


def _events(path: str) -> list[tuple[str, int | None, bool, float]]:
    """(name, instruction, inside a delegate, µs per run) of every ETDump event of the runs."""
    from executorch.devtools import Inspector
    from executorch.devtools.inspector import TimeScale

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inspector = Inspector(etdump_path=path, target_time_scale=TimeScale.US)
    out = []
    for block in inspector.event_blocks:
        if block.name != "Execute":
            continue
        for ev in block.events:
            raw = list(ev.perf_data.raw) if ev.perf_data is not None else []
            if not raw:
                continue
            out.append((ev.name, ev._instruction_id, ev.delegate_debug_identifier is not None,
                        middle_mean(raw[1:] if len(raw) > 1 else raw)))
    return out


def middle_mean(values: list[float]) -> float:
    """Mean of the middle half (the interquartile mean): a run the machine interrupted does not
    move it, and unlike a median of whole microseconds it still resolves sub-µs operators."""
    data = sorted(values)
    cut = len(data) // 4
    kept = data[cut:len(data) - cut] or data
    return sum(kept) / len(kept)


def _map_events(lowered: LoweredProgram, events) -> tuple[tuple[OpTime, ...], tuple[DelegateTime, ...]]:
    """Events -> (per node times in graph order, per delegate times); see the module docstring."""
    op_map = lowered.op_map
    inside: dict[int, list[tuple[str, float]]] = {}
    calls: dict[int, float] = {}
    portable: dict[int, dict[str, float]] = {}
    for name, instruction, delegated, us in events:
        if instruction is None:
            continue
        if delegated:
            inside.setdefault(instruction, []).append((name, us))
        elif name == "DELEGATE_CALL":
            calls[instruction] = us
        elif name == "OPERATOR_CALL" or name.startswith("native_call_"):
            portable.setdefault(instruction, {})[name] = us
    acc = _Charges()
    for instruction, found in portable.items():
        node, kernel = op_map.kernels.get(instruction, (None, ""))
        acc.charge(node, found.get("OPERATOR_CALL", max(found.values())), kernel, None)
    delegates = []
    for d in op_map.delegates:
        evs = inside.get(d.instruction, [])
        match = align([n for n, _ in evs], [XNode(t, None) for t, _ in d.xnodes])
        nodes = []
        for (name, us), j in zip(evs, match):
            node = d.xnodes[j][1] if j is not None else None
            acc.charge(node, us, name, d.index)
            nodes.append(node)
        dt = DelegateTime(d.index, d.instruction, calls.get(d.instruction, 0.0), sum(us for _, us in evs),
                          len(evs), tuple(dict.fromkeys(n for n in nodes if n is not None)))
        for node in dt.nodes:
            acc.overhead[node] = acc.overhead.get(node, 0.0) + dt.overhead_us / len(dt.nodes)
        delegates.append(dt)
    order = op_map.order
    ops = tuple(OpTime(n, acc.times[n], tuple(acc.kernels[n]), acc.where.get(n), acc.overhead.get(n, 0.0))
                for n in sorted(acc.times, key=lambda n: order.get(n, len(order))))
    return ops, tuple(delegates)


class _Charges:
    """Times, kernels and delegate of each node, summed over the events charged to it."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}
        self.kernels: dict[str, list[str]] = {}
        self.where: dict[str, int] = {}
        self.overhead: dict[str, float] = {}

    def charge(self, node: str | None, us: float, kernel: str, delegate: int | None) -> None:
        if node is None:
            return
        self.times[node] = self.times.get(node, 0.0) + us
        self.kernels.setdefault(node, []).append(kernel)
        if delegate is not None:
            self.where.setdefault(node, delegate)


def _numerics(lowered: LoweredProgram, outputs: list) -> dict:
    qdq_db, qdq_reason, identical = compare_outputs(lowered.qdq_outputs, outputs)
    if identical:
        qdq_reason = IDENTICAL
    if lowered.float_outputs is None:
        float_db, float_reason = None, "the program was loaded already quantized: there is no float model"
    else:
        float_db, float_reason, _ = compare_outputs(lowered.float_outputs, outputs)
    return {"sqnr_vs_float_db": float_db, "sqnr_vs_float_reason": float_reason,
            "sqnr_vs_qdq_db": qdq_db, "sqnr_vs_qdq_reason": qdq_reason, "outputs_identical": identical}


def _digest(t: torch.Tensor) -> OutputDigest:
    data = t.detach().contiguous().cpu()
    raw = data.reshape(-1).view(torch.uint8)
    as_float = data.double() if data.numel() else torch.zeros(1, dtype=torch.float64)
    return OutputDigest(tuple(data.shape), str(data.dtype).removeprefix("torch."),
                        hashlib.sha256(raw.numpy().tobytes()).hexdigest(),
                        float(as_float.sum()), float(as_float.abs().max()))


def _threads() -> int:
    try:
        from executorch.extension.pybindings.portable_lib import _threadpool_get_thread_count

        with native_stderr():
            return int(_threadpool_get_thread_count())
    except Exception:   # an older runtime without the call: unknown
        return 0

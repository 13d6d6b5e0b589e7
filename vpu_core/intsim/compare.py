"""Integer simulation against the Q/DQ graph, layer by layer, on the held-aside batches.

Three passes over the converted graph run in lockstep, node by node (values are freed after their
last use, so memory stays that of a few forward passes):
- ref: the Q/DQ graph itself (torch.fx.Interpreter), the float emulation;
- free: the integer executor over the whole graph (VPU in integers, CPU in float): the deployed result;
- local: every VPU op again in integers, but fed with the Q/DQ graph's own int8 inputs, so that a
  layer's difference is its own and not inherited from the layers before it.
At every quantize after a VPU op (a layer's requantization) the int8 outputs are compared.
The end-to-end SQNR compares the free pass's graph outputs with the float model's.
Each held-aside batch is one such run; a layer's counts (elements, differences, saturations) are
summed over the runs and every SQNR sums its signal and noise energies over them (SqnrSum).
"""
from __future__ import annotations

import math
import time
from dataclasses import replace
from typing import Any, Callable, Mapping

import torch
from torch.fx import GraphModule, Interpreter, Node
from torch.utils._pytree import tree_leaves

from vpu_core.analysis.partition import partition
from vpu_core.analysis.qgraph import QGraph, is_getitem, is_op
from vpu_core.analysis.results import Placement
from vpu_core.analysis.sqnr import OutputsSum
from vpu_core.fx_utils import op_name
from vpu_core.intsim.executor import ConstInt, IntExecutor, Record, Settings
from vpu_core.intsim.prereq import refusal
from vpu_core.intsim.results import IntSimLayer, IntSimReport
from vpu_core.intsim.values import quantized_value
from vpu_core.hardware.ops import op_matches
from vpu_core.profile import HardwareProfile
from vpu_core.qdq import is_dequantize, is_quantize

ProgressFn = Callable[[str, float], None]


def simulate_graph(converted: GraphModule, profile: HardwareProfile, batches: list[tuple],
                   float_graph: GraphModule | None = None,
                   progress: ProgressFn | None = None) -> IntSimReport:
    """The integer simulation over `batches` (the held-aside calls, each at the model's batch)."""
    start = time.perf_counter()
    settings = Settings.of(profile)
    g = QGraph(converted, profile)
    assignment = partition(g).assignment
    base: dict[str, Any] = dict(rounding=settings.rounding, accumulator_bits=settings.accumulator_bits,
                                avg_pool_divisor=settings.avg_pool_divisor, reciprocal_bits=settings.reciprocal_bits)
    refused = refusal(g, assignment)
    if refused is not None:
        return IntSimReport(**base, refused=refused.sentence, refused_rule=refused.rule,
                            refused_node=refused.node, seconds=time.perf_counter() - start)
    layers: list[IntSimLayer] = []
    float_ops: dict[str, None] = {}
    vs_float, vs_qdq, qdq_vs_float = OutputsSum(), OutputsSum(), OutputsSum()
    identical = True
    consts: dict[Node, ConstInt] = {}
    with torch.inference_mode():
        for k, batch in enumerate(batches):
            run = _Lockstep(g, assignment, settings, batch, consts)
            outputs, qdq_outputs = run.all(_share(progress, k, len(batches)))
            layers = [_merged(a, b) for a, b in zip(layers, run.layers)] if layers else list(run.layers)
            float_ops.update(dict.fromkeys(run.free.float_ops))
            identical = identical and _identical(qdq_outputs, outputs)
            vs_qdq.add(qdq_outputs, outputs)
            if float_graph is not None:
                reference = float_graph(*batch)
                vs_float.add(reference, outputs)
                qdq_vs_float.add(reference, qdq_outputs)
    return IntSimReport(
        **base, layers=tuple(layers), float_ops=tuple(float_ops),
        sqnr_db=_finite(vs_float) if float_graph is not None else None,
        outputs_identical=identical, sqnr_vs_qdq_db=None if identical else _finite(vs_qdq),
        qdq_sqnr_db=_finite(qdq_vs_float) if float_graph is not None else None,
        seconds=time.perf_counter() - start, samples=sum(_samples(b) for b in batches))


def _samples(batch: tuple) -> int:
    from vpu_core.analysis.results import batch_samples

    first = next((t for t in batch if isinstance(t, torch.Tensor)), None)
    return batch_samples(tuple(first.shape) if first is not None else ())


def _share(progress: ProgressFn | None, k: int, calls: int) -> ProgressFn | None:
    if progress is None:
        return None
    return lambda stage, fraction: progress(stage, (k + fraction) / calls)


def _merged(a: IntSimLayer, b: IntSimLayer) -> IntSimLayer:
    """One layer's comparison over two calls: counts summed, histograms added."""
    elements = a.elements + b.elements
    hist, drift_hist = _added(a.diff_hist, b.diff_hist), _added(a.drift_hist, b.drift_hist)
    return replace(a, elements=elements, max_abs_lsb=_max_abs(hist), mismatch_frac=_differing(hist, elements),
                   saturated=a.saturated + b.saturated, clipped=a.clipped + b.clipped, diff_hist=hist,
                   drift_max_lsb=_max_abs(drift_hist), drift_mismatch_frac=_differing(drift_hist, elements),
                   drift_hist=drift_hist, window=max(a.window, b.window),
                   flags=tuple(sorted(set(a.flags) | set(b.flags))))


def _added(a: tuple[tuple[int, int], ...], b: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    counts: dict[int, int] = dict(a)
    for d, c in b:
        counts[d] = counts.get(d, 0) + c
    return tuple(sorted(counts.items()))


def run_integer(converted: GraphModule, profile: HardwareProfile, batch: tuple) -> object:
    """The graph's outputs as the VPU computes them (what a deployment returns), as graph values."""
    g = QGraph(converted, profile)
    assignment = partition(g).assignment
    with torch.inference_mode():
        return _Lockstep(g, assignment, Settings.of(profile), batch).all(None)[0]


def layer_points(g: QGraph, assignment: Mapping[str, Placement]) -> dict[str, tuple[Node, tuple[str, ...]]]:
    """quantize node name -> (the layer's op, (op, fused activation, quantize)) for every quantize
    the VPU applies to a value it computed."""
    out: dict[str, tuple[Node, tuple[str, ...]]] = {}
    seen: set[Node] = set()
    for q in g.nodes:
        if not is_quantize(q) or assignment.get(q.name, "cpu") == "cpu":
            continue
        src = q.args[0]
        if not isinstance(src, Node) or assignment.get(src.name, "cpu") == "cpu" or \
                not (is_op(src) or is_getitem(src)):
            continue
        chain: tuple[str, ...] = (src.name, q.name)
        inner = src.args[0] if src.args else None
        if _is_activation(g, src) and isinstance(inner, Node) and is_op(inner) and len(inner.users) == 1 \
                and assignment.get(inner.name, "cpu") != "cpu":
            src, chain = inner, (inner.name, src.name, q.name)
        if src not in seen:
            seen.add(src)
            out[q.name] = (src, chain)
    return out


def _is_activation(g: QGraph, node: Node) -> bool:
    packet, _, overload = op_name(node).partition(".")
    return op_matches(f"{packet.rstrip('_')}.{overload}", g.profile.fused_activations)


def _local_reader(g: QGraph, local_env: dict[Node, Any], ref_env: dict[Node, Any]) -> Callable[[Node], Any]:
    """How the local pass reads an input: its own value, else the Q/DQ graph's, a dequantized
    activation as the int8 it stands for. (A closure over the two dicts, not a method: a method
    would tie the executor and its lockstep in a cycle that only a full collection frees, with
    every integer weight inside.)"""

    def read(node: Node) -> Any:
        if node in local_env:
            return local_env[node]
        if is_dequantize(node) and node not in g.constants:
            qp = g.qp[node]           # the Q/DQ graph's int8 input, recovered exactly (2^k scale)
            q = torch.round(ref_env[node] * (1.0 / qp.scales[0])) + qp.zero_points[0]
            value = quantized_value(q, qp.scales[0], qp.zero_points[0], qp.quant_min, qp.quant_max, qp.dtype)
            local_env[node] = value   # a residual reads it twice
            return value
        return ref_env[node]

    return read


class _Lockstep:
    def __init__(self, g: QGraph, assignment: Mapping[str, Placement], settings: Settings, batch: tuple,
                 consts: dict[Node, ConstInt] | None = None) -> None:
        self.g, self.assignment = g, assignment
        self.points = layer_points(g, assignment)
        self.ref = Interpreter(g.gm)
        self.ref.env = {}
        self.free_env: dict[Node, object] = {}
        self.local_env: dict[Node, object] = {}
        consts = {} if consts is None else consts        # one call alone: its own weights
        self.free = IntExecutor(g, assignment, settings, self.free_env.__getitem__, consts)
        self.local = IntExecutor(g, assignment, settings, _local_reader(g, self.local_env, self.ref.env), consts)
        inputs = g.gm.graph.process_inputs(*batch)
        self.ref.args_iter, self.free.interp.args_iter = iter(inputs), iter(list(inputs))
        self.layers: list[IntSimLayer] = []

    def all(self, progress: ProgressFn | None):
        nodes = self.g.nodes
        outputs = qdq_outputs = None
        for i, node in enumerate(nodes):
            if progress is not None and i % 32 == 0:
                progress("int_sim", i / len(nodes))
            # the integer passes read the Q/DQ values of this node's inputs before the reference
            # runs it (an in-place op there would change them)
            self.free_env[node] = self.free.run(node)
            if self._local_runs(node):
                self.local_env[node] = self.local.run(node)
            self.ref.env[node] = self.ref.run_node(node)
            if node.name in self.points:
                self.layers.append(self._compare(node))
            if node.op == "output":
                outputs, qdq_outputs = self.free_env[node], self.ref.env[node]
            for dead in self.ref.user_to_last_uses.get(node, []):
                for env in (self.ref.env, self.free_env, self.local_env):
                    env.pop(dead, None)
        # Nothing of this call outlives it (the envs held every output of the graph's last node).
        for env in (self.ref.env, self.free_env, self.local_env):
            env.clear()
        return outputs, qdq_outputs

    def _local_runs(self, node: Node) -> bool:
        if self.assignment.get(node.name, "cpu") == "cpu" or node.op != "call_function":
            return False
        return is_op(node) or is_getitem(node) or node.name in self.points


    def _compare(self, q: Node) -> IntSimLayer:
        op, chain = self.points[q.name]
        ref = self.ref.env[q].to(torch.int32)        # int8 values: int32 differences are exact
        local, free = _ints(self.local_env[q]), _ints(self.free_env[q])
        diff, drift = local - ref, free - ref
        rec = Record()
        for name in chain:
            r = self.local.records.get(name)
            if r is not None:
                rec.saturated += r.saturated
                rec.clipped += r.clipped
                rec.window = max(rec.window, r.window)
                rec.flags |= r.flags
        if op.name in self.local.float_ops:
            rec.flags.add("float")
        hist, drift_hist = _hist(diff), _hist(drift)       # max and share follow from the counts
        return IntSimLayer(
            node=op.name, op=op_name(op), nodes=chain, elements=diff.numel(),
            max_abs_lsb=_max_abs(hist), mismatch_frac=_differing(hist, diff.numel()),
            saturated=rec.saturated, clipped=rec.clipped, diff_hist=hist,
            drift_max_lsb=_max_abs(drift_hist), drift_mismatch_frac=_differing(drift_hist, diff.numel()),
            drift_hist=drift_hist, window=rec.window, flags=tuple(sorted(rec.flags)))


def _ints(value) -> torch.Tensor:
    data = getattr(value, "data", value)     # an IntValue, or a tensor when the op ran in float
    return data.to(torch.int32)


def _max_abs(hist) -> int:
    return max((abs(d) for d, _ in hist), default=0)


def _differing(hist, elements: int) -> float:
    return sum(c for d, c in hist if d) / max(elements, 1)


def _hist(diff: torch.Tensor) -> tuple[tuple[int, int], ...]:
    if not diff.numel():
        return ()
    low, high = (int(v) for v in torch.aminmax(diff))
    if low == high:                            # the usual layer: one value (0) everywhere
        return ((low, diff.numel()),)
    if high - low > 4096:                      # a wild layer: sort instead of counting bins
        values, counts = torch.unique(diff, return_counts=True)
        return tuple((int(v), int(c)) for v, c in zip(values.tolist(), counts.tolist()) if c)
    counts = torch.bincount((diff - low).flatten(), minlength=high - low + 1)
    return tuple((low + i, int(c)) for i, c in enumerate(counts.tolist()) if c)


def _identical(ref, test) -> bool:
    ref = [t for t in tree_leaves(ref) if isinstance(t, torch.Tensor)]
    test = [t for t in tree_leaves(test) if isinstance(t, torch.Tensor)]
    return len(ref) == len(test) and all(torch.equal(a, b) for a, b in zip(ref, test))


def _finite(total: OutputsSum) -> float | None:
    value = total.result().db
    return value if value is not None and math.isfinite(value) else None   # None: no signal

"""SQNR of the quantized graph against the float graph: per layer and end to end.

SQNR = 10·log10(Σf² / Σ(f − q)²), in dB, over floating-point values only (int64 ids and bool
masks are never quantized). It is not a number to show when the float reference carries no signal
(constant or numerically zero), when either side holds inf / NaN, or when nothing quantized
reaches the value (bit-identical outputs): then the value is None with the reason, never a capped
±200 dB that reads as perfect. Sums of squares fall back to float64 where float32 overflows
(values above ~1.8e19).
End to end, every float output counts (all leaves of a tuple / dict / ModelOutput, as one signal).

qm.float_graph and qm.converted run once each through torch.fx.Interpreter on the same batch (a
held-aside batch, which calibration never saw), in lockstep, and their node outputs are compared by
node name as they are produced (convert keeps op names; nothing is stored, so memory stays that
of one forward pass); the graph outputs give the end-to-end SQNR of the same pass. Over several held-aside calls
(graph_sqnr_calls) each figure sums its signal and noise energies over the calls (SqnrSum).
For an op whose output is quantized, the quantized value is that of the dequantize after its
quantize (what the next op reads). prepare_pt2e folds batch norms into the conv before them, so a
float conv followed by a batch_norm that no longer exists in the converted graph is compared
through that batch_norm's output.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator

import torch
from torch.fx import GraphModule, Interpreter, Node
from torch.utils._pytree import tree_leaves

from vpu_core.analysis.qgraph import is_op
from vpu_core.fx_utils import op_name
from vpu_core.qdq import is_dequantize, is_quantize

_FOLDED = ("batch_norm", "_native_batch_norm_legit_no_training", "_native_batch_norm_legit")
ZERO_ABS = 1e-6        # a float reference whose every |value| is below this is "numerically zero"
CONSTANT_REL = 1e-6    # … and one whose spread is below this fraction of its magnitude is constant


@dataclass(frozen=True)
class Sqnr:
    db: float | None      # None: not meaningful, see `reason`
    reason: str = ""


def sqnr(ref: torch.Tensor, test: torch.Tensor) -> Sqnr:
    """SQNR of `test` against the float reference `ref`, or why there is none."""
    return SqnrSum().add(ref, test).result()


class SqnrSum:
    """One SQNR over several calls (held-aside batches): the signal and noise energies are summed
    over the calls, as if their values were one tensor (never an average of dB: a call with little
    signal would weigh as much as one with a lot). `add` each (ref, test) pair, then `result`."""

    def __init__(self) -> None:
        self.signal = self.noise = self.peak = 0.0
        self.numel = self.test_numel = self.ref_bad = self.test_bad = 0
        self.low, self.high, self.first = math.inf, -math.inf, 0.0

    def add(self, ref: torch.Tensor, test: torch.Tensor) -> SqnrSum:
        # The energies are the finiteness checks: a sum of squares is finite exactly when every
        # value is (see _energy), so the values are counted for inf / NaN only when a sum is not
        # (a pass over each tensor fewer: a fifth of the SQNR's time on ViT-B/16).
        ref = ref.detach().float().reshape(-1)
        if ref.numel() == 0:
            return self
        if not self.numel:
            self.first = float(ref[0])
        self.numel += ref.numel()
        signal = _energy(ref)
        if self.ref_bad or not math.isfinite(signal):
            self.ref_bad += _non_finite(ref)
            return self
        low, high = (float(v) for v in torch.aminmax(ref))
        self.low, self.high = min(self.low, low), max(self.high, high)
        self.peak = max(self.peak, -self.low, self.high)
        test = test.detach().float().reshape(-1)
        self.test_numel += test.numel()
        noise = _energy(ref - test) if not self.test_bad else math.inf
        if not math.isfinite(noise):
            self.test_bad += _non_finite(test)
            if self.test_bad:
                return self
            noise = _energy(ref.double() - test.double())   # finite values whose difference overflows float32
        self.signal += signal
        self.noise += noise
        return self

    def result(self) -> Sqnr:
        if self.numel == 0:
            return Sqnr(None, "there is no floating-point value to compare")
        if self.ref_bad:
            return Sqnr(None, f"the float reference holds {self.ref_bad} non-finite value(s) (inf / NaN) "
                              f"of {self.numel}: no noise power can be measured against it")
        if self.peak <= ZERO_ABS:
            return Sqnr(None, f"the float reference is numerically zero (max |x| = {self.peak:.1e}): "
                              "no signal to measure quantization noise against")
        if self.high - self.low <= CONSTANT_REL * self.peak:
            return Sqnr(None, f"the float reference is constant ({self.first:.4g} everywhere): "
                              "it carries no signal to measure quantization noise against")
        if self.test_bad:
            return Sqnr(None, f"the quantized graph computes {self.test_bad} non-finite value(s) (inf / "
                              f"NaN) of {self.test_numel} where the float reference is finite")
        if self.noise == 0.0:
            return Sqnr(None, "the quantized values equal the float ones exactly: no quantized op "
                              "reaches them")
        return Sqnr(10.0 * math.log10(self.signal / self.noise))


def _energy(x: torch.Tensor) -> float:
    """Σx². A float32 BLAS dot product (~1e-6 relative error, far below what a dB figure shows,
    and several times faster than float64 on large activations), again in float64 when float32
    overflows: above |x| ≈ 1.8e19 a square alone is past float32's 3.4e38 (a float64 sum of
    float32 squares cannot overflow)."""
    energy = float(torch.dot(x, x))
    if not math.isfinite(energy):
        x = x.double()
        energy = float(torch.dot(x, x))
    return energy


def _non_finite(x: torch.Tensor) -> int:
    return int((~torch.isfinite(x)).sum())


def compare_outputs(reference: list, outputs: list) -> tuple[float | None, str, bool]:
    """(SQNR dB or None, why None, identical) of a program's outputs against `reference`, over the
    floating-point outputs of the same shapes (what every target's run reports)."""
    pairs = [(r, t) for r, t in zip(reference, outputs)
             if r.is_floating_point() and t.is_floating_point() and r.shape == t.shape]
    if not pairs:
        return None, "the program has no floating-point output to compare", False
    ref = torch.cat([r.flatten().float() for r, _ in pairs])
    test = torch.cat([t.flatten().float() for _, t in pairs])
    if torch.equal(ref, test):
        return None, "the outputs are identical", True
    result = sqnr(ref, test)
    return result.db, result.reason, False


def sqnr_db(ref: torch.Tensor, test: torch.Tensor) -> float | None:
    """SQNR in dB, or None when it is not meaningful (see `sqnr`)."""
    return sqnr(ref, test).db


def _mutated(gm: GraphModule) -> set[str]:
    """Nodes whose output a later in-place op (relu_) overwrites: those outputs must be copied."""
    out = set()
    for n in gm.graph.nodes:
        if n.op == "call_function" and isinstance(n.target, torch._ops.OpOverload) \
                and n.target._schema.is_mutable and n.args and isinstance(n.args[0], Node):
            out.add(n.args[0].name)
    return out


def node_values(gm: GraphModule, args: tuple, constants: CallConstants | None = None) -> Iterator[tuple[Node, object]]:
    """torch.fx.Interpreter, one node at a time: yields (node, value) as each node runs, and
    frees values after their last use exactly as Interpreter.run does. `constants` (kept across
    calls of `gm`): its call-independent ops are computed in the first call, read back in the next."""
    interp = Interpreter(gm)
    interp.env = {}
    interp.args_iter = iter(gm.graph.process_inputs(*args))
    kept, fixed = (constants.values, constants.names) if constants is not None else ({}, frozenset())
    for node in gm.graph.nodes:
        if node.name in kept:
            value = kept[node.name]
        else:
            value = interp.run_node(node)
            if node.name in fixed:
                kept[node.name] = value
        interp.env[node] = value
        yield node, value
        for dead in interp.user_to_last_uses.get(node, []):
            del interp.env[dead]


class CallConstants:
    """A graph's call-independent ops (call_independent) and, once a call computed them, their values."""

    def __init__(self, gm: GraphModule) -> None:
        self.names = frozenset(call_independent(gm))
        self.values: dict[str, object] = {}


def call_independent(gm: GraphModule) -> set[str]:
    """The ops computed from the module's attributes alone — a weight's dequantize_per_channel,
    the same in every call: a pure (not mutating, not random) op whose inputs are attributes or
    such ops. Converted graphs dequantize every weight on every call; over the 8 held-aside calls
    of a batch-1 model that was a fifth of the SQNR's time (ViT-B/16), for the float size of the
    weights held meanwhile."""
    changed = _mutated(gm)          # a value a later in-place op changes differs from call to call
    constant, fixed = set(), set()
    for node in gm.graph.nodes:
        if node.name in changed:
            continue
        if node.op == "get_attr":
            constant.add(node.name)
        elif node.op == "call_function" and node.all_input_nodes and _pure(node) \
                and all(a.name in constant for a in node.all_input_nodes):
            constant.add(node.name)
            fixed.add(node.name)
    return fixed


def _pure(node: Node) -> bool:
    target = node.target
    return isinstance(target, torch._ops.OpOverload) and not target._schema.is_mutable \
        and torch.Tag.nondeterministic_seeded not in target.tags


class _FloatCursor:
    """Advances the float graph just far enough to produce the value a comparison needs.

    Both graphs come from the same export, so their orders agree and a float value is usually
    compared right after it is computed, before a later in-place op (relu_) could change it; one
    computed ahead of its comparison is copied if such an op follows.
    """

    def __init__(self, gm: GraphModule, batch: tuple, wanted: set[str], recorded: dict | None = None) -> None:
        self.steps, self.wanted, self.mutated = node_values(gm, batch), wanted, _mutated(gm)
        self.ahead: dict[str, torch.Tensor] = dict(recorded or {})
        self.output = (recorded or {}).get(_OUTPUT)
        if recorded is not None:            # every value is there already: never run the graph
            self.steps = iter(())

    def value(self, name: str):
        if name in self.ahead:
            return self.ahead.pop(name)
        for node, value in self.steps:
            if node.op == "output":
                self.output = value
            elif node.name == name:
                return value
            elif node.name in self.wanted and isinstance(value, torch.Tensor):
                self.ahead[node.name] = value.clone() if node.name in self.mutated else value
        return None

    def finish(self):
        for node, value in self.steps:
            if node.op == "output":
                self.output = value
        return self.output


_OUTPUT = "\0output"


def record_float_values(float_gm: GraphModule, batch: tuple, limit_bytes: int = 1 << 30) -> dict | None:
    """Every tensor the float graph computes on `batch` (one pass), for several `graph_sqnr`
    calls against the same float graph and batch (vpu_core.whatif); None above `limit_bytes`."""
    mutated, out, total = _mutated(float_gm), {}, 0
    with torch.inference_mode():
        for node, value in node_values(float_gm, batch):
            if node.op == "output":
                out[_OUTPUT] = value
            elif isinstance(value, torch.Tensor):
                total += value.numel() * value.element_size()
                if total > limit_bytes:
                    return None
                out[node.name] = value.clone() if node.name in mutated else value
    return out


def _float_counterpart(node: Node, converted_names: set[str]) -> Node:
    """Follow a float op into the batch norm that was folded into it."""
    while len(node.users) == 1:
        user = next(iter(node.users))
        if user.op != "call_function" or user.name in converted_names or \
                op_name(user).split(".")[0] not in _FOLDED:
            break
        node = user
        if len(node.users) == 1 and getattr(next(iter(node.users)).target, "__name__", "") == "getitem":
            node = next(iter(node.users))
    return node


def quantized_value_node(node: Node) -> Node:
    """The node holding what the next op reads of `node`: its quantize → dequantize, else itself."""
    for q in node.users:
        if is_quantize(q):
            for dq in q.users:
                if is_dequantize(dq):
                    return dq
    return node


def graph_sqnr_db(float_gm: GraphModule, converted: GraphModule, batch: tuple,
                  float_values: dict | None = None) -> tuple[dict[str, float], float | None]:
    """(node name -> SQNR of that op's output, end-to-end SQNR of the graph outputs) on `batch`;
    see `graph_sqnr` (this keeps only the numbers)."""
    layers, e2e = graph_sqnr(float_gm, converted, batch, float_values)
    return layers, e2e.db


def graph_sqnr(float_gm: GraphModule, converted: GraphModule, batch: tuple,
               float_values: dict | None = None) -> tuple[dict[str, float], Sqnr]:
    """(node name -> SQNR of that op's output, end-to-end Sqnr of the graph outputs) on `batch`,
    from one Interpreter pass per graph (`float_values`: record_float_values of float_gm on
    `batch`, when several quantized graphs are compared with the same float pass). Layers whose
    SQNR is not meaningful are left out."""
    return graph_sqnr_calls(float_gm, converted, [batch], [float_values])


def graph_sqnr_calls(float_gm: GraphModule, converted: GraphModule, batches: list[tuple],
                     float_values: list[dict | None] | None = None) -> tuple[dict[str, float], Sqnr]:
    """`graph_sqnr` over several calls (the held-aside batches, each at the model's batch): every
    figure sums its signal and noise energies over the calls (SqnrSum), one pass per graph and call."""
    converted_names = {n.name for n in converted.graph.nodes}
    float_nodes = {n.name: n for n in float_gm.graph.nodes}
    pairs = {}
    for node in converted.graph.nodes:
        if is_op(node) and node.name in float_nodes and isinstance(node.meta.get("val"), torch.Tensor):
            pairs[node.name] = (_float_counterpart(float_nodes[node.name], converted_names).name,
                                quantized_value_node(node).name)
    by_node: dict[str, list[tuple[str, str]]] = {}
    for name, (float_name, node_name) in pairs.items():
        by_node.setdefault(node_name, []).append((name, float_name))
    sums: dict[str, SqnrSum] = {}
    outputs = OutputsSum()
    recorded = list(float_values or [])
    constants = CallConstants(converted) if len(batches) > 1 else None
    with torch.inference_mode():
        for i, batch in enumerate(batches):
            test = None
            ref = _FloatCursor(float_gm, batch, {a for a, _ in pairs.values()},
                               recorded[i] if i < len(recorded) else None)
            for node, value in node_values(converted, batch, constants):
                if node.op == "output":
                    test = value
                for name, float_name in by_node.get(node.name, ()):
                    f = ref.value(float_name)
                    if isinstance(value, torch.Tensor) and isinstance(f, torch.Tensor) \
                            and f.shape == value.shape and f.is_floating_point():
                        sums.setdefault(name, SqnrSum()).add(f, value)
            outputs.add(ref.finish(), test)
    layers = {name: db for name, total in sums.items() if (db := total.result().db) is not None}
    return layers, outputs.result()


class OutputsSum:
    """Every floating-point output leaf of several calls as one signal (see outputs_sqnr)."""

    def __init__(self) -> None:
        self.total, self.seen = SqnrSum(), False

    def add(self, ref: object, test: object) -> None:
        pairs = [(r, t) for r, t in zip(tree_leaves(ref), tree_leaves(test))
                 if isinstance(r, torch.Tensor) and isinstance(t, torch.Tensor)
                 and r.is_floating_point() and r.shape == t.shape]
        if pairs:
            self.seen = True
            self.total.add(torch.cat([r.flatten() for r, _ in pairs]), torch.cat([t.flatten() for _, t in pairs]))

    def result(self) -> Sqnr:
        if not self.seen:
            return Sqnr(None, "the model has no floating-point output to compare")
        return self.total.result()


def outputs_sqnr(ref: object, test: object) -> Sqnr:
    """SQNR over every floating-point output leaf (tuples, dicts, ModelOutput dataclasses)."""
    total = OutputsSum()
    total.add(ref, test)
    return total.result()

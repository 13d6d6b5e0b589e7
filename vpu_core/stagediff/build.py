"""A stage diff from per-call values: sums per node and pair of stages, then the summary.

    acc = Accumulator(("float", "qdq", "vpu"))
    acc.add("conv2d_1", {"float": f, "qdq": q, "vpu": v})     # per call, per node
    diff = acc.summary(graph, steps, placements, unmatched)

The graph is the last stage's (the converted graph, or side B of `diff`): its order is the order
of the nodes and of the search for the first divergent op; the inputs of a node, for what it
inherits, are found in it (matching.matched_inputs).
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Mapping, Sequence

import torch
from torch.fx import GraphModule, Node

from vpu_core.analysis.qgraph import is_op
from vpu_core.fx_utils import op_name
from vpu_core.stagediff.matching import matched_inputs, module_path
from vpu_core.stagediff.metrics import DIVERGES, Added, PairSum, Step, added
from vpu_core.stagediff.results import Divergence, StageDiff, StageNode, StageValue, Unmatched


class Accumulator:
    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        self.pairs: dict[tuple[str, str, str], PairSum] = {}
        self.start = time.perf_counter()
        self.calls = 0

    def add(self, node: str, values: Mapping[str, torch.Tensor],
            local: Mapping[str, tuple[torch.Tensor, ...]] | None = None) -> None:
        """One call's values of `node` in the stages that have one; `local`: stage -> the node's
        value in that stage computed from the previous stage's values of its inputs (its own
        error): before and after its output quantize, and the same inside its grid (capture._local)."""
        first = self.names[0]
        for cur, (_, value, unrounded, rounded) in (local or {}).items():
            prev = self.names[self.names.index(cur) - 1]
            if prev in values and values[prev].shape == value.shape:
                self.pairs.setdefault((node, "local", cur), PairSum()).add(values[prev], value)
                self.pairs.setdefault((node, "rounding", cur), PairSum()).add(unrounded, rounded)
        for prev, cur in zip(self.names, self.names[1:]):
            for ref in dict.fromkeys((prev, first)):
                if ref in values and cur in values and values[ref].shape == values[cur].shape:
                    self.pairs.setdefault((node, ref, cur), PairSum()).add(values[ref], values[cur])

    def summary(self, gm: GraphModule, steps: Mapping[str, Step], placements: Mapping[str, Mapping[str, str]],
                unmatched: Sequence[Unmatched], notes: Sequence[str] = (),
                coverage: tuple[int, int, int, int] | None = None) -> StageDiff:
        """`placements`: stage -> node -> where that stage runs it (for partition boundaries)."""
        order = [n for n in gm.graph.nodes if is_op(n)]
        transitions = list(zip(self.names, self.names[1:]))
        added_at: dict[tuple[str, str], Added] = {}
        for prev, cur in transitions:
            valued = {n.name for n in order if self._pair(n.name, prev, cur)}
            inputs = matched_inputs(gm, valued)
            for name in valued:
                own = self._pair(name, "local", cur)
                rounding = self._pair(name, "rounding", cur)
                if own is not None and rounding is not None:   # measured alone: nothing inherited
                    step = steps.get(name)           # no output quantize: no rounding step to hold it to
                    added_at[(name, cur)] = replace(added(own, 0.0, step),
                                                    ratio=added(rounding, 0.0, step).ratio if step else None)
                    continue
                pair = self.pairs[(name, prev, cur)]
                inherited = max((self.pairs[(i, prev, cur)].nsr for i in inputs.get(name, ())), default=0.0)
                added_at[(name, cur)] = added(pair, inherited, steps.get(name))
        boundary = {n.name: _boundary(n, placements) for n in order}
        nodes = []
        for n in order:
            values = tuple((cur, self._value(n.name, prev, cur, steps.get(n.name), added_at[(n.name, cur)],
                                             placements.get(cur, {}).get(n.name, "")))
                           for prev, cur in transitions if (n.name, cur) in added_at)
            if values:
                nodes.append(StageNode(n.name, module_path(n), op_name(n), values, boundary[n.name]))
        first = tuple((f"{prev}→{cur}", _first_divergent(order, cur, added_at, boundary, prev))
                      for prev, cur in transitions)
        matched = tuple((f"{prev}→{cur}", _share(order, cur, added_at)) for prev, cur in transitions)
        return StageDiff(self.names, matched, tuple(nodes), first, tuple(unmatched), self.calls,
                         coverage, tuple(notes), time.perf_counter() - self.start)

    def _pair(self, node: str, ref: str, test: str) -> PairSum | None:
        pair = self.pairs.get((node, ref, test))
        return pair if pair is not None and pair.valid else None

    def _value(self, name: str, prev: str, cur: str, step: Step | None, add: Added, where: str) -> StageValue:
        vs_float = self._pair(name, self.names[0], cur)
        vs_prev = self._pair(name, prev, cur)
        lsb = step.scale if step is not None and step.scale else None
        return StageValue(
            sqnr_db=vs_float.sqnr_db() if vs_float else None, cosine=vs_float.cosine() if vs_float else None,
            max_abs_lsb=vs_float.max_abs / lsb if vs_float and lsb else None, added_db=add.db,
            added_lsb=vs_prev.max_abs / lsb if vs_prev and lsb else None, step_ratio=add.ratio, placement=where)


def _share(order, cur: str, added_at) -> float:
    """Matched share of the ops with a floating-point output (an int64 index or a bool mask has no
    SQNR in any stage; an op export recorded no value for counts)."""
    ops = [n for n in order if _floating(n)]
    return sum(1 for n in ops if (n.name, cur) in added_at) / max(len(ops), 1)


def _floating(node: Node) -> bool:
    val = node.meta.get("val")
    return not isinstance(val, torch.Tensor) or val.is_floating_point()


def _boundary(node: Node, placements: Mapping[str, Mapping[str, str]]) -> bool:
    """The node runs elsewhere than an op feeding it, in some stage that places nodes."""
    for where in placements.values():
        here = where.get(node.name)
        if here and any(where.get(i) and where.get(i) != here for i in _feeding_ops(node)):
            return True
    return False


def _feeding_ops(node) -> list[str]:
    out, frontier, seen = [], list(node.all_input_nodes), set()
    while frontier:
        n = frontier.pop()
        if n in seen:
            continue
        seen.add(n)
        if is_op(n):
            out.append(n.name)
        else:
            frontier.extend(n.all_input_nodes)
    return out


def _first_divergent(order, cur: str, added_at, boundary: Mapping[str, bool], prev: str) -> Divergence:
    worst = None
    for n in order:
        add = added_at.get((n.name, cur))
        if add is None or add.ratio is None:
            continue
        if worst is None or add.ratio > worst[1].ratio:
            worst = (n, add)
        if add.ratio > DIVERGES:
            return Divergence(n.name, module_path(n), op_name(n), _why(add, prev, cur, boundary[n.name]),
                              boundary[n.name])
    if worst is None:
        return Divergence(None, None, None, f"no node has a value in both {prev} and {cur}")
    n, add = worst
    return Divergence(None, None, None, (
        f"no op adds more error than its quantization step explains (at most {DIVERGES:g}x one step's "
        f"noise); the largest is {n.name} at {add.ratio:.1f}x"))


def _why(add: Added, prev: str, cur: str, at_boundary: bool) -> str:
    text = (f"{cur} adds {_ratio_db(add.ratio)} dB more noise to it than one rounding step of "
            f"{add.step:.3g} explains (over {prev}: added SQNR {_db(add.db)}; limit {DIVERGES:g}x)")
    if at_boundary:
        text += "; it sits at a partition boundary (an input runs elsewhere)"
    return text


def _ratio_db(ratio: float | None) -> str:
    import math

    return f"{10 * math.log10(ratio):.1f}" if ratio else "?"


def _db(db: float | None) -> str:
    return f"{db:.1f} dB" if db is not None else "none"

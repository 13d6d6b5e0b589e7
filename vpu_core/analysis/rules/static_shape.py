"""Constraint 8: static shapes only (no symbolic dimension anywhere in the graph)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from vpu_core.analysis.qgraph import QGraph, is_guard
from vpu_core.analysis.results import RuleInfo, Violation
from vpu_core.analysis.rules.base import Rule
from vpu_core.fx_utils import tensor_shape_text

if TYPE_CHECKING:
    from torch.fx import GraphModule

    from vpu_core.hardware.profile import HardwareProfile


def symbols_of(val: object) -> set[str]:
    """Names of the free symbols in a node's value (a tensor's shape, a SymInt, or lists of them)."""
    if isinstance(val, (list, tuple)):
        return set().union(*(symbols_of(v) for v in val)) if val else set()
    dims = val.shape if isinstance(val, torch.Tensor) else [val]
    out: set = set()
    for d in dims:
        if isinstance(d, torch.SymInt):
            out.update(str(s) for s in d.node.expr.free_symbols)
    return out


def check(g: QGraph) -> list[Violation]:
    """One violation per symbol, on the first node where it appears (usually the graph input)."""
    first: dict[str, str] = {}
    shape_of: dict[str, str] = {}
    reach: dict[str, int] = {}
    for node in g.nodes:
        if is_guard(node):
            continue
        val = node.meta.get("val")
        for sym in sorted(symbols_of(val)):
            reach[sym] = reach.get(sym, 0) + 1
            if sym not in first:
                first[sym] = node.name
                shape_of[sym] = tensor_shape_text(val) or str(val)
    return [RULE.violation(first[s], f"symbolic shape {shape_of[s]} (symbol {s}, in {reach[s]} nodes); "
                           "expected static shapes", symbol=s, shape=shape_of[s],
                           nodes=reach[s]) for s in first]


def cannot_matter(gm: GraphModule, profile: HardwareProfile) -> str:
    symbolic = any(symbols_of(n.meta.get("val")) for n in gm.graph.nodes)
    return "" if symbolic else ("the graph has static shapes: constraint 8 only refuses symbolic "
                                "dimensions, so relaxing it changes nothing")


RULE = Rule(RuleInfo(
    id="static_shape", constraint=8,
    title="Static shapes only", short="static",
    reason="The VPU plans its memory at compile time, so every buffer size must be known: no "
           "symbolic (dynamic) dimension anywhere.",
    name="static shapes", verb="cost"), check, cannot_matter, relaxes=("static_shapes",))

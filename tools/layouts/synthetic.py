"""Synthetic Q/DQ-shaped graphs for benchmarks and tests.

They mimic what convert_pt2e produces: every activation passes quantize -> dequantize
between ops, weights are parameter -> dequantize_per_channel chains feeding conv/linear,
residual blocks fan out through two dequantize nodes of one quantize, attention blocks fan
out q/k/v linears and fall back to the CPU for matmul/softmax/layer_norm (boundary edges).

Like a real model they have a module hierarchy: `meta["module_stacks"]` gives every node its
stack of (module path, class) — encoder → stages.i → blocks.j → sub-modules (conv1, attention,
branch1, …), with a stem and a head — from which `synthetic_tree(model)` builds the ModuleTree.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import random

from vpu_core.graph.model import Category, GraphEdge, GraphModel, GraphNode

if TYPE_CHECKING:
    from vpu_core.analysis.results import BoundaryDirection, RunsOn
    from vpu_core.analysis.hierarchy import ModuleTree

_CPU_OPS = ("softmax", "layer_norm", "gelu", "matmul", "mul", "hardswish", "sigmoid")


class _Builder:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.nodes: list[GraphNode] = []
        self.edges: list[tuple[str, str]] = []
        self.runs_on: dict[str, RunsOn] = {}  # where each non-param node runs
        self.count: dict[str, int] = {}
        self.subgraph = 0
        self.on_cpu = False
        self.stack: tuple[tuple[str, str], ...] = ()     # current module stack
        self.stacks: dict[str, tuple[tuple[str, str], ...]] = {}

    def enter(self, name: str, cls: str) -> None:
        path = f"{self.stack[-1][0]}.{name}" if self.stack else name
        self.stack = (*self.stack, (path, cls))

    def leave(self) -> None:
        self.stack = self.stack[:-1]

    def _name(self, base: str) -> str:
        k = self.count.get(base, 0)
        self.count[base] = k + 1
        return base if k == 0 else f"{base}_{k}"

    def add(self, base: str, label: str, category: Category, inputs=(), detail: str = "", is_param: bool = False,
            runs_on: RunsOn | None = None) -> str:
        nid = self._name(base)
        viol = 0
        if category in ("vpu", "qdq") and not is_param and self.rng.random() < 0.04:
            viol = self.rng.choice((1, 1, 2, 3))
        sub = self.subgraph if category in ("vpu", "qdq") and runs_on != "cpu" else None
        self.nodes.append(GraphNode(nid, label, detail, category, sub, viol, is_param))
        if self.stack:
            self.stacks[nid] = self.stack
        if not is_param:
            self.runs_on[nid] = runs_on or ("cpu" if category == "cpu" else "vpu")
        for i in inputs:
            self.edges.append((i, nid))
        return nid

    def shape(self, c: int, hw: int) -> str:
        return f"1×{c}×{hw}×{hw} int8" if hw else f"1×197×{c} int8"

    def qdq(self, x: str, runs_on: RunsOn = "vpu") -> str:
        q = self.add("quantize_per_tensor", "quantize", "qdq", [x], runs_on=runs_on)
        return self.add("dequantize_per_tensor", "dequantize", "qdq", [q], runs_on=runs_on)

    def weighted(self, op: str, x: str, c: int, hw: int, bias: bool = True) -> str:
        shape = f"{c}×{c}×3×3" if op == "conv2d" else f"{c}×{c}"
        w = self.add("_frozen_param", "weight", "param", detail=shape, is_param=True)
        wdq = self.add("dequantize_per_channel", "dequantize", "qdq", [w], is_param=True)
        ins = [x, wdq]
        if bias:
            ins.append(self.add("_frozen_param", "bias", "param", detail=f"{c}", is_param=True))
        return self.add(op, op, "vpu", ins, detail=self.shape(c, hw))

    def cpu(self, op: str, ins: list[str], c: int, hw: int) -> str:
        self.on_cpu = True
        return self.add(op, op, "cpu", ins, detail=self.shape(c, hw).replace("int8", "fp32"))

    def back_to_vpu(self) -> None:
        """After a CPU stretch the next VPU ops form a new subgraph."""
        if self.on_cpu:
            self.on_cpu = False
            self.subgraph += 1


STAGES = 8
_BLOCK_CLASS = "Block"


def _enter_block(b: _Builder, index: int, per_stage: int) -> None:
    """Module stack of block `index`: the first is the stem, the rest encoder.stages.s.blocks.j."""
    if index == 0:
        b.stack = ()
        b.enter("stem", "Stem")
        return
    stage, j = divmod(index - 1, per_stage)
    b.stack = ()
    b.enter("encoder", "Encoder")
    b.enter(f"stages.{stage}", "Stage")
    b.enter(f"blocks.{j}", _BLOCK_CLASS)


def _conv_block(b: _Builder, x: str, c: int, hw: int) -> str:
    y = b.weighted("conv2d", b.qdq(x), c, hw)
    return b.add("relu", "relu", "vpu", [y], detail=b.shape(c, hw))


def _residual_block(b: _Builder, x: str, c: int, hw: int) -> str:
    q = b.add("quantize_per_tensor", "quantize", "qdq", [x])
    a = b.add("dequantize_per_tensor", "dequantize", "qdq", [q])
    skip = b.add("dequantize_per_tensor", "dequantize", "qdq", [q])
    b.enter("conv1", "ConvLayer")
    y = b.add("relu", "relu", "vpu", [b.weighted("conv2d", a, c, hw)], detail=b.shape(c, hw))
    b.leave()
    b.enter("conv2", "ConvLayer")
    y = b.weighted("conv2d", b.qdq(y), c, hw)
    b.leave()
    s = b.add("add", "add", "vpu", [b.qdq(y), skip], detail=b.shape(c, hw))
    return b.add("relu", "relu", "vpu", [s], detail=b.shape(c, hw))


def _inception_block(b: _Builder, x: str, c: int, hw: int) -> str:
    q = b.add("quantize_per_tensor", "quantize", "qdq", [x])
    outs = []
    for k in range(b.rng.choice((2, 3))):
        b.enter(f"branch{k}", "Branch")
        a = b.add("dequantize_per_tensor", "dequantize", "qdq", [q])
        y = b.weighted("conv2d", a, c // 2, hw)
        if k:
            y = b.weighted("conv2d", b.qdq(y), c // 2, hw)
        outs.append(b.qdq(y))
        b.leave()
    if b.rng.random() < 0.5:
        outs.append(b.add("max_pool2d", "max_pool2d", "vpu",
                          [b.add("dequantize_per_tensor", "dequantize", "qdq", [q])]))
    return b.add("cat", "cat", "vpu", outs, detail=b.shape(c * 2, hw))


def _attention_block(b: _Builder, x: str, c: int) -> str:
    q = b.add("quantize_per_tensor", "quantize", "qdq", [x])
    b.enter("attention", "SelfAttention")
    heads = [b.weighted("linear", b.add("dequantize_per_tensor", "dequantize", "qdq", [q]), c, 0)
             for _ in range(3)]
    s = b.cpu("matmul", [heads[0], heads[1]], c, 0)
    s = b.cpu("softmax", [s], c, 0)
    s = b.cpu("matmul", [s, heads[2]], c, 0)
    b.leave()
    b.back_to_vpu()
    b.enter("output", "AttentionOutput")
    y = b.weighted("linear", b.qdq(s), c, 0)
    skip = b.add("dequantize_per_tensor", "dequantize", "qdq", [q])
    r = b.add("add", "add", "vpu", [b.qdq(y), skip], detail=b.shape(c, 0))
    r = b.cpu("layer_norm", [r], c, 0)
    b.leave()
    if b.rng.random() < 0.5:
        r = b.cpu(b.rng.choice(_CPU_OPS[2:]), [r], c, 0)
    b.back_to_vpu()
    return r


def _finish(b: _Builder, title: str) -> GraphModel:
    edges = []
    for s, d in b.edges:
        ss, sd = b.runs_on.get(s), b.runs_on.get(d)
        boundary: BoundaryDirection | None = None
        if ss and sd and ss != sd:
            boundary = "vpu->cpu" if sd == "cpu" else "cpu->vpu"
        edges.append(GraphEdge(s, d, boundary))
    return GraphModel(tuple(b.nodes), tuple(edges), title=title,
                      meta={"module_stacks": dict(b.stacks)})


def synthetic_tree(model: GraphModel) -> ModuleTree:
    """The ModuleTree of a synthetic graph (from its meta["module_stacks"])."""
    from vpu_core.analysis.hierarchy import build_tree

    return build_tree((n.id for n in model.nodes), model.meta.get("module_stacks", {}))


def synthetic_qdq_graph(n_nodes: int, seed: int = 0) -> GraphModel:
    """A connected Q/DQ graph with exactly `n_nodes` nodes (at least 3)."""
    n_nodes = max(3, int(n_nodes))
    b = _Builder(seed)
    x = b.add("x", "x", "io", detail="1×3×224×224 fp32")
    c, hw = 16, 112
    per_stage = max(2, n_nodes // 22 // STAGES)   # ~22 nodes per block
    blocks = 0
    while len(b.nodes) < n_nodes - 45:          # room for the largest block
        _enter_block(b, blocks, per_stage)
        r = b.rng.random()
        if r < 0.35:
            x = _residual_block(b, x, c, hw)
        elif r < 0.6:
            x = _conv_block(b, x, c, hw)
        elif r < 0.75:
            x = _inception_block(b, x, c, hw)
        else:
            x = _attention_block(b, x, c)
        b.leave()
        blocks += 1
        if b.rng.random() < 0.1:
            c, hw = min(c * 2, 1024), max(hw // 2, 7)
    b.stack = (("head", "Head"),)
    while len(b.nodes) < n_nodes - 1:            # pad with a plain chain to the exact size
        x = b.add("hardtanh", "hardtanh", "vpu", [x], detail=b.shape(c, hw))
    b.stack = ()
    b.add("output", "output", "io", [x])
    return _finish(b, f"synthetic Q/DQ graph ({n_nodes} nodes, seed {seed})")

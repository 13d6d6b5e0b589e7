"""A fault seeded into a converted program: one activation's scale made wrong.

    faulty, op = seed_scale_fault(converted, index=3, factor=8.0)

The k-th activation quantize after a compute op (graph order, per-tensor, a constant scale) gets
its scale multiplied by `factor` in the quantize and in every dequantize reading it — what an
observer that saw the wrong range, or a hand-edited program, would leave. The graph is copied;
the faulted op (the op whose output that quantize takes) is returned with it. The tests and
`python -m tools.bench --stages` check that the first divergent op float → qdq is that op (vpu_core.stagediff).
"""
from __future__ import annotations

import copy

from torch.fx import GraphModule, Node

from vpu_core.analysis.qgraph import is_op
from vpu_core.qdq import is_dequantize, is_quantize


def activation_quantizes(gm: GraphModule) -> list[Node]:
    """The per-tensor quantizes of compute ops' outputs whose scale is a number in the graph."""
    return [n for n in gm.graph.nodes if is_quantize(n) and "per_tensor" in str(n.target)
            and isinstance(n.args[0], Node) and is_op(n.args[0]) and isinstance(n.args[1], float)]


def seed_scale_fault(gm: GraphModule, index: int, factor: float = 8.0) -> tuple[GraphModule, str]:
    """(a copy of `gm` with the `index`-th activation quantize's scale times `factor`, the op it quantizes)."""
    faulty = copy.deepcopy(gm)
    q = activation_quantizes(faulty)[index]
    for node in [q, *(u for u in q.users if is_dequantize(u))]:
        node.args = (node.args[0], float(node.args[1]) * factor, *node.args[2:])
    faulty.recompile()
    return faulty, q.args[0].name

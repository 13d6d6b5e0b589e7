"""Where a node of a lowered program came from: the node of our converted graph it stands for.

Every node created by export / to_edge / to_executorch keeps a `from_node` provenance chain in
node.meta (NodeSource: name, graph_id, from_node …). `origin` walks it, nearest ancestors first,
to the first entry whose graph is the exported graph (qm.converted or its bias-folded copy, same
node names) and whose name is a node of it; if no entry carries that graph id (e.g. a program
re-loaded elsewhere) the first entry naming an existing node is used. The delegation overlay, the
op map of the runtime and the runtime's missing-kernel refusal all name nodes this way.
"""
from __future__ import annotations

from torch.fx import Node


def origin(node: Node, graph_id: int, names: set[str]) -> str | None:
    """The converted-graph node `node` descends from (`graph_id`: id() of the exported graph,
    `names`: its node names), or None."""
    fallback = None
    stack = list(node.meta.get("from_node") or [])
    while stack:
        src = stack.pop(0)
        if src.name in names:
            if src.graph_id == graph_id:
                return src.name
            fallback = fallback or src.name
        stack[0:0] = list(src.from_node or [])  # depth first: nearest ancestors first
    return fallback


def is_delegate_call(node: Node) -> bool:
    """An executorch_call_delegate node: the call of one lowered (XNNPACK) subgraph."""
    return node.op == "call_function" and getattr(node.target, "__name__", "") == "executorch_call_delegate"

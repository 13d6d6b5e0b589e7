"""Finding nodes by what the user types: the fx name, the op label or the module path."""
from __future__ import annotations

from vpu_core.graph.model import GraphModel


def find_nodes(model: GraphModel, text: str) -> list[str]:
    """Ids of the shown nodes whose name, label or module path contains `text` (case-insensitive),
    in model order; an empty text finds nothing."""
    needle = text.strip().lower()
    if not needle:
        return []
    return [n.id for n in model.nodes
            if needle in n.id.lower() or needle in n.label.lower() or needle in n.module.lower()]

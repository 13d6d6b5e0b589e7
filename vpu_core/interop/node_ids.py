"""Our node names ↔ the node ids Model Explorer's PyTorch adapter gives a saved program.

Model Explorer's adapter (model_explorer.pytorch_exported_program_adapter_impl) names each node by
its FX name in the program `torch.export.load` returns. Saving re-exports our converted graph
(vpu_core.pipeline.program_file), which renames nodes: a parameter or constant (our get_attr
`_frozen_param0`, `layers_0_ln1_weight`) becomes a placeholder (`b__frozen_param0`,
`p_layers_0_ln1_weight`), and ops can lose their overload suffix (`dequantize_per_channel_default`
→ `dequantize_per_channel`). What ties them: the graph signature's input specs name the attribute
each placeholder lifts (our get_attr target), and torch.export records on every traced node the
node it came from (meta "from_node", provenance). Nodes neither reaches are matched by their op,
in graph order.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from torch.export import ExportedProgram
    from torch.fx import GraphModule


def adapter_ids(converted: GraphModule, program: ExportedProgram) -> dict[str, str]:
    """our node name (`converted`'s, = Analysis.nodes) -> the Model Explorer node id of the same node
    in `program` (as loaded back from the saved file); nodes the program no longer has are absent."""
    ours = list(converted.graph.nodes)
    theirs = list(program.graph_module.graph.nodes)
    names = {n.name for n in ours}
    out: dict[str, str] = {}
    lifted = {spec.arg.name: spec.target for spec in program.graph_signature.input_specs
              if spec.target is not None and hasattr(spec.arg, "name")}
    by_target = {str(n.target): n.name for n in ours if n.op == "get_attr"}
    for node in theirs:
        source = _source(node, names)
        if node.op == "placeholder" and node.name in lifted:
            source = by_target.get(lifted[node.name])
        elif source is None and node.name in names and node.op in ("placeholder", "output"):
            source = node.name                       # user inputs and the output keep their names
        if source is not None and source not in out:
            out[source] = node.name
    _match_rest(ours, theirs, out)
    return out


def _source(node, names: set[str]) -> str | None:
    """The name of the node of ours `node` was traced from (its provenance, depth first)."""
    stack = list(node.meta.get("from_node") or ())
    while stack:
        src = stack.pop(0)
        if getattr(src, "name", None) in names:
            return src.name
        stack.extend(getattr(src, "from_node", None) or ())
    return None


def _match_rest(ours: list, theirs: list, out: dict[str, str]) -> None:
    """Nodes no provenance reached: paired by op (call target), in graph order."""
    taken = set(out.values())
    free: dict[tuple[str, str], list[str]] = {}
    for node in theirs:
        if node.name not in taken:
            free.setdefault((node.op, str(node.target)), []).append(node.name)
    for node in ours:
        if node.name not in out and node.op == "call_function":
            queue = free.get((node.op, str(node.target)))
            if queue:
                out[node.name] = queue.pop(0)

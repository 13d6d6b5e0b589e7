"""Which node of the converted Q/DQ graph each runtime event of the lowered program stands for.

How debug handles become node names:

- Portable kernels (ops XNNPACK did not take). When `to_executorch` emits the program,
  ExecuTorch's emitter replaces every emitted node's `meta["debug_handle"]` by the index of its
  instruction in the execution chain, which is what the runtime logs with each ETDump event
  (`Event._instruction_id`). Every node created by export / to_edge / to_executorch also keeps a
  `from_node` provenance chain (name and graph id of the node it came from); following it to the
  graph that was lowered gives the converted graph's node name (provenance.origin, as the delegation
  overlay names nodes).
- XNNPACK delegates. The delegate call is one instruction; inside it XNNPACK's profiler logs one
  event per XNNPACK operator, by name only. The delegate's blob lists its xnodes with the edge
  debug handle of the node each came from (vpu_core.targets.xnnpack.xnn_blob); the delegate's
  `original_module` holds those edge nodes, whose `from_node` leads to the converted graph. Events
  are matched to xnodes in order (xnn_blob.align). An xnode without a handle (a layout transpose
  the XNNPACK passes inserted) is charged to the next xnode that has one (its consumer), else the
  one before. Of the edge nodes sharing one handle (an op with its Q/DQ) the compute op is named.

The map is plain data (JSON), built once when the program is lowered and cached with it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from torch.fx import GraphModule, Node

from vpu_core.targets.xnnpack.provenance import is_delegate_call, origin
from vpu_core.analysis.qgraph import is_getitem, is_op


@dataclass(frozen=True)
class DelegateOps:
    """One XNNPACK delegate: its instruction and its xnodes (type, converted node) in order, with
    each xnode's edge debug handle (what XNNPACK's own log messages name a node by)."""

    index: int
    instruction: int
    xnodes: tuple[tuple[str, str | None], ...]
    handles: tuple[int | None, ...] = ()


@dataclass(frozen=True)
class OpMap:
    kernels: dict = field(default_factory=dict)        # instruction -> (converted node | None, kernel)
    delegates: tuple[DelegateOps, ...] = ()
    order: dict = field(default_factory=dict)          # converted node -> position in its graph

    def delegate_at(self, instruction: int) -> DelegateOps | None:
        return next((d for d in self.delegates if d.instruction == instruction), None)

    def to_json(self) -> dict:
        return {"kernels": [[i, n, k] for i, (n, k) in self.kernels.items()],
                "delegates": [{"index": d.index, "instruction": d.instruction,
                               "xnodes": [list(x) for x in d.xnodes], "handles": list(d.handles)}
                              for d in self.delegates],
                "order": self.order}

    @staticmethod
    def from_json(data: dict) -> OpMap:
        return OpMap({int(i): (n, k) for i, n, k in data["kernels"]},
                     tuple(DelegateOps(int(d["index"]), int(d["instruction"]),
                                       tuple((t, n) for t, n in d["xnodes"]),
                                       tuple(d.get("handles", ()))) for d in data["delegates"]),
                     {str(k): int(v) for k, v in data["order"].items()})


def kernel_name(node: Node) -> str | None:
    """"aten::native_layer_norm.out": the name the runtime's operator registry uses."""
    schema = getattr(node.target, "_schema", None)
    if schema is None:
        return None
    return f"{schema.name}.{schema.overload_name}" if schema.overload_name else schema.name


def build_op_map(program_gm: GraphModule, lowered_gm: GraphModule) -> OpMap:
    """The map of an emitted program (ExecutorchProgramManager.exported_program().graph_module)
    whose nodes descend from `lowered_gm` (the converted graph module that was exported)."""
    from vpu_core.targets.xnnpack.xnn_blob import decode_xnodes

    names = {n.name: n for n in lowered_gm.graph.nodes}
    gid = id(lowered_gm.graph)
    kernels: dict[int, tuple[str | None, str]] = {}
    delegates: list[DelegateOps] = []
    for node in program_gm.graph.nodes:
        if node.op != "call_function" or is_getitem(node):
            continue
        instruction = node.meta.get("debug_handle")
        if not isinstance(instruction, int):
            continue
        if is_delegate_call(node):
            module = getattr(program_gm, node.args[0].target)
            handles = _handle_origins(module.original_module.graph_module, gid, names)
            xnodes = decode_xnodes(module.processed_bytes)
            resolved = _resolve([handles.get(x.debug_handle) if x.debug_handle is not None else None
                                 for x in xnodes])
            delegates.append(DelegateOps(len(delegates), instruction,
                                         tuple((x.type, n) for x, n in zip(xnodes, resolved)),
                                         tuple(x.debug_handle for x in xnodes)))
        else:
            kernel = kernel_name(node)
            if kernel is not None:
                kernels[instruction] = (origin(node, gid, set(names)), kernel)
    order = {n: i for i, n in enumerate(names)}
    return OpMap(kernels, tuple(delegates), order)


def _handle_origins(original: GraphModule, gid: int, names: dict[str, Node]) -> dict[int, str]:
    """Edge debug handle -> the converted node it stands for (the compute op among its nodes)."""
    found: dict[int, list[str]] = {}
    for n in original.graph.nodes:
        handle = n.meta.get("debug_handle")
        if n.op != "call_function" or not isinstance(handle, int):
            continue
        source = origin(n, gid, set(names))
        if source is not None:
            found.setdefault(handle, []).append(source)
    out = {}
    for handle, origins in found.items():
        ops = [o for o in origins if is_op(names[o])]
        out[handle] = (ops or origins)[0]
    return out


def _resolve(nodes: list[str | None]) -> list[str | None]:
    """Nodes of xnodes without a handle: the next known one (their consumer), else the previous."""
    out = list(nodes)
    following = None
    for k in range(len(out) - 1, -1, -1):
        if out[k] is None:
            out[k] = following
        else:
            following = out[k]
    previous = None
    for k, n in enumerate(out):
        if n is None:
            out[k] = previous
        else:
            previous = n
    return out


def non_delegated_kernels(program_gm: GraphModule) -> list[tuple[str, Node]]:
    """(kernel name, node) of every operator the program runs outside a delegate, in order."""
    out = []
    for n in program_gm.graph.nodes:
        kernel = kernel_name(n) if n.op == "call_function" and not is_delegate_call(n) else None
        if kernel is not None:
            out.append((kernel, n))
    return out

"""Save a converted Q/DQ program with torch.export.save, atomically (a .pt2 that loads back).

The saved program returns its outputs as a flat tuple of tensors: a program that kept the
model's own output structure (a `transformers` ModelOutput dataclass, a dict) would record that
Python type in its call signature, and torch.export.load then needs the same class imported and
registered for serialization, so the file would not open in a plain Python or in this tool.
Loading needs torch.ops.quantized_decomposed registered: `import torchao` first (the tool does).

The archive also holds extra/PROGRAM_META, {"quantizer": "vpu" | "xnnpack", "model": name}: which
quantizer produced the Q/DQ graph, so checking the file again reports that quantizer, not the
--quantizer default (vpu_core.pipeline.loading reads it; a program without it is "already quantized (program file)").
"""
from __future__ import annotations

import json
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from vpu_core.errors import short_reason
from vpu_core.files import SaveError, atomic_write

if TYPE_CHECKING:
    from torch.fx import Graph, GraphModule

    from vpu_core.pipeline import QuantizedModel

PROGRAM_META = "vpu_inspector_program.json"   # extra file of a saved program: who quantized it


def program_meta(quantizer: str, model: str) -> str:
    """The PROGRAM_META text of a program `quantizer` quantized ("unknown": the file did not say)."""
    return json.dumps({"quantizer": quantizer, "model": model})


def recorded_quantizer(text: str) -> str | None:
    """The quantizer a PROGRAM_META text names, or None (absent, unreadable, not ours)."""
    try:
        meta = json.loads(text) if text else None
    except ValueError:
        return None
    quantizer = meta.get("quantizer") if isinstance(meta, dict) else None
    from vpu_core.quantizers.registry import is_quantizer

    return quantizer if isinstance(quantizer, str) and is_quantizer(quantizer) else None


def flat_output_module(gm: GraphModule) -> GraphModule:
    """A copy of an exported GraphModule that takes its inputs positionally and returns the flat
    tuple of its output leaves (same nodes, names and meta; the original is not touched)."""
    from torch.fx import Graph, GraphModule

    graph = Graph()  # the plain code generator: no pytree in / out specs
    out = graph.graph_copy(gm.graph, {})
    graph.output(tuple(out) if isinstance(out, (list, tuple)) else (out,))
    flat = GraphModule(gm, graph)
    flat.meta.update(getattr(gm, "meta", {}))
    return flat


def save_program(qm: QuantizedModel, path: Path) -> None:
    """Re-export the converted GraphModule and save it, loadable with torch.export.load."""
    import torch  # lazily: the GUI uses this module's path checks before torch is loaded

    from vpu_core.pipeline.tracing import dynamic_batch_shapes, own_batch, with_batch

    example, dynamic_shapes = tuple(qm.example_inputs), None
    if qm.config.dynamic_batch and not qm.already_quantized:
        if own_batch(example) < 2:  # torch.export specialises batch 1: trace at 2, as the run did
            example = with_batch(example, 2)
        dynamic_shapes = dynamic_batch_shapes(example)
    try:
        program = torch.export.export(flat_output_module(qm.converted), example,
                                      dynamic_shapes=dynamic_shapes, strict=False)
    except Exception as exc:
        raise SaveError(f"Could not export the converted program for saving: {short_reason(exc)}",
                        traceback.format_exc()) from None
    tidy_module_stacks(program.graph_module.graph)
    try:
        extra = {PROGRAM_META: program_meta(qm.quantizer, qm.name)}
        atomic_write(path, lambda tmp: torch.export.save(program, str(tmp), extra_files=extra))
    except OSError as exc:
        raise SaveError(f"Cannot write {path}: {exc.strerror or short_reason(exc)}.") from None


_EXPORT_WRAPPER = "<locals>.Wrapper"   # the module torch.export wraps a re-exported GraphModule in


def tidy_module_stacks(graph: Graph) -> None:
    """The re-export records its own wrapper module as the module of every node that had none (the
    Q/DQ nodes), so a viewer that nests nodes by nn_module_stack (Model Explorer, Netron) shows
    them in a top-level "torch.export._trace…Wrapper" layer. Drop that entry; a quantize then
    takes the module of the op it quantizes, a dequantize the module of the op that reads it (as
    our own module groups place them, vpu_core.analysis.hierarchy), so they sit in its layer."""
    stacks = {}
    for node in graph.nodes:
        stack = node.meta.get("nn_module_stack") or {}
        stacks[node] = {k: v for k, v in stack.items() if _EXPORT_WRAPPER not in str(v[1])}
    nodes = list(graph.nodes)
    for node in nodes:                               # a quantize: its producer's module
        src = node.args[0] if node.args else None
        if not stacks[node] and _is_qdq(node) and "dequantize" not in str(node.target) and src in stacks:
            stacks[node] = stacks[src]
    for node in reversed(nodes):                     # the rest: the module of a reader
        if not stacks[node] and _is_qdq(node):
            stacks[node] = next((stacks[u] for u in node.users if stacks.get(u)), {})
    for node in nodes:
        if node.op != "call_function":
            continue
        if stacks[node]:
            node.meta["nn_module_stack"] = stacks[node]
        else:
            node.meta.pop("nn_module_stack", None)


def _is_qdq(node) -> bool:
    return node.op == "call_function" and "quantized_decomposed" in str(node.target)

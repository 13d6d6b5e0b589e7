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
from vpu_core.quantizers import QUANTIZERS

if TYPE_CHECKING:
    from torch.fx import GraphModule

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
    return quantizer if quantizer in QUANTIZERS else None


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
    try:
        extra = {PROGRAM_META: program_meta(qm.quantizer, qm.name)}
        atomic_write(path, lambda tmp: torch.export.save(program, str(tmp), extra_files=extra))
    except OSError as exc:
        raise SaveError(f"Cannot write {path}: {exc.strerror or short_reason(exc)}.") from None

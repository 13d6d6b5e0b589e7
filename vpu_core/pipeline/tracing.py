"""torch.export with a static or a dynamic batch dimension."""
from __future__ import annotations

import re
import traceback

import torch
from torch import nn

from vpu_core import quiet
from vpu_core.errors import ExportError, short_reason


def with_batch(inputs: tuple, batch_size: int) -> tuple:
    """Example inputs re-batched to `batch_size` (dim 0), repeating samples when growing."""
    out = []
    for t in inputs:
        reps = -(-batch_size // t.shape[0])
        out.append(t.repeat(reps, *([1] * (t.dim() - 1)))[:batch_size].clone())
    return tuple(out)


def export_module(model: nn.Module, example_inputs: tuple, dynamic_batch: bool = False,
                  name: str = "the model"):
    """Export for PT2E: returns the GraphModule of torch.export (`.module()`)."""
    return program_module(export_program(model, example_inputs, dynamic_batch, name))


def program_module(program):
    """The GraphModule PT2E quantizes, of an ExportedProgram (eval-mode dropout removed)."""
    return drop_eval_dropout(program.module())


def export_program(model: nn.Module, example_inputs: tuple, dynamic_batch: bool = False,
                   name: str = "the model"):
    """torch.export.export for PT2E: the ExportedProgram (what the disk cache saves).

    With `dynamic_batch` the batch dimension of every input is a symbolic Dim; the example batch
    must then be ≥ 2, since torch.export specialises sizes 0 and 1.
    """
    dynamic_shapes = None
    if dynamic_batch:
        if example_inputs[0].shape[0] < 2:
            example_inputs = with_batch(example_inputs, 2)
        batch = torch.export.Dim("batch", min=1, max=4096)
        dynamic_shapes = tuple({0: batch} for _ in example_inputs)
    try:
        with quiet.torch_chatter() as chatter:
            program = torch.export.export(model, tuple(example_inputs), dynamic_shapes=dynamic_shapes,
                                          strict=False)
    except Exception as exc:
        raise ExportError(f"torch.export could not trace {name}: {export_reason(exc)}",
                          traceback.format_exc() + chatter.getvalue()) from None
    return program


def drop_eval_dropout(gm):
    """Remove dropout nodes with train=False: the identity in eval mode, but left in the exported
    graph they would be CPU-fallback islands splitting VPU subgraphs for no reason."""
    dropouts = (torch.ops.aten.dropout.default, torch.ops.aten.feature_dropout.default)
    changed = False
    for node in list(gm.graph.nodes):
        if node.op == "call_function" and node.target in dropouts and not _is_training(node):
            node.replace_all_uses_with(node.args[0])
            gm.graph.erase_node(node)
            changed = True
    if changed:
        gm.recompile()
    return gm


def _is_training(node) -> bool:
    train = node.args[2] if len(node.args) > 2 else node.kwargs.get("train", False)
    return bool(train)


_USER_FRAME = re.compile(r'The following call raised this error:\s*File "([^"]+)", line (\d+), in \w+\s*\n\s*(.+)')


def export_reason(exc: Exception) -> str:
    """The exporter's reason in one line, pointing at the user's source line when torch names it."""
    reason = short_reason(exc)
    frame = _USER_FRAME.search(str(exc))
    if frame:
        file, line, code = frame.groups()
        kind = "data-dependent control flow" if "data-dependent" in reason else "error"
        return (f"{kind} at {file.rsplit('/', 1)[-1]}:{line} (`{code.strip()}`): {reason} "
                "Remove the Python branch on tensor values or use torch.cond.")
    return reason

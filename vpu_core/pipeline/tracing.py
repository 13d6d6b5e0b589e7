"""torch.export with a static or a dynamic batch dimension."""
from __future__ import annotations

from typing import TYPE_CHECKING

import re
import traceback

import torch
from torch import nn

from vpu_core import quiet
from vpu_core.errors import ExportError, short_reason

if TYPE_CHECKING:
    from torch.export import ExportedProgram
    from torch.fx import GraphModule


def own_batch(inputs: tuple) -> int:
    """The batch of the model's own example inputs: dim 0 of the first input that has one."""
    return next((int(t.shape[0]) for t in inputs if t.dim() > 0), 1)


def with_batch(inputs: tuple, batch_size: int) -> tuple:
    """Example inputs re-batched to `batch_size`, repeating samples when growing.

    Only inputs whose dim 0 is the own batch are re-batched; a scalar or an input without the
    batch dimension (a shared table, a step count) is kept as it is.
    """
    batch = own_batch(inputs)
    out = []
    for t in inputs:
        if t.dim() == 0 or t.shape[0] != batch or batch == batch_size:
            out.append(t)
            continue
        reps = -(-batch_size // t.shape[0])
        out.append(t.repeat(reps, *([1] * (t.dim() - 1)))[:batch_size].clone())
    return tuple(out)


def export_module(model: nn.Module, example_inputs: tuple, dynamic_batch: bool = False,
                  name: str = "the model", batch_change: tuple[int, int] | None = None) -> GraphModule:
    """Export for PT2E: returns the GraphModule of torch.export (`.module()`)."""
    return program_module(export_program(model, example_inputs, dynamic_batch, name, batch_change))


def program_module(program: ExportedProgram) -> GraphModule:
    """The GraphModule PT2E quantizes, of an ExportedProgram (no-op nodes removed)."""
    return drop_no_ops(program.module())


def export_program(model: nn.Module, example_inputs: tuple, dynamic_batch: bool = False,
                   name: str = "the model", batch_change: tuple[int, int] | None = None) -> ExportedProgram:
    """torch.export.export for PT2E: the ExportedProgram (what the disk cache saves).

    With `dynamic_batch` the batch dimension of every batched input is a symbolic Dim; the example
    batch must then be ≥ 2, since torch.export specialises sizes 0 and 1. `batch_change` =
    (own batch, batch used) when the batch was changed on request: a failure then says so, since
    a model written for its own batch (a hard-coded reshape(1, -1)) cannot be traced at another.
    """
    dynamic_shapes = None
    if dynamic_batch:
        batch = own_batch(example_inputs)
        if batch < 2:
            example_inputs = with_batch(example_inputs, 2)
            batch_change = (batch_change or (batch, batch))[0], 2
        dynamic_shapes = dynamic_batch_shapes(example_inputs)
    try:
        # no_grad, as ExecuTorch's LLM export does: with grad on, a buffer the model writes in
        # place (a decoder's KV cache) comes out of tracing as a non-leaf tensor that no later
        # deepcopy (prepare, the lowerings) can copy.
        with quiet.torch_chatter() as chatter, torch.no_grad():
            program = torch.export.export(model, tuple(example_inputs), dynamic_shapes=dynamic_shapes,
                                          strict=False)
    except Exception as exc:
        raise ExportError(f"torch.export could not trace {name}{_batch_note(batch_change, dynamic_batch)}: "
                          f"{export_reason(exc)}", traceback.format_exc() + chatter.getvalue()) from None
    return program


def dynamic_batch_shapes(inputs: tuple) -> tuple:
    """torch.export dynamic_shapes: one symbolic batch Dim on dim 0 of every batched input."""
    dim, batch = torch.export.Dim("batch", min=1, max=4096), own_batch(inputs)
    return tuple({0: dim} if t.dim() and t.shape[0] == batch else None for t in inputs)


def _batch_note(change: tuple[int, int] | None, dynamic: bool) -> str:
    """" at batch 16 (the batch was changed from 1, …)" for an export error, or "" if unchanged."""
    if change is None or change[0] == change[1]:
        return ""
    own, used = change
    why = "; a dynamic batch is traced at batch 2" if dynamic and used == 2 else ""
    return (f" at batch {used} (the batch was changed from {own}, the batch of its own example "
            f"inputs, to {used}{why}: keep batch {own} if the model is written for it)")


def drop_no_ops(gm: GraphModule) -> GraphModule:
    """Remove nodes that compute nothing at inference:
    - dropout with train=False: the identity in eval mode, but left in the exported graph it would
      be a CPU-fallback island splitting VPU subgraphs for no reason;
    - `_assert_tensor_metadata` (torch.export's dtype check behind every `.to()`): no output, no
      user; left in, it would be listed as a CPU op of the model;
    - dead code: ops whose result nothing reads (transformers computes mask pieces it then
      drops). No program runs them, and torch.export drops them when a program is saved, so
      keeping them would also make a saved program differ from the run that saved it."""
    dropouts = (torch.ops.aten.dropout.default, torch.ops.aten.feature_dropout.default)
    asserts = (torch.ops.aten._assert_tensor_metadata.default,)
    changed = False
    for node in reversed(list(gm.graph.nodes)):  # users first: a dead chain goes in one pass
        if node.op != "call_function":
            continue
        if node.target in dropouts and not _is_training(node):
            node.replace_all_uses_with(node.args[0])
        elif node.users or not (node.target in asserts or not node.is_impure()):
            continue
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

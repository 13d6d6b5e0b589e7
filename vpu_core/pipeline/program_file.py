"""Save a converted Q/DQ program with torch.export.save, atomically (a .pt2 that loads back)."""
from __future__ import annotations

import traceback
from pathlib import Path

from vpu_core.errors import short_reason
from vpu_core.files import SaveError, atomic_write


def save_program(qm, path: Path) -> None:
    """Re-export the converted GraphModule and save it, loadable with torch.export.load."""
    import torch  # lazily: the GUI uses this module's path checks before torch is loaded

    dynamic_shapes = None
    if qm.config.dynamic_batch and not qm.already_quantized:
        batch = torch.export.Dim("batch", min=1, max=4096)
        dynamic_shapes = tuple({0: batch} for _ in qm.example_inputs)
    try:
        program = torch.export.export(qm.converted, tuple(qm.example_inputs),
                                      dynamic_shapes=dynamic_shapes, strict=False)
    except Exception as exc:
        raise SaveError(f"Could not export the converted program for saving: {short_reason(exc)}",
                        traceback.format_exc()) from None
    try:
        atomic_write(path, lambda tmp: torch.export.save(program, str(tmp)))
    except OSError as exc:
        raise SaveError(f"Cannot write {path}: {exc.strerror or short_reason(exc)}.") from None

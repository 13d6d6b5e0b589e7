"""Real integer numerics of the TOSA partitions: the TOSA reference model against the Q/DQ graph.

    numerics = tosa_numerics(qm, prepared_gm, partitions)        # results.TosaNumerics

The program as the device would run it: the prepared graph (graph_prep: the converted graph with
its exact rewrites) computed in torch, except that every partition's outputs come from its TOSA
flatbuffer run in the TOSA reference model (tosa-tools' `tosa_reference_model.run`) on the values
its inputs had in that same run. What reaches the model's outputs is compared with the converted
Q/DQ graph and with the float model on the held-aside batch (SQNR, as `--run` does for XNNPACK).

Per partition, in integers: the partition run on the Q/DQ graph's own values of its inputs, its
outputs against the Q/DQ graph's integers at the same nodes (the quantize nodes it ends in):
the largest difference in LSBs and how many elements differ. That isolates each partition's own
arithmetic (TOSA's RESCALE rounding, its table-based activations) from what earlier partitions
passed on.

The partition's inputs and outputs are nodes of the prepared graph (lowering.Partition), found
when it was lowered, so this needs the TOSA bytes and node names only, not the lowered program.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
import torch
from torch.fx import GraphModule, Interpreter, Node
from torch.utils._pytree import tree_leaves

from vpu_core.errors import InspectorError
from vpu_core.analysis.sqnr import compare_outputs
from vpu_core.targets.arm.results import PartitionNumerics, TosaNumerics

if TYPE_CHECKING:
    from vpu_core.pipeline import QuantizedModel
    from vpu_core.targets.arm.lowering import Partition


class TosaRunError(InspectorError):
    """The TOSA reference model refused a partition's graph or its inputs."""


def tosa_numerics(qm: QuantizedModel, prepared: GraphModule, partitions: Sequence[Partition]) -> TosaNumerics:
    start = time.perf_counter()
    inputs = tuple(qm.heldout)
    reference = _Values(prepared).run(*inputs)
    per_partition = tuple(_own_error(p, reference.values) for p in partitions)
    free = _Values(prepared, partitions, like=reference.values).run(*inputs)
    with torch.inference_mode():
        qdq = _leaves(qm.converted(*inputs))
        floats = _leaves(qm.float_graph(*inputs)) if qm.float_graph is not None else None
    qdq_db, qdq_reason, identical = compare_outputs(qdq, free.outputs)
    if floats is None:
        float_db, float_reason = None, "the program was loaded already quantized: there is no float model"
    else:
        float_db, float_reason, _ = compare_outputs(floats, free.outputs)
    return TosaNumerics(reference=f"TOSA reference model (tosa-tools {_version()})",
                        sqnr_vs_qdq_db=qdq_db, sqnr_vs_qdq_reason=qdq_reason, outputs_identical=identical,
                        sqnr_vs_float_db=float_db, sqnr_vs_float_reason=float_reason,
                        partitions=per_partition, seconds=time.perf_counter() - start)


class _Values(Interpreter):
    """Runs the prepared graph; with `partitions`, each partition's outputs are replaced by the
    TOSA reference model's, computed from the values this run gave its inputs (shaped and typed
    like `like`, the values of a run without them)."""

    def __init__(self, gm: GraphModule, partitions: Sequence[Partition] = (),
                 like: dict[str, Any] | None = None) -> None:
        super().__init__(gm)
        self.like = like or {}
        self.values: dict[str, Any] = {}
        self.outputs: list[torch.Tensor] = []
        self._produced_by = {out: p for p in partitions for out in p.outputs}
        self._done: dict[int, list[torch.Tensor]] = {}

    def run(self, *args: Any, **kwargs: Any) -> _Values:
        with torch.inference_mode():
            result = super().run(*args, **kwargs)
        self.outputs = _leaves(result)
        return self

    def run_node(self, n: Node) -> Any:
        value = super().run_node(n)
        part = self._produced_by.get(n.name)
        if part is not None:
            if part.index not in self._done:
                self._done[part.index] = run_partition(part, [self.values[i] for i in part.inputs],
                                                       [self.like[o] for o in part.outputs])
            value = self._done[part.index][part.outputs.index(n.name)]
        self.values[n.name] = value
        return value


def run_partition(part: Partition, inputs: Sequence[torch.Tensor], like: Sequence[Any]) -> list[torch.Tensor]:
    """The partition's TOSA graph on `inputs`; its outputs shaped and typed like `like` (the
    Q/DQ graph's tensors at the same nodes)."""
    import tosa_reference_model as reference

    arrays = [np.ascontiguousarray(t.detach().cpu().numpy()) for t in inputs]
    outputs, status = reference.run(part.tosa, arrays)
    if status != reference.GraphStatus.TOSA_VALID:
        raise TosaRunError(f"The TOSA reference model could not run partition {part.index}: {status.name}.")
    out = []
    for array, ref in zip(outputs, like):
        tensor = torch.from_numpy(np.array(array))
        if isinstance(ref, torch.Tensor):
            tensor = tensor.reshape(ref.shape).to(ref.dtype)
        out.append(tensor)
    return out


def _own_error(part: Partition, values: dict[str, Any]) -> PartitionNumerics:
    expected = [values[o] for o in part.outputs]
    got = run_partition(part, [values[i] for i in part.inputs], expected)
    diffs = [(g.long() - e.long()).abs() for g, e in zip(got, expected) if isinstance(e, torch.Tensor)]
    elements = sum(d.numel() for d in diffs)
    return PartitionNumerics(part.index, len(part.outputs), elements,
                             max((int(d.max()) for d in diffs if d.numel()), default=0),
                             sum(int((d > 0).sum()) for d in diffs))


def _leaves(value: Any) -> list[torch.Tensor]:
    return [t.detach().clone() for t in tree_leaves(value) if isinstance(t, torch.Tensor)]


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("tosa-tools")
    except metadata.PackageNotFoundError:
        return "unknown"

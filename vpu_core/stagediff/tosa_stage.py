"""The TOSA reference model's values, for the Arm targets' stage of `check --stages`.

The program as an Arm device would run it (vpu_core.targets.arm.tosa_numerics): the prepared
graph in torch, every partition's outputs from its TOSA flatbuffer run in the TOSA reference
model on the values its inputs had in that same run. The reference model runs a partition whole,
so its own values exist where a partition hands a tensor out (its output quantizes) and at every
op after it on the CPU; an op inside a partition whose value stays inside is listed as such.
"""
from __future__ import annotations

from typing import Any, Sequence

import torch
from torch.fx import GraphModule, Node

from vpu_core.analysis.qgraph import is_op
from vpu_core.stagediff.capture import output_quantize, value_node


class TosaStage:
    def __init__(self, prepared: GraphModule, partitions: Sequence[Any]) -> None:
        self.prepared, self.partitions = prepared, list(partitions)
        self.outputs = {o for p in self.partitions for o in p.outputs}
        self.inside = _inside(prepared, self.partitions)
        self.names = {n.name for n in prepared.graph.nodes}

    def values(self, batch: tuple, converted: GraphModule) -> dict[str, torch.Tensor]:
        """Compute op of the converted graph -> its value in the program with TOSA partitions."""
        from vpu_core.targets.arm.tosa_numerics import _Values

        reference = _Values(self.prepared).run(*batch)
        free = _Values(self.prepared, self.partitions, like=reference.values).run(*batch).values
        out = {}
        for op in converted.graph.nodes:
            if not is_op(op) or not self.surfaces(op):
                continue
            value = free.get(value_node(op).name)
            if isinstance(value, torch.Tensor) and value.is_floating_point():
                out[op.name] = value
        return out

    def surfaces(self, op: Node) -> bool:
        """Whether the reference model's value of `op` is seen: it runs on the CPU (after what the
        partitions handed out), or its output quantize is a partition's output."""
        if op.name not in self.names:
            return False
        if op.name not in self.inside:
            return True
        q = output_quantize(op)
        return q is not None and q.name in self.outputs

    def why_not(self, op: Node) -> str:
        if op.name not in self.names:
            return "not in the graph prepared for the Arm backend (rewritten by its exact rewrites)"
        return ("inside a TOSA partition: the reference model runs the partition whole and hands out "
                "only its outputs")


def _inside(gm: GraphModule, partitions: Sequence[Any]) -> set[str]:
    """Nodes between a partition's inputs and its outputs (walked back from the outputs)."""
    by_name = {n.name: n for n in gm.graph.nodes}
    inside: set[str] = set()
    for p in partitions:
        stop = set(p.inputs)
        frontier = [by_name[o] for o in p.outputs if o in by_name]
        while frontier:
            node = frontier.pop()
            if node.name in inside or node.name in stop or node.op in ("placeholder", "get_attr"):
                continue
            inside.add(node.name)
            frontier.extend(node.all_input_nodes)
    return inside

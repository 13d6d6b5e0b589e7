"""The XNNPACK runtime's own value at every op whose output it quantizes, from inside its delegates.

ExecuTorch 1.5.1's devtools.intermediate_output_tap marks nodes of an exported program with a
`tap` op that survives partitioning and becomes an extra program output (`strip_taps_` after
lowering): the delegate hands out the tensor it computed there. We tap every activation
quantize of the converted graph (the int8 value an XNNPACK operator writes, its fused activation
included), so the tapped program computes what the untapped one does and only surfaces more of
it; a delegate's inner float values (a conv before its fused relu) are never materialised and are
listed as such. The tapped program is lowered like vpu_core.targets.xnnpack.lowering's
(int32 biases folded, XnnpackPartitioner) and run with ExecuTorch's Python runtime.

(Tapping the dequantize after the quantize instead breaks XNNPACK's lowering in 1.5.1: its
duplicated dequantize nodes carry no `val` and ChannelsLastTaggedReshapePass fails on them.)
"""
from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
from torch.fx import Node

from vpu_core import quiet
from vpu_core.analysis.qgraph import is_op
from vpu_core.qdq import is_quantize
from vpu_core.targets.xnnpack.lowering import fold_int32_biases, lowering_refusal
from vpu_core.targets.xnnpack.provenance import origin

if TYPE_CHECKING:
    from vpu_core.pipeline import QuantizedModel


@dataclass
class TappedProgram:
    buffer: bytes
    taps: dict[int, tuple[str, str]]     # program output index -> (quantize node, the op it quantizes)
    delegated: dict[str, int]            # converted op -> delegate index
    qparams: dict[str, tuple[float, int]]   # quantize node -> (scale, zero point)


def _tapped(node: Node) -> bool:
    """An activation quantize of a compute op's output (per tensor, a constant scale)."""
    return node.op == "call_function" and is_quantize(node) and "per_tensor" in str(node.target) \
        and isinstance(node.args[0], Node) and is_op(node.args[0]) and isinstance(node.args[1], float)


def tapped_program(qm: QuantizedModel) -> TappedProgram:
    """Lower `qm.converted` for XNNPACK with a tap on every activation quantize; RuntimeRefusal
    (one sentence) when ExecuTorch cannot."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch.devtools.intermediate_output_tap import FULL_TENSOR, strip_taps_, tap_intermediate_outputs_
    from executorch.exir import to_edge_transform_and_lower

    from vpu_core.targets.xnnpack.op_map import build_op_map

    gm, _ = fold_int32_biases(qm)
    names = {n.name for n in gm.graph.nodes}
    by_name = {n.name: n for n in gm.graph.nodes}
    try:
        with quiet.torch_chatter():
            ep = torch.export.export(gm, tuple(qm.example_inputs), strict=False)
            ep, specs = tap_intermediate_outputs_(ep, rules=[(_tapped, FULL_TENSOR)], error_on_empty=False)
            for n in ep.graph.nodes:         # the tap's own value, for the passes that read it
                if "executorch_devtools.tap" in str(n.target) and "val" in n.args[0].meta:
                    n.meta["val"] = n.args[0].meta["val"]
            edge = to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
            strip_taps_(edge)
            program = edge.to_executorch()
    except Exception as exc:  # ExecuTorch raises many types; the user gets one line
        raise lowering_refusal(exc, traceback.format_exc()) from None
    ep_nodes = {n.name: n for n in ep.graph.nodes}
    taps, qparams = {}, {}
    for spec in specs:
        source = origin(ep_nodes[spec.node_name], id(gm.graph), names) if spec.node_name in ep_nodes else None
        q = by_name.get(source or "")
        if q is None or not is_quantize(q):
            continue
        taps[spec.output_index] = (q.name, q.args[0].name)
        qparams[q.name] = (float(q.args[1]), int(q.args[2]))
    op_map = build_op_map(program.exported_program().graph_module, gm)
    return TappedProgram(bytes(program.buffer), taps, _delegated(qm.converted, op_map), qparams)


def _delegated(converted, op_map) -> dict[str, int]:
    """Compute op -> its delegate: named by an xnode, or (an activation XNNPACK fused into the op
    before it, a view) in the delegate of the op feeding it; ops a portable kernel runs are not."""
    named = {n: d.index for d in op_map.delegates for _, n in d.xnodes if n is not None}
    portable = {n for n, _ in op_map.kernels.values() if n is not None}
    out: dict[str, int] = {}
    for node in converted.graph.nodes:
        if not is_op(node) or node.name in portable:
            continue
        if node.name in named:
            out[node.name] = named[node.name]
            continue
        feeding = [out[p.name] for p in _feeding(node) if p.name in out]
        if feeding:
            out[node.name] = feeding[0]
    return out


def _feeding(node: Node) -> list[Node]:
    out, frontier = [], list(node.all_input_nodes)
    while frontier:
        n = frontier.pop()
        if is_op(n):
            out.append(n)
        elif n.op == "call_function":
            frontier.extend(n.all_input_nodes)
    return out


class TapRunner:
    """The tapped program loaded once; `values(batch)`: op name -> the runtime's dequantized value."""

    def __init__(self, tapped: TappedProgram) -> None:
        from vpu_core.targets.xnnpack.measure import _method
        from vpu_core.targets.xnnpack.lowering import LoweredProgram
        from vpu_core.targets.xnnpack.op_map import OpMap

        self.tapped = tapped
        lowered = LoweredProgram(tapped.buffer, OpMap(), (), None, [])
        self._program, self.method = _method(lowered)

    def values(self, batch: tuple) -> dict[str, torch.Tensor]:
        from vpu_core.targets.xnnpack.measure import _execute

        outputs = _execute(self.method, tuple(batch))
        out = {}
        for index, (q, op) in self.tapped.taps.items():
            if index < len(outputs) and isinstance(outputs[index], torch.Tensor):
                scale, zp = self.tapped.qparams[q]
                out[op] = (outputs[index].to(torch.float32) - zp) * scale
        return out

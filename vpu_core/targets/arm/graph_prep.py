"""The converted graph as ExecuTorch's Arm backend takes it: three exact rewrites on a copy.

    prepared = prepare_for_arm(qm.converted)      # Prepared: the copy, and what was rewritten

Any quantizer's Q/DQ graph is judged (the VPU's, XNNPACK's, Arm's own EthosUQuantizer's, a Q/DQ
program from a file). The Arm backend reads three things beyond the Q/DQ nodes themselves, and
each is supplied without changing what the graph computes:

1. Which ops are quantized. Its partitioner takes an op of the INT profile only when the Arm
   quantizer marked it (`node.meta["custom"]["_arm_annotation_info"]`), and folds Q/DQ only into
   marked ops. The mark is what the Arm quantizer's annotation records and what the graph's Q/DQ
   structure says: an op is marked when every floating-point tensor it reads comes from a
   dequantize (or from another marked op: a conv and the ReLU after it) and everything it writes
   goes to a quantize (or to a marked op). Ops left in float stay unmarked, so the partitioner
   gives them its own reason ("Node was not marked as quantized"). The mark is set on every graph,
   Arm's own included: a converted graph read back from the cache keeps no such metadata.
2. The bias of a conv / linear as int32. The Arm backend wants it quantized at s_in · s_w[c]
   (the Arm quantizer's derived bias spec); XNNPACK's quantizer leaves it in float because
   XNNPACK quantizes it itself at exactly that scale when it builds the kernel. The float bias is
   replaced by that int32 tensor behind a dequantize_per_channel: the integers XNNPACK computes
   with. The VPU quantizer's biases already are int32 at s_in · s_w[c].
3. A ReLU after a conv / linear whose output zero point is above its quantize's minimum (symmetric
   activations: the VPU quantizer). ExecuTorch's Arm backend (1.5.1) folds such
   a ReLU into the conv's requantization by raising the quantize's minimum to the zero point, and
   its TOSA RESCALE then ignores that minimum: the ReLU would be lost (negative outputs; measured
   with the TOSA reference model on the VPU graph of a small CNN: 9.6 dB instead of 36.5 dB
   against the Q/DQ graph). A quantize → dequantize pair with the ReLU's own output qparams is
   inserted between the conv and the ReLU: round(x / s) clamped at 0 is round(max(x, 0) / s), so
   the values are the same, and the ReLU becomes a TOSA CLAMP of its own (Vela fuses it back).

One kind of op cannot be given: an average over whole dimensions quantized as one op
(adaptive_avg_pool2d, mean — the VPU's and XNNPACK's quantizers quantize a global pool so). The Arm
backend computes it only in the pieces its own quantizer decomposes it into before annotating (a
sum, then a multiply by 1/N, each quantized); handed a whole one, its lowering decomposes it again
with a float 1/N and fails (TOSA MUL of int32 by float32: the whole program then fails to lower).
Such an op is left unmarked, so it stays on the CPU, and says why (`kept_on_cpu`).

Node names of the converted graph are kept; inserted nodes carry the provenance (`from_node`) of
the op they serve, so everything lowered from them is attributed to that op.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

import torch
from torch.fx import GraphModule, Node

from vpu_core.analysis.qgraph import QGraph
from vpu_core.fx_utils import op_name
from vpu_core.qdq import is_dequantize, is_qdq, is_quantize

ARM_MARK = "_arm_annotation_info"        # executorch.backends.arm ArmAnnotationInfo.CUSTOM_META_KEY
_INT32 = (-(2 ** 31) + 1, 2 ** 31 - 1)   # the Arm quantizer's int32 bias range
_FUSED_INTO = ("conv1d.default", "conv2d.default", "conv3d.default", "convolution.default", "linear.default")
_RELUS = ("relu.default", "relu_.default", "hardtanh.default", "hardtanh_.default")
# Averages the Arm quantizer decomposes before annotating and the backend cannot take whole.
_ARM_DECOMPOSES = ("adaptive_avg_pool2d.default", "_adaptive_avg_pool2d.default", "mean.dim", "mean.default")
WHOLE_AVERAGE = ("ExecuTorch's Arm backend takes a quantized {op} only in the pieces its own quantizer "
                 "decomposes it into (a sum and a multiply by 1/N, each quantized); this graph's quantizer "
                 "quantized it whole, which the backend's lowering cannot compile (TOSA MUL of int32 by float)")
_KEPT_META = ("nn_module_stack", "stack_trace", "from_node", "source_fn_stack", "torch_fn")


@dataclass
class Prepared:
    """The copy of the converted graph that is lowered, and what was done to it (core-internal)."""

    gm: GraphModule
    marked: frozenset[str]               # ops marked as quantized
    quantized_biases: tuple[str, ...]    # ops whose float bias became int32
    separated_relus: tuple[str, ...]     # ReLUs given their own Q/DQ
    kept_on_cpu: dict[str, str] = field(default_factory=dict)   # op -> why it is left unmarked

    def notes(self) -> tuple[str, ...]:
        out = []
        if self.quantized_biases:
            out.append(f"{len(self.quantized_biases)} float bias(es) given to the Arm backend as int32 at "
                       "s_in·s_w (the integers XNNPACK computes with)")
        if self.separated_relus:
            out.append(f"{len(self.separated_relus)} ReLU(s) after a conv / linear given their own Q/DQ "
                       "(ExecuTorch's Arm backend would drop a fused ReLU at a zero point above qmin)")
        return tuple(out)


def prepare_for_arm(converted: GraphModule) -> Prepared:
    gm = copy.deepcopy(converted)
    biases = _quantize_float_biases(gm)
    relus = _separate_zero_point_relus(gm)
    kept = {n.name: WHOLE_AVERAGE.format(op=op_name(n)) for n in gm.graph.nodes
            if n.op == "call_function" and op_name(n) in _ARM_DECOMPOSES}
    marked = _mark_quantized(gm, set(kept))
    gm.graph.eliminate_dead_code()
    gm.recompile()
    return Prepared(gm, frozenset(marked), tuple(biases), tuple(relus),
                    {n: why for n, why in kept.items() if _reads_dequantized(gm, n)})


def _is_float(gm: GraphModule, node: Node) -> bool:
    """A floating-point tensor: by its metadata, or for a constant by the tensor itself (a
    converted graph's get_attr may carry no metadata)."""
    val = node.meta.get("val")
    if node.op == "get_attr" and not isinstance(val, torch.Tensor):
        val = _attr(gm, node)
    return isinstance(val, torch.Tensor) and val.dtype.is_floating_point


def _reads_dequantized(gm: GraphModule, name: str) -> bool:
    node = next(n for n in gm.graph.nodes if n.name == name)
    return any(is_dequantize(a) for a in node.all_input_nodes)


def _mark_quantized(gm: GraphModule, never: set[str]) -> list[str]:
    """Mark the ops whose floats all come from dequantizes or marked ops and all go to quantizes
    or marked ops (the largest such set: start from every op but `never` and drop those that break it)."""
    ops = [n for n in gm.graph.nodes if n.op == "call_function" and not is_qdq(n) and n.name not in never]
    marked = set(ops)
    changed = True
    while changed:
        changed = False
        for n in ops:
            if n in marked and not _reads_and_writes_quantized(gm, n, marked):
                marked.discard(n)
                changed = True
    for n in marked:
        n.meta.setdefault("custom", {})[ARM_MARK] = {"quantized": True}
    return [n.name for n in ops if n in marked]


def _reads_and_writes_quantized(gm: GraphModule, n: Node, marked: set[Node]) -> bool:
    reads = all(is_dequantize(a) or a in marked for a in n.all_input_nodes if _is_float(gm, a))
    if not _is_float(gm, n):
        return reads
    return reads and bool(n.users) and all(is_quantize(u) or u in marked for u in n.users)


def _quantize_float_biases(gm: GraphModule) -> list[str]:
    """Each conv / linear with dequantized input and weight and a float constant bias: the bias as
    int32 at s_in · s_w[c] behind a dequantize_per_channel (see the module docstring)."""
    from vpu_core.profile import load_profile

    g = QGraph(gm, load_profile(None))
    done: list[str] = []
    for op in g.weighted_ops:
        bias = g.bias_arg(op)
        qi, qw = g.input_dq(op), g.weight_dq(op)
        if not isinstance(bias, Node) or bias.op != "get_attr" or qi is None or qw is None:
            continue
        if len(qi.scales) != 1 or not qw.scales:
            continue
        value = _attr(gm, bias)
        if not isinstance(value, torch.Tensor) or not value.dtype.is_floating_point:
            continue
        w_scales = torch.tensor(qw.scales, dtype=torch.float64).expand(value.numel())
        scale = (qi.scales[0] * w_scales).float()
        q = torch.clamp(torch.round(value.detach().double().flatten() / scale.double()), *_INT32).to(torch.int32)
        dq = _int32_dequantize(gm, op, f"_arm_bias_{len(done)}", q, scale)
        dq.meta.update({"val": value, **{k: v for k, v in op.meta.items() if k in _KEPT_META}})
        op.replace_input_with(bias, dq)
        done.append(op.name)
    return done


def _int32_dequantize(gm: GraphModule, before: Node, prefix: str, q: torch.Tensor, scale: torch.Tensor) -> Node:
    zero = torch.zeros(q.numel(), dtype=torch.int64)
    nodes = []
    for suffix, tensor in (("q", q), ("scale", scale), ("zero_point", zero)):
        gm.register_buffer(f"{prefix}_{suffix}", tensor)
        with gm.graph.inserting_before(before):
            nodes.append(gm.graph.get_attr(f"{prefix}_{suffix}"))
        nodes[-1].meta["val"] = tensor
    with gm.graph.inserting_before(before):
        return gm.graph.call_function(torch.ops.quantized_decomposed.dequantize_per_channel.default,
                                      (*nodes, 0, *_INT32, torch.int32))


def _separate_zero_point_relus(gm: GraphModule) -> list[str]:
    """Give a ReLU after a conv / linear its own Q/DQ when its quantize's zero point is above the
    minimum (see the module docstring)."""
    done = []
    for relu in list(gm.graph.nodes):
        if relu.op != "call_function" or op_name(relu) not in _RELUS or len(relu.users) != 1:
            continue
        src, q = relu.args[0], next(iter(relu.users))
        if not isinstance(src, Node) or len(src.users) != 1 or op_name(src) not in _FUSED_INTO:
            continue
        if not is_quantize(q) or len(q.args) < 6 or not isinstance(q.args[2], int) or q.args[2] <= q.args[3]:
            continue
        with gm.graph.inserting_after(src):
            nq = gm.graph.call_function(q.target, (src, *q.args[1:]), dict(q.kwargs))
        with gm.graph.inserting_after(nq):
            ndq = gm.graph.call_function(torch.ops.quantized_decomposed.dequantize_per_tensor.default,
                                         (nq, *q.args[1:]))
        for made in (nq, ndq):
            made.meta.update({k: v for k, v in src.meta.items() if k in _KEPT_META})
        ndq.meta["val"] = src.meta.get("val")
        relu.replace_input_with(src, ndq)
        done.append(relu.name)
    return done


def _attr(gm: GraphModule, node: Node) -> object:
    obj: object = gm
    for part in str(node.target).split("."):
        obj = getattr(obj, part, None)
    return obj

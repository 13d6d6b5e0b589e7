"""Can relaxing a constraint change anything for this model? Answered from the graph the quantizer sees.

A constraint that cannot matter is not quantized again in the ablation: its entry gets delta 0
and the reason returned here. Each check mirrors what MyVPUQuantizer does when the switch is on
(vpu_core.quantizers.vpu): if no node would be annotated differently, the relaxed run would
produce the same Q/DQ graph. The checks read `annotated_view(float_graph)`: the exported graph
after the batch-norm folding prepare_pt2e does before annotating (a conv followed by a batch
norm gains a bias and feeds the relu directly).
"""
from __future__ import annotations

from typing import Callable

from torch.fx import GraphModule, Node

from vpu_core.analysis.rules.static_shape import symbols_of
from vpu_core.fx_utils import op_name
from vpu_core.hardware.kernels import kernel_of
from vpu_core.hardware.ops import listed
from vpu_core.profile import HardwareProfile, op_matches


def annotated_view(float_graph: GraphModule) -> GraphModule:
    """A copy of the float graph as MyVPUQuantizer.annotate sees it inside prepare_pt2e."""
    import copy

    from torchao.quantization.pt2e.utils import _fuse_conv_bn_, _fuse_linear_bn_

    gm = copy.deepcopy(float_graph)
    _fuse_conv_bn_(gm)
    _fuse_linear_bn_(gm)
    return gm


def _vpu_ops(gm: GraphModule, p: HardwareProfile) -> list[Node]:
    return [n for n in gm.graph.nodes if n.op == "call_function" and listed(kernel_of(n), p.vpu_ops)]


def _weighted(gm: GraphModule, p: HardwareProfile) -> list[Node]:
    return [n for n in _vpu_ops(gm, p) if kernel_of(n).weighted
            and isinstance(n.args[kernel_of(n).weight], Node)]


def _weights(gm: GraphModule, p: HardwareProfile) -> str:
    return "" if _weighted(gm, p) else "no conv / linear on the VPU: no weight is quantized"


def _bias(gm: GraphModule, p: HardwareProfile) -> str:
    def has_bias(n: Node) -> bool:
        k = kernel_of(n)
        return k.bias is not None and len(n.args) > k.bias and isinstance(n.args[k.bias], Node)

    return "" if any(has_bias(n) for n in _weighted(gm, p)) else "no conv / linear with a bias on the VPU"


def _shared(gm: GraphModule, p: HardwareProfile) -> str:
    shared = [n for n in _vpu_ops(gm, p) if op_matches(op_name(n), p.shared_scale_ops)]
    return "" if shared else "no add / cat / pooling op (shared-scale op) on the VPU"


def _fused(gm: GraphModule, p: HardwareProfile) -> str:
    for n in _vpu_ops(gm, p):
        if not listed(kernel_of(n), p.fusable_ops) or len(n.users) != 1:
            continue
        user = next(iter(n.users))
        name = op_name(user) if user.op == "call_function" else ""
        if op_matches(name, p.fused_activations) and op_matches(name, p.vpu_ops):
            return ""
    return "no conv / linear / add followed by its relu on the VPU: nothing to fuse"


def _static(gm: GraphModule, p: HardwareProfile) -> str:
    symbolic = any(symbols_of(n.meta.get("val")) for n in gm.graph.nodes)
    return "" if symbolic else ("the graph has static shapes: constraint 8 only refuses symbolic "
                                "dimensions, so relaxing it changes nothing")


_CHECKS: dict[str, Callable[[GraphModule, HardwareProfile], str]] = {
    "weight_per_channel_symmetric": _weights, "bias_int32": _bias, "shared_scale": _shared,
    "fused_relu": _fused, "static_shape": _static,
}


def cannot_matter(rule_id: str, view: GraphModule, profile: HardwareProfile) -> str:
    """Why relaxing `rule_id` cannot change this model's quantization ("" when it can);
    `view` is annotated_view(float graph)."""
    if not profile.enabled(rule_id):
        return f"already off in profile {profile.name}"
    check = _CHECKS.get(rule_id)
    return check(view, profile) if check else ""

"""Can relaxing a constraint change anything for this model? Answered from the graph the quantizer sees.

A constraint that cannot matter is not quantized again in the ablation: its entry gets delta 0
and the reason returned here. Each rule declares its own check (Rule.cannot_matter, in its
module under vpu_core.analysis.rules), mirroring what MyVPUQuantizer does when the switch is on
(vpu_core.targets.vpu.quantizer): if no node would be annotated differently, the relaxed run would
produce the same Q/DQ graph. The checks read `annotated_view(float_graph)`: the exported graph
after the batch-norm folding prepare_pt2e does before annotating (a conv followed by a batch
norm gains a bias and feeds the relu directly).
"""
from __future__ import annotations

from torch.fx import GraphModule

from vpu_core.analysis.rules import RULES
from vpu_core.profile import HardwareProfile


def annotated_view(float_graph: GraphModule) -> GraphModule:
    """A copy of the float graph as MyVPUQuantizer.annotate sees it inside prepare_pt2e."""
    import copy

    from torchao.quantization.pt2e.utils import _fuse_conv_bn_, _fuse_linear_bn_

    gm = copy.deepcopy(float_graph)
    _fuse_conv_bn_(gm)
    _fuse_linear_bn_(gm)
    return gm


def cannot_matter(rule_id: str, view: GraphModule, profile: HardwareProfile) -> str:
    """Why relaxing `rule_id` cannot change this model's quantization ("" when it can);
    `view` is annotated_view(float graph)."""
    if not profile.enabled(rule_id):
        return f"already off in profile {profile.name}"
    check = RULES.get(rule_id).cannot_matter
    return check(view, profile) if check else ""

"""What the VPU quantizer does, one switch per mechanism (vpu_core.targets.vpu.quantizer implements each).

A rule says which of them it relaxes when a profile switches it off (`Rule.relaxes`), so the
quantizer's behaviour under any profile is read from the rules: `quantizer_choices(profile)` in
vpu_core.analysis.rules. With every rule on, every switch is on.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Iterable, Literal

QuantizerKnob = Literal["symmetric_activations", "symmetric_weights", "pow2_scales", "int32_bias",
                        "shared_scales", "fused_activations", "static_shapes"]
# Knobs that only refuse a graph (validate()): on a graph with static shapes relaxing them changes
# nothing the quantizer produces.
SYMBOLIC_ONLY: frozenset[QuantizerKnob] = frozenset({"static_shapes"})


@dataclass(frozen=True)
class QuantizerChoices:
    symmetric_activations: bool = True   # activations per_tensor_symmetric (else per_tensor_affine)
    symmetric_weights: bool = True       # weights per_channel_symmetric [-127, 127] (else affine)
    pow2_scales: bool = True             # observers round every scale up to 2^k
    int32_bias: bool = True              # bias: int32, DerivedQuantizationSpec s_in·s_w
    shared_scales: bool = True           # shared-scale ops: one SharedQuantizationSpec
    fused_activations: bool = True       # a fusable op's output annotated on its relu
    static_shapes: bool = True           # validate() refuses a symbolic dimension

    def relaxed(self, knobs: Iterable[QuantizerKnob]) -> QuantizerChoices:
        return replace(self, **{knob: False for knob in knobs})

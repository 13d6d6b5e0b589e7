"""MyVPUQuantizer: the eight hardware constraints of the VPU written as PT2E annotations.

| constraint                      | mechanism here                                   |
| 1 op list                       | ops outside profile.vpu_ops get no annotation    |
|   (kernel aliases)              | conv1d as a conv2d, addmm / mm / matmul with a   |
|                                 | constant 2-D weight as a linear (weights         |
|                                 | per-channel on their output axis, 1 for [in,out])|
| 2 act per-tensor symmetric      | act_spec(): qscheme=per_tensor_symmetric         |
| 3 weight per-channel symmetric  | weight_spec(): qscheme=per_channel_symmetric     |
| 4 power-of-two scales           | Pow2*Observer rounds calculate_qparams() up      |
| 5 int32 bias, scale s_in*s_w    | bias_spec(): DerivedQuantizationSpec             |
| 6 add/cat/pool share one scale  | SharedQuantizationSpec in _annotate_shared()     |
| 7 conv/linear/add + relu fused  | output annotated on the relu, nothing between    |
| 8 static shapes                 | validate() raises StaticShapeError on any SymInt |

Every switch comes from the hardware profile through the rules: each rule says which mechanism
it relaxes when the profile switches it off (`Rule.relaxes`, read as `self.choices`), so turning
a constraint off in a profile yields a graph that breaks exactly that rule (the tests use this). Per-op limits and SRAM ([op.*],
[memory]) are not read here: like a real NPU compiler, the partition moves an op that breaks
one to the CPU after quantization, where it runs on the same int8 values.
"""
from __future__ import annotations

import torch
from torch.fx import GraphModule, Node
from torchao.quantization.pt2e.observer import MinMaxObserver, PerChannelMinMaxObserver
from torchao.quantization.pt2e.quantizer import (
    DerivedQuantizationSpec, QuantizationAnnotation, QuantizationSpec, Quantizer,
    SharedQuantizationSpec,
)

from vpu_core.analysis.rules import QuantizerChoices, quantizer_choices
from vpu_core.errors import StaticShapeError
from vpu_core.fx_utils import node_dtypes, non_float_tensor, op_name, tensor_shape_text
from vpu_core.hardware.nodes import kernel_of
from vpu_core.hardware.ops import LAYOUT_SHARED_OPS as LAYOUT_OPS
from vpu_core.hardware.ops import LIST_INPUT_OPS, Kernel, listed, op_matches
from vpu_core.profile import HardwareProfile, load_profile
from vpu_core.quantizers.observers import Pow2HistogramObserver, Pow2MinMaxObserver, Pow2PerChannelMinMaxObserver
from vpu_core.quantizers.overrides import NodeChanges, mark_kept
from vpu_core.quantizers.registry import QuantizerRequest

ANNOTATION_KEY = "quantization_annotation"


def make(request: QuantizerRequest) -> MyVPUQuantizer:
    """The registered factory (vpu_core.quantizers.registry): the profile's constraints, the ops
    left in float for mask constants and the run's per-op changes."""
    return MyVPUQuantizer(request.profile, request.keep_float, request.changes or NodeChanges())


class MyVPUQuantizer(Quantizer):
    def __init__(self, profile: HardwareProfile | None = None,
                 keep_float: frozenset[str] = frozenset(), changes: NodeChanges = NodeChanges()) -> None:
        """`keep_float`: names of ops left unannotated although listed: they would quantize a
        mask constant at float32's limit (vpu_core.pipeline.keep_float finds them). `changes`:
        the per-op changes a run asks for (vpu_core.quantizers.overrides): ops kept in float
        (with the activation fused to them) and another observer for an op's output."""
        super().__init__()
        self.profile = profile or load_profile()
        self.keep_float = keep_float
        self.changes = changes
        self.user_float: dict[str, str | None] = {}
        self.eps = 2.0 ** -12

    @property
    def choices(self) -> QuantizerChoices:
        """The mechanisms on under this profile (vpu_core.analysis.rules.quantizer_choices)."""
        return quantizer_choices(self.profile)

    # -- specs ---------------------------------------------------------------------------------
    def act_spec(self, observer: str | None = None) -> QuantizationSpec:
        """`observer`: "histogram" for Pow2HistogramObserver (its Offers: vpu_core.targets.vpu), else min/max."""
        symmetric = self.choices.symmetric_activations
        obs = Pow2MinMaxObserver if self.choices.pow2_scales else MinMaxObserver
        if observer == "histogram" and symmetric and self.choices.pow2_scales:
            obs = Pow2HistogramObserver
        return QuantizationSpec(
            dtype=torch.int8, quant_min=-128, quant_max=127,
            qscheme=torch.per_tensor_symmetric if symmetric else torch.per_tensor_affine,
            observer_or_fake_quant_ctr=obs.with_args(eps=self.eps))

    def weight_spec(self, ch_axis: int = 0) -> QuantizationSpec:
        """Per output channel: axis 0 of a conv / linear weight, 1 of an [in, out] alias weight."""
        obs = Pow2PerChannelMinMaxObserver if self.choices.pow2_scales else PerChannelMinMaxObserver
        if self.choices.symmetric_weights:
            return QuantizationSpec(
                dtype=torch.int8, quant_min=-127, quant_max=127, ch_axis=ch_axis,
                qscheme=torch.per_channel_symmetric, observer_or_fake_quant_ctr=obs.with_args(eps=self.eps))
        # Relaxed profile: zero points free (per-channel affine), which is what constraint 3
        # forbids; per-channel scales stay, they cost the hardware nothing (so the ablation
        # measures the price of symmetry alone).
        return QuantizationSpec(
            dtype=torch.int8, quant_min=-128, quant_max=127, ch_axis=ch_axis,
            qscheme=torch.per_channel_affine, observer_or_fake_quant_ctr=obs.with_args(eps=self.eps))

    def bias_spec(self, node: Node, kernel: Kernel) -> DerivedQuantizationSpec:
        return DerivedQuantizationSpec(
            derived_from=[(node.args[kernel.input], node), (node.args[kernel.weight], node)],
            derive_qparams_fn=_derive_bias_qparams, dtype=torch.int32,
            quant_min=-(2 ** 31), quant_max=2 ** 31 - 1, qscheme=torch.per_channel_symmetric, ch_axis=0)

    # -- annotate ------------------------------------------------------------------------------
    def transform_for_annotation(self, model: GraphModule) -> GraphModule:
        """Constraint 5 per call site: the int32 bias scale is s_in·s_w of the call that reads it,
        so a bias parameter shared by several conv / linear calls (a layer called twice, ALBERT's
        shared layers, tied weights) gets one get_attr per call. Each is then quantized with its
        own call's s_in (one folded int32 constant per call); weights stay one shared tensor."""
        changed = False
        for node in list(model.graph.nodes):
            if node.op != "get_attr" or len(node.users) < 2:
                continue
            for user in [u for u in node.users if _bias_arg(u) is node][1:]:
                with model.graph.inserting_after(node):
                    copy = model.graph.get_attr(str(node.target))
                copy.meta = dict(node.meta)
                user.replace_input_with(node, copy)
                changed = True
        if changed:
            model.recompile()
        return model

    def annotate(self, model: GraphModule) -> GraphModule:
        self.user_float = self._kept_with_fused(model)
        mark_kept(model, self.user_float)
        for node in model.graph.nodes:
            if node.op != "call_function" or ANNOTATION_KEY in node.meta:
                continue
            name, kernel = op_name(node), kernel_of(node)
            if not listed(kernel, self.profile.vpu_ops):
                continue  # constraint 1: no kernel -> no annotation -> stays fp32 on the CPU
            if not is_float_op(node):
                continue  # int64 ids, bool masks, index math: not activations, never quantized
            if node.name in self.keep_float:
                continue  # it reads or writes a mask constant no int8 scale represents
            if node.name in self.user_float:
                continue  # kept in float on request (or fused to such an op)
            if kernel.weighted:
                self._annotate_weighted(node, kernel)
            elif op_matches(name, self.profile.shared_scale_ops):
                self._annotate_shared(node)
            elif op_matches(name, LAYOUT_OPS):
                self._annotate_layout(node)
            else:
                self._annotate_plain(node)
        return model

    def _kept_with_fused(self, model: GraphModule) -> dict[str, str | None]:
        """{op name: the op it is fused to, or None} of the ops kept in float on request: each
        named op and the activation fused to it (the pair is one VPU kernel: a lone relu would be
        an island of its own)."""
        kept: dict[str, str | None] = {}
        for node in model.graph.nodes:
            if node.name in self.changes.keep_float:
                kept.setdefault(node.name, None)
                act = self._fused_activation(node) if node.op == "call_function" else None
                if act is not None:
                    kept.setdefault(act.name, node.name)
        return kept

    def _output_spec(self, node: Node) -> QuantizationSpec:
        """The spec of the tensor `node` writes (its fused activation's, when it has one)."""
        act = self._fused_activation(node)
        return self.act_spec(self.changes.observer(node.name) or
                             (self.changes.observer(act.name) if act is not None else None))

    def _fused_activation(self, node: Node) -> Node | None:
        """The relu/ReLU6 that consumes `node` alone, when the profile fuses them (constraint 7)."""
        if not self.choices.fused_activations or len(node.users) != 1:
            return None
        if not listed(kernel_of(node), self.profile.fusable_ops):
            return None
        user = next(iter(node.users))
        ok = user.op == "call_function" and op_matches(op_name(user), self.profile.fused_activations)
        return user if ok and op_matches(op_name(user), self.profile.vpu_ops) else None

    def _set_output(self, node: Node, out_spec) -> None:
        """Annotate the output on the fused activation if there is one, else on `node`."""
        act = self._fused_activation(node)
        if act is not None:
            act.meta[ANNOTATION_KEY] = QuantizationAnnotation(output_qspec=out_spec, _annotated=True)
        node.meta.setdefault(ANNOTATION_KEY, QuantizationAnnotation(_annotated=True))
        if act is None:
            node.meta[ANNOTATION_KEY].output_qspec = out_spec

    def _annotate_weighted(self, node: Node, kernel: Kernel) -> None:
        qmap = {node.args[kernel.input]: self.act_spec(),
                node.args[kernel.weight]: self.weight_spec(kernel.weight_axis)}
        bias = node.args[kernel.bias] if kernel.bias is not None and len(node.args) > kernel.bias else None
        if isinstance(bias, Node) and self.choices.int32_bias:
            qmap[bias] = self.bias_spec(node, kernel)
        node.meta[ANNOTATION_KEY] = QuantizationAnnotation(input_qspec_map=qmap, _annotated=True)
        self._set_output(node, self._output_spec(node))

    def _annotate_shared(self, node: Node) -> None:
        inputs = _tensor_inputs(node)
        if not inputs:
            return
        if not self.choices.shared_scales:
            node.meta[ANNOTATION_KEY] = QuantizationAnnotation(
                input_qspec_map={i: self.act_spec() for i in inputs}, _annotated=True)
            self._set_output(node, self._output_spec(node))
            return
        first = (inputs[0], node)
        # one scale for the inputs and the output: the output's observer decides it
        qmap = {inputs[0]: self._output_spec(node)}
        qmap.update({i: SharedQuantizationSpec(first) for i in inputs[1:]})
        node.meta[ANNOTATION_KEY] = QuantizationAnnotation(input_qspec_map=qmap, _annotated=True)
        self._set_output(node, SharedQuantizationSpec(first))

    def _annotate_layout(self, node: Node) -> None:
        src = node.args[0]
        if not isinstance(src, Node):
            return
        node.meta[ANNOTATION_KEY] = QuantizationAnnotation(
            input_qspec_map={src: self.act_spec()},
            output_qspec=SharedQuantizationSpec((src, node)), _annotated=True)

    def _annotate_plain(self, node: Node) -> None:
        inputs = _tensor_inputs(node)
        if not inputs:
            return
        node.meta[ANNOTATION_KEY] = QuantizationAnnotation(
            input_qspec_map={i: self.act_spec() for i in inputs}, _annotated=True)
        self._set_output(node, self._output_spec(node))

    # -- validate ------------------------------------------------------------------------------
    def validate(self, model: GraphModule) -> None:
        """Constraint 8: the VPU plans memory at compile time, so no dimension may be symbolic."""
        if not self.choices.static_shapes:
            return
        for node in model.graph.nodes:
            shape_text = tensor_shape_text(node.meta.get("val"))
            if shape_text and not _is_static(node.meta.get("val")):
                raise StaticShapeError(
                    f"The VPU quantizer requires static shapes (constraint 8, static_shape): node "
                    f"'{node.name}' has symbolic shape {shape_text}; export without --dynamic-batch.")


def _bias_arg(node: Node) -> object:
    """The bias argument of a conv / linear (or alias) call, None for any other node."""
    if node.op != "call_function":
        return None
    kernel = kernel_of(node)
    if not kernel.weighted or kernel.bias is None or len(node.args) <= kernel.bias:
        return None
    return node.args[kernel.bias]


def _derive_bias_qparams(obs_or_fqs) -> tuple[torch.Tensor, torch.Tensor]:
    act_obs, weight_obs = obs_or_fqs
    act_scale, _ = act_obs.calculate_qparams()
    weight_scale, _ = weight_obs.calculate_qparams()
    scale = (act_scale * weight_scale).to(torch.float32)
    return scale, torch.zeros_like(scale, dtype=torch.int32)


def _tensor_inputs(node: Node) -> list[Node]:
    """Tensor inputs, each once: `cat((freqs, freqs))` (rotary embeddings) or `add(x, x)` name
    one node twice, and a spec shared with itself would be a cycle for prepare_pt2e."""
    args = node.args[0] if op_matches(op_name(node), LIST_INPUT_OPS) else node.args
    return list(dict.fromkeys(a for a in args if isinstance(a, Node)
                              and isinstance(a.meta.get("val"), torch.Tensor)))


def is_float_op(node: Node) -> bool:
    """Every tensor the op reads and writes is floating point (only those can become int8).

    Token ids, masks, position/index tensors and shape arithmetic stay as they are: quantizing
    them would be wrong (an int64 index is no activation), and PT2E's quantize ops assert float.
    """
    return bool(node_dtypes(node)) and non_float_tensor(node) is None


def _is_static(val) -> bool:
    vals = val if isinstance(val, (list, tuple)) else [val]
    return all(isinstance(d, int) for v in vals if isinstance(v, torch.Tensor) for d in v.shape)

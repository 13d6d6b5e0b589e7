"""Arm's EthosUQuantizer: the quantizer of ExecuTorch's Arm backend (Ethos-U, TOSA INT).

    quantizer = make_ethos_u_quantizer(a16w8=False, per_channel=True, changes=NodeChanges())

Its global config is the backend's `get_symmetric_quantization_config` (int8 activations, affine;
int8 weights, symmetric, per channel unless per-tensor is asked; int32 biases at s_in · s_w) or,
with `a16w8` (`--quantizer ethos-u-a16w8`), `get_symmetric_a16w8_quantization_config` (int16
symmetric activations, int8 weights). The per-op changes it offers (vpu_core.quantizers.overrides; declared in vpu_core.targets.arm)
are the backend's own per-node configs (`set_node_name`): `--keep-float NODE` (no config: the op
stays in float) and `--a16w8 NODE` (the a16w8 config for that op). Its compile spec is ethos-u55-128's: the U55's TOSA subset (TOSA-1.0+INT+int16+int4+u55),
which every Ethos-U and the TOSA INT profile take, so one converted graph serves every Arm target
(and the VPU and XNNPACK judge it too). Its transform_for_annotation decomposes what the
backend computes in pieces (layer_norm, softmax, GELU, …) before annotating: the converted graph
is that decomposed graph.

Four changes to how ExecuTorch ships it, none to its annotations:
- Hugging Face's Conv1D `addmm(bias, x, w)` is given to it as `add(mm(x, w), bias)`
  (addmm_as_mm_add): its own decomposition of an addmm with a constant bias fails (GPT-2).
- torch.export's shape guard (`_guards_fn`, a call_module with no users) is removed before its
  transform_for_annotation, whose ExportPass cannot run call_module nodes (what ExecuTorch's
  own Arm flow gets with `.module(check_guards=False)`, for a program exported with guards).
- The activation observers are FastHistogramObservers (vpu_core.quantizers.fast_observers, as for
  XNNPACK): the same min/max search, bit-identical qparams, unless `reference_observers`.
- Its report of the patterns it rejected (QuantizerReporter, logged and dropped by ExecuTorch) is
  kept on the nodes it did not quantize, as node.meta[FLOAT_REASON_KEY]: the converted graph
  carries it (and the cache keeps it), and an Arm target's CPU node quotes it.
"""
from __future__ import annotations

from typing import Any

from vpu_core.analysis.extreme import FLOAT_REASON_KEY
from vpu_core.quantizers.overrides import NodeChanges
from vpu_core.quantizers.registry import QuantizerRequest

COMPILE_TARGET = "ethos-u55-128"


def make(request: QuantizerRequest) -> Any:
    """The registered factory of "ethos-u" and "ethos-u-a16w8" (vpu_core.quantizers.registry)."""
    return make_ethos_u_quantizer(a16w8=request.name == "ethos-u-a16w8", per_channel=not request.per_tensor,
                                  reference_observers=request.reference_observers,
                                  changes=request.changes or NodeChanges())


def make_ethos_u_quantizer(a16w8: bool = False, per_channel: bool = True, reference_observers: bool = False,
                           changes: NodeChanges = NodeChanges()) -> Any:
    import traceback

    from vpu_core.extras import check_arm_packages

    check_arm_packages("the ethos-u quantizer", vela=False)
    from executorch.backends.arm.ethosu import EthosUCompileSpec
    from executorch.backends.arm.quantizer import (
        EthosUQuantizer, get_symmetric_a16w8_quantization_config, get_symmetric_quantization_config,
    )

    from vpu_core import quiet
    from vpu_core.errors import QuantizationError, root_cause
    from vpu_core.quantizers.configs import with_fast_observers

    class ReportingEthosUQuantizer(EthosUQuantizer):
        def transform_for_annotation(self, model: Any) -> Any:
            _drop_shape_guards(model)
            _refuse_buffer_writes(model)
            addmm_as_mm_add(model)       # its DecomposeAddmmPass fails on a constant bias
            with quiet.backend_log() as log:       # its passes' warnings: the error's detail, not stderr
                try:
                    return super().transform_for_annotation(model)
                except Exception as exc:  # ExecuTorch raises many types; the user gets the innermost
                    raise QuantizationError(f"ExecuTorch's Arm quantizer could not prepare the graph: "
                                            f"{root_cause(exc)}", traceback.format_exc() + log.getvalue()) from None

        def annotate(self, model: Any) -> Any:
            model = super().annotate(model)
            _keep_rejections(self, model)
            return model

    def config_of(wide: bool) -> Any:
        make = get_symmetric_a16w8_quantization_config if wide else get_symmetric_quantization_config
        config = make(is_per_channel=per_channel)
        return config if reference_observers else with_fast_observers(config)

    quantizer = ReportingEthosUQuantizer(EthosUCompileSpec(COMPILE_TARGET)).set_global(config_of(a16w8))
    for name in sorted(changes.wide_activations):
        quantizer.set_node_name(name, config_of(True))
    for name in sorted(changes.keep_float):
        quantizer.set_node_name(name, None)
    return quantizer


def _drop_shape_guards(model: Any) -> None:
    guards = [n for n in model.graph.nodes if n.op == "call_module" and str(n.target).startswith("_guards_fn")
              and not n.users]
    for node in guards:
        model.graph.erase_node(node)
    if guards:
        model.recompile()


def _refuse_buffer_writes(model: Any) -> None:
    """A model that writes a buffer in place (a decoder's KV cache: `index_copy_` into the cache)
    is refused in one sentence: the backend's annotation passes (ExecuTorch 1.5.1) trace that
    write on a fake copy of the buffer and fold the all-zero cache into a 1×1×1 constant, so
    calibration would stop on a shape mismatch deep inside the graph."""
    import torch

    from vpu_core.errors import QuantizationError

    write = next((n for n in model.graph.nodes if n.op == "call_function"
                  and n.target == torch.ops.aten.index_copy_.default
                  and getattr(n.args[0], "op", None) == "get_attr"), None)
    if write is not None:
        raise QuantizationError(
            f"The ethos-u quantizer cannot take a model that writes a buffer in place ({write.name}: "
            f"aten.index_copy_ into {write.args[0].target}, a KV cache): ExecuTorch's Arm annotation "
            "passes fold the cache into a constant; quantize with --quantizer vpu or xnnpack, and "
            "--target ethos-u85-256 still judges the graph.")


def _keep_rejections(quantizer: Any, model: Any) -> None:
    """Each node of a pattern the quantizers rejected, with the rejection's reason (the first one
    for a node), on the nodes that ended up without a quantization annotation."""
    from torchao.quantization.pt2e.quantizer.quantizer import Q_ANNOTATION_KEY

    reasons: dict[str, str] = {}
    for part in getattr(quantizer.quantizer, "quantizers", []):
        reporter = getattr(part, "reporter", None)
        for report in getattr(reporter, "quantizers", {}).values():
            for rejected in report.rejected_patterns:
                if rejected.rejection_reason == report._PREVIOUS_ANNOTATION_REJECT_REASON:
                    continue
                for name in rejected.node_names:
                    reasons.setdefault(name, f"EthosUQuantizer rejected it: {rejected.rejection_reason}")
    for node in model.graph.nodes:
        if node.name in reasons and Q_ANNOTATION_KEY not in node.meta and FLOAT_REASON_KEY not in node.meta:
            node.meta[FLOAT_REASON_KEY] = reasons[node.name]


_ADDMM = ("addmm.default",)
_MM_META = ("nn_module_stack", "stack_trace", "from_node", "source_fn_stack", "torch_fn", "val")


def addmm_as_mm_add(gm: Any) -> list[str]:
    """Each `addmm(bias, x, w)` (beta = alpha = 1: Hugging Face's Conv1D, GPT-2's projections) as
    `add(mm(x, w), bias)`, in place, before the Arm quantizer's transform_for_annotation reads it.

    Its DecomposeAddmmPass writes `mul.Scalar(bias, 1.0)`; with the bias a constant (get_attr)
    ExecuTorch's ExportPass hands the next pass (ReplaceScalarWithTensorPass) the bare Parameter,
    and it fails ("'Parameter' object has no attribute 'to_tensor'"): the whole model is refused.
    mm + add is the decomposition's result without its two multiplies by 1. The add is the
    addmm's node (its name is what the user sees and --keep-float names); the mm is `<name>_mm`."""
    import torch

    from vpu_core.fx_utils import op_name

    done = []
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or op_name(node) not in _ADDMM or len(node.args) != 3:
            continue
        if node.kwargs.get("beta", 1) != 1 or node.kwargs.get("alpha", 1) != 1:
            continue
        bias, x, w = node.args
        with gm.graph.inserting_before(node):
            mm = gm.graph.create_node("call_function", torch.ops.aten.mm.default, (x, w), name=f"{node.name}_mm")
        mm.meta.update({k: v for k, v in node.meta.items() if k in _MM_META})
        node.target, node.args, node.kwargs = torch.ops.aten.add.Tensor, (mm, bias), {}
        done.append(node.name)
    if done:
        gm.recompile()
    return done

"""ExecuTorch's XNNPACKQuantizer: the reference CPU backend's quantizer (per-channel or per-tensor).

Used as ExecuTorch ships it, with one repair where it would break real models: its
transform_for_annotation turns every scalar operand of add / mul into a float32 tensor constant,
also in integer index arithmetic (`arange(n) + 0` in transformers' attention masks), which turns
int64 index tensors into float ones and the model then fails to run ("tensors used as indices
must be long…", "Tensor dtype mismatch"). Integer and bool add / mul keep their scalars.

And one saving: its QAT-only patterns (conv + batch norm) are skipped. prepare_pt2e folds every
batch norm into its conv before annotating, so they never match in post-training quantization,
but building each one runs a strict torch.export of the pattern: 5–10 s of every prepare.

Its static activation observer is torchao's HistogramObserver, whose min/max search can take
seconds per observer on untrained models. Unless `reference_observers` is asked for, the config
is ExecuTorch's own with that observer swapped for FastHistogramObserver: same constructor
arguments, same algorithm, bit-identical qparams (see vpu_core/quantizers/fast_observers.py).
"""
from __future__ import annotations

from typing import Any

from vpu_core.quantizers.configs import with_activation_observer, with_fast_observers
from vpu_core.quantizers.overrides import NodeChanges, mark_kept
from vpu_core.quantizers.registry import QuantizerRequest


def make(request: QuantizerRequest) -> Any:
    """The registered factory (vpu_core.quantizers.registry): per-channel unless --per-tensor."""
    return make_xnnpack_quantizer(per_channel=not request.per_tensor, reference_observers=request.reference_observers,
                                  changes=request.changes or NodeChanges())


def make_xnnpack_quantizer(per_channel: bool = True, reference_observers: bool = False,
                           changes: NodeChanges = NodeChanges()) -> Any:
    """`changes` (vpu_core.quantizers.overrides): ops kept in float are filtered out of every
    pattern (XNNPACKQuantizer's own filter function); an op with per-channel weights or another
    observer is annotated first, with that configuration, before the global pass (whose
    annotators skip what is annotated already)."""
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer, get_symmetric_quantization_config,
    )

    def config_of(per_channel: bool, observer: str | None = None) -> Any:
        config = get_symmetric_quantization_config(is_per_channel=per_channel)
        if observer == "minmax":
            config = with_activation_observer(config, "minmax")
        return config if reference_observers else with_fast_observers(config)

    class FloatOnlyXNNPACKQuantizer(XNNPACKQuantizer):
        SUPPORTED_PATTERNS = [p for p in XNNPACKQuantizer.SUPPORTED_PATTERNS if not p.is_qat]

        def transform_for_annotation(self, model):
            return _keep_integer_scalars(model, super().transform_for_annotation)

        def _annotate_for_quantization_config(self, model):
            mark_kept(model, dict.fromkeys(changes.keep_float))
            for names, config in _node_configs(model, changes, per_channel, config_of):
                self._annotate_all_patterns(model, config, lambda n, names=names: n.name in names)
            return super()._annotate_for_quantization_config(model)

    quantizer = FloatOnlyXNNPACKQuantizer().set_global(config_of(per_channel))
    if changes.keep_float:
        quantizer.set_filter_function(lambda n: n.name not in changes.keep_float)
    return quantizer


def _node_configs(model, changes: NodeChanges, per_channel: bool, config_of) -> list[tuple[set[str], Any]]:
    """(names of one op's pattern nodes, its configuration) for every op with its own: the op,
    its parameters and the activation that may be fused to it (its only user)."""
    out = []
    for node in model.graph.nodes:
        observer = changes.observer(node.name)
        wide = node.name in changes.per_channel
        if observer is None and not wide:
            continue
        names = {node.name, *(a.name for a in node.all_input_nodes if a.op in ("get_attr", "placeholder")
                              and not a.users.keys() - {node})}
        if len(node.users) == 1:
            names.add(next(iter(node.users)).name)
        out.append((names, config_of(per_channel or wide, observer)))
    return out


def _keep_integer_scalars(model, transform):
    """Run ExecuTorch's scalar-to-tensor transform, then give non-float add / mul their scalars
    back (and drop the float constants it made for them)."""
    import torch
    from torch.fx import Node

    from vpu_core.fx_utils import node_dtypes

    targets = (torch.ops.aten.add.Tensor, torch.ops.aten.mul.Tensor)
    keep = {n: n.args for n in model.graph.nodes if n.op == "call_function" and n.target in targets
            and any(not d.is_floating_point for d in node_dtypes(n))}
    model = transform(model)
    for node, args in keep.items():
        made = [a for a in node.args if isinstance(a, Node) and a not in args]
        node.args = args
        for const in made:
            if const.op == "get_attr" and not const.users:
                model.graph.erase_node(const)
                if hasattr(model, const.target):
                    delattr(model, const.target)
    model.recompile()
    return model

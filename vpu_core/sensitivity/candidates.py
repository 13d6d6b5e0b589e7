"""The fixes worth trying for one layer, under what the run's quantizer offers.

For a layer (vpu_core.sensitivity.layers.Layer) and the quantizer's offers
(QuantizerInfo.offers, vpu_core.quantizers.overrides.offers_of):

- keep it in float: the op (with its fused activation) runs on the CPU; its weights and the
  rounding of its own arithmetic go, but the tensor it writes is still quantized when a quantized
  op reads it (that op's input quantizer);
- keep its output in float: the op and the quantized ops that read what it writes (through
  layout ops) run on the CPU, so the tensor is never rounded — the fix for a layer whose cost is
  the quantization of its output (a small residual branch on the stream's shared scale, a pooled
  feature vector before the classifier);
- another observer for its output tensor (each kind the quantizer offers beside its default);
- per-channel weights, when the run quantizes weights per-tensor and the quantizer offers it;
- 16-bit activations (a16w8), where the quantizer offers them.

Each candidate is a RunConfig: the run's own with that change added, and the command-line options
that make it.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from torch.fx import Node

from vpu_core.config import RunConfig
from vpu_core.fx_utils import op_name
from vpu_core.hardware.ops import is_layout
from vpu_core.quantizers.overrides import OPTION, ChangeKind, Offers
from vpu_core.sensitivity.fakequant import FakeQuantGraph
from vpu_core.sensitivity.layers import Layer


@dataclass(frozen=True)
class Candidate:
    node: str                   # the layer it is for
    change: ChangeKind
    nodes: tuple[str, ...]      # the ops it changes
    detail: str
    config: RunConfig
    args: tuple[str, ...]


def candidates(layer: Layer, fq: FakeQuantGraph, config: RunConfig, offers: Offers) -> list[Candidate]:
    name, out = layer.node.name, []
    fused = f" and {layer.out.name}, fused to it," if layer.out is not layer.node else ""
    if "keep_float" in offers.changes:
        out.append(_keep(name, (name,), f"keep {name}{fused} in float: it runs on the CPU", config))
        readers = tuple(r.name for r in output_readers(layer, fq))
        if readers:
            out.append(_keep(name, (name, *readers), (
                f"keep {layer.out.name}'s output in float: {name} and the quantized ops reading it "
                f"({', '.join(readers)}) run on the CPU, so the tensor is never rounded"), config))
    if "observer" in offers.changes and layer.output is not None:
        default = offers.observers[0].title if offers.observers else "its default"
        for kind in offers.observers[1:]:
            fixed = dataclasses.replace(config, observers=(*config.observers, (name, kind.name)))
            out.append(Candidate(name, "observer", (name,), (
                f"observe {layer.out.name}'s output with the {kind.title} observer instead of {default}: "
                f"{kind.description}"), fixed, (OPTION["observer"], f"{name}={kind.name}")))
    if "per_channel" in offers.changes and config.per_tensor and layer.weights:
        fixed = dataclasses.replace(config, per_channel=(*config.per_channel, name))
        out.append(Candidate(name, "per_channel", (name,), f"per-channel weights for {name} (the run is per-tensor)",
                             fixed, (OPTION["per_channel"], name)))
    if "wide_activation" in offers.changes:
        fixed = dataclasses.replace(config, wide_activations=(*config.wide_activations, name))
        out.append(Candidate(name, "wide_activation", (name,), (
            f"{offers.wide_dtype or 'wider'} activations for {name} (a16w8): a finer grid for the tensors it "
            "reads and writes"), fixed, (OPTION["wide_activation"], name)))
    return out


def _keep(layer: str, nodes: tuple[str, ...], detail: str, config: RunConfig) -> Candidate:
    fixed = dataclasses.replace(config, keep_float=(*config.keep_float, *nodes))
    args = tuple(a for n in nodes for a in (OPTION["keep_float"], n))
    return Candidate(layer, "keep_float", nodes, detail, fixed, args)


def output_readers(layer: Layer, fq: FakeQuantGraph) -> list[Node]:
    """The annotated ops that read the layer's output (through its output observer and layout
    ops that share its scale), each once, in graph order."""
    start = [layer.output] if layer.output is not None else [layer.out]
    found: list[Node] = []
    seen: set[Node] = set()
    while start:
        node = start.pop()
        for user in node.users:
            if user in seen:
                continue
            seen.add(user)
            if fq.is_observer(user) or (is_layout(op_name(user)) and user.meta.get("quantization_annotation")):
                if not fq.is_observer(user):
                    found.append(user)
                start.append(user)
            elif user.op == "call_function" and user.meta.get("quantization_annotation") is not None:
                found.append(user)
    order = {n: i for i, n in enumerate(fq.gm.graph.nodes)}
    return sorted((n for n in found if n is not layer.node and n is not layer.out), key=order.__getitem__)

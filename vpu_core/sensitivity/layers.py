"""Per quantized layer: its local, weight-only and activation-only error, in one pass.

A *layer* is an op the quantizer annotated (vpu_core.sensitivity.fakequant's prepared graph keeps
the annotations), with the activation fused to it when its own output is not quantized and one
annotated op reads it alone (conv → relu: the pair writes one quantized tensor, the relu is no
layer of its own). Its *output* is what that pair writes.

One pass of the prepared graph in float (every observer passing through) gives each layer its
exact inputs F. At each layer the op runs three more times on them:

    local        its activation inputs through their observers, its weights (and int32 bias)
                 through theirs, its output through its output observer
    weight only  float activations, quantized weights, no output quantizer
    activation   quantized activations and output, float weights
                 only

each compared with the float output (SQNR, vpu_core.analysis.sqnr). The inputs are exact, so a
layer's local error is the error it *adds*; the cumulative error of the analysis (everything
quantized) is the error it adds plus the error it inherits. An input observer shared with the
producer's output (PT2E shares one observer per edge) counts in both layers' local error: each is
"quantizing this layer alone", and a layer quantized alone quantizes its inputs.

`alone_db`: the end-to-end SQNR when only that layer's observers quantize (one pass of the
whole graph per layer, so only for the layers asked for).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

import torch
from torch.fx import Node
from torch.utils._pytree import tree_leaves

from vpu_core.analysis.sqnr import outputs_sqnr, sqnr_db
from vpu_core.fx_utils import op_name
from vpu_core.hardware.ops import is_layout
from vpu_core.sensitivity.fakequant import FakeQuantGraph, call

ANNOTATION_KEY = "quantization_annotation"


@dataclass(frozen=True)
class Layer:
    """One quantized layer of a prepared graph (see the module docstring)."""

    node: Node                  # the op
    out: Node                   # the node whose output is the layer's (the fused activation, or node)
    inputs: tuple[Node, ...]    # activation observers it reads
    weights: tuple[Node, ...]   # weight / bias observers it reads
    output: Node | None         # its output observer (None: its output is not quantized)

    @property
    def observers(self) -> tuple[Node, ...]:
        return (*self.inputs, *self.weights, *((self.output,) if self.output is not None else ()))


@dataclass(frozen=True)
class LayerError:
    node: str
    op: str
    output_node: str
    local_db: float | None
    weight_db: float | None
    activation_db: float | None
    has_weights: bool


def layers_of(fq: FakeQuantGraph) -> list[Layer]:
    """Every quantized layer of `fq`, in graph order."""
    out: list[Layer] = []
    absorbed: set[Node] = set()
    for node in fq.gm.graph.nodes:
        if node in absorbed or not _annotated_op(node, fq):
            continue
        output = _output_observer(node, fq)
        last = node
        if output is None:
            fused = _fused_user(node, fq)
            if fused is not None:
                absorbed.add(fused)
                last, output = fused, _output_observer(fused, fq)
        inputs = tuple(a for a in _observer_args(node, fq) if fq.observers[a.name].kind == "activation")
        weights = tuple(a for a in _observer_args(node, fq) if fq.observers[a.name].kind == "weight")
        if inputs or weights or output is not None:
            out.append(Layer(node, last, inputs, weights, output))
    return out


def _annotated_op(node: Node, fq: FakeQuantGraph) -> bool:
    annotation = node.meta.get(ANNOTATION_KEY)
    return node.op == "call_function" and annotation is not None and not fq.is_observer(node)


def _observer_args(node: Node, fq: FakeQuantGraph) -> list[Node]:
    return list(dict.fromkeys(a for a in node.all_input_nodes if fq.is_observer(a)))


def _output_observer(node: Node, fq: FakeQuantGraph) -> Node | None:
    return next((u for u in node.users if fq.is_observer(u)), None)


def _fused_user(node: Node, fq: FakeQuantGraph) -> Node | None:
    """The annotated op that alone reads `node`'s unquantized output, and reads nothing else."""
    if len(node.users) != 1:
        return None
    user = next(iter(node.users))
    if not _annotated_op(user, fq) or _output_observer(user, fq) is None:
        return None
    tensors = [a for a in user.all_input_nodes if isinstance(a.meta.get("val"), torch.Tensor)]
    return user if tensors == [node] else None


def _clone_if_mutating(node: Node, value: Any) -> Any:
    target = node.target
    mutable = isinstance(target, torch._ops.OpOverload) and target._schema.is_mutable
    return value.clone() if mutable and isinstance(value, torch.Tensor) else value


def layer_errors(fq: FakeQuantGraph, layers: list[Layer], batch: tuple,
                 quantized_output: Any = None) -> tuple[list[LayerError], dict[str, float]]:
    """Local, weight-only and activation-only SQNR of every layer on `batch` (one float pass);
    with the quantized graph's output on `batch`, also each layer's share of the end-to-end error
    (`_Shares`: the same pass, with autograd, and one backward)."""
    by_node = {layer.node: layer for layer in layers}
    pending: dict[Node, tuple[Layer, dict[str, torch.Tensor]]] = {}
    found: dict[str, LayerError] = {}
    shares = _Shares(fq, layers) if quantized_output is not None else None
    with torch.enable_grad() if shares is not None else torch.inference_mode():
        env: dict[Node, Any] = {}
        output = None
        for node, value in fq.values(batch, env=env, tap=shares.tap if shares is not None else None):
            layer = by_node.get(node)
            if layer is not None:
                with torch.no_grad():
                    pending[layer.out] = (layer, _variants(fq, layer, env))
            if node in pending:
                layer, variants = pending.pop(node)
                found[layer.node.name] = _error(layer, variants, value)
            if node.op == "output":
                output = value
        result = shares.of(output, quantized_output) if shares is not None else {}
    return [found[layer.node.name] for layer in layers if layer.node.name in found], result


class _Shares:
    """Each layer's share of the end-to-end error, to first order, from one backward pass.

    With every observer quantizing, the output error is e = q − f ≈ Σ_O J_O δ_O over the
    observers O, δ_O being the rounding O adds to the value it quantizes (quantize → dequantize
    of its float input, minus that input) and J_O the derivative of the output with respect to
    O's output. Quantization noises of different observers are nearly uncorrelated, so
    e · J_O δ_O ≈ |J_O δ_O|²: the error energy that observer alone causes at the output. One
    backward pass of e through the float graph gives J_Oᵀ e at every observer at once (a zero
    tensor added to each observer's output is where the gradient is read), and
    share_O = (J_Oᵀ e) · δ_O / |e|²; the shares add up to about 1 when first order holds (a
    negative one partly cancels the others).

    A layer's share is that of the observers it owns, each counted once: its weights and bias,
    the tensor it writes, and an input no layer writes (the model's input, a CPU op's output).
    The input it reads from another layer is that layer's (its local error, which quantizes its
    inputs too, would count it twice).
    """

    def __init__(self, fq: FakeQuantGraph, layers: list[Layer]) -> None:
        self.fq = fq
        self.owner: dict[Node, str] = {}
        for layer in layers:
            for o in (*layer.weights, *((layer.output,) if layer.output is not None else ())):
                self.owner.setdefault(o, layer.node.name)
        for layer in layers:
            for o in layer.inputs:
                self.owner.setdefault(o, layer.node.name)
        self.taps: dict[Node, torch.Tensor] = {}
        self.deltas: dict[Node, torch.Tensor] = {}

    def tap(self, node: Node, value: Any) -> Any:
        if node not in self.owner or not isinstance(value, torch.Tensor) or not value.is_floating_point() \
                or self._requantizes(node):
            return value
        with torch.no_grad():
            delta = self.fq.quantize(node, value) - value
        if not bool(delta.any()):
            return value
        zero = torch.zeros_like(value, requires_grad=True)
        self.taps[node], self.deltas[node] = zero, delta.detach()
        return value + zero

    def _requantizes(self, observer: Node) -> bool:
        """The observer quantizes, through layout ops only, a value already quantized by the same
        observer module (a shared scale: view → flatten → …): on its grid, it adds no rounding."""
        module = getattr(self.fq.gm, str(observer.target))
        src = observer.args[0]
        while isinstance(src, Node) and src.op == "call_function" and is_layout(op_name(src)) and src.args:
            src = src.args[0]
        return isinstance(src, Node) and self.fq.is_observer(src) and getattr(self.fq.gm, str(src.target)) is module

    def of(self, output: Any, quantized: Any) -> dict[str, float]:
        pairs = [(f, q) for f, q in zip(tree_leaves(output), tree_leaves(quantized))
                 if isinstance(f, torch.Tensor) and isinstance(q, torch.Tensor) and f.is_floating_point()
                 and f.shape == q.shape and f.requires_grad]
        nodes = list(self.taps)
        if not pairs or not nodes:
            return {}
        errors = [(q.detach().float() - f.detach().float()) for f, q in pairs]
        energy = sum(float((e * e).sum()) for e in errors)
        if not 0.0 < energy < float("inf"):
            return {}
        loss = sum((f * e).sum() for (f, _), e in zip(pairs, errors))
        grads = torch.autograd.grad(loss, [self.taps[n] for n in nodes], allow_unused=True)
        shares: dict[str, float] = {}
        for node, grad in zip(nodes, grads):
            if grad is not None:
                name = self.owner[node]
                shares[name] = shares.get(name, 0.0) + float((grad * self.deltas[node]).sum()) / energy
        return shares


def _variants(fq: FakeQuantGraph, layer: Layer, env: dict[Node, Any]) -> dict[str, torch.Tensor]:
    """The layer's output three ways (see the module docstring), each before its reference exists."""
    def value(quantize_inputs: bool, quantize_weights: bool):
        def of(n: Node) -> Any:
            if fq.is_observer(n):
                kind = fq.observers[n.name].kind
                raw = env[n]            # the float pass: an observer passes its input through
                if (kind == "activation" and quantize_inputs) or (kind == "weight" and quantize_weights):
                    return fq.quantize(n, raw)
                return raw
            return _clone_if_mutating(layer.node, env[n])
        return of

    out: dict[str, torch.Tensor] = {}
    modes = {"local": (True, True, True), "weight": (False, True, False), "activation": (True, False, True)}
    for name, (inputs, weights, output) in modes.items():
        if name == "weight" and not layer.weights:
            continue
        v = call(layer.node, value(inputs, weights))
        if layer.out is not layer.node:
            v = call(layer.out, _through(layer, v, env))
        if output and layer.output is not None:
            v = fq.quantize(layer.output, v)
        out[name] = v
    return out


def _through(layer: Layer, value: torch.Tensor, env: dict[Node, Any]) -> Callable[[Node], Any]:
    """The input values of the layer's fused activation, the op's own output being `value`."""
    def of(n: Node) -> Any:
        return value if n is layer.node else _clone_if_mutating(layer.out, env[n])
    return of


def _error(layer: Layer, variants: dict[str, torch.Tensor], reference: Any) -> LayerError:
    def db(name: str) -> float | None:
        v = variants.get(name)
        if not isinstance(v, torch.Tensor) or not isinstance(reference, torch.Tensor) \
                or v.shape != reference.shape or not reference.is_floating_point():
            return None
        return sqnr_db(reference, v)

    return LayerError(layer.node.name, op_name(layer.node), layer.out.name, db("local"), db("weight"),
                      db("activation"), bool(layer.weights))


def alone_db(fq: FakeQuantGraph, layer: Layer, batch: tuple, float_output: Any) -> float | None:
    """End-to-end SQNR with only `layer`'s observers quantizing (one pass of the whole graph)."""
    mine = set(layer.observers)
    return outputs_sqnr(float_output, fq.output(batch, lambda n: n in mine)).db


def output_local_db(fq: FakeQuantGraph, batch: tuple, float_output: Any) -> float | None:
    """End-to-end SQNR with only the observers the graph output reads directly quantizing."""
    output = next(n for n in fq.gm.graph.nodes if n.op == "output")
    last = {a for a in output.all_input_nodes if fq.is_observer(a)}
    if not last:
        return None
    return outputs_sqnr(float_output, fq.output(batch, lambda n: n in last)).db


def float_leaves(value: Any) -> list[torch.Tensor]:
    return [t for t in tree_leaves(value) if isinstance(t, torch.Tensor) and t.is_floating_point()]


def names(layers: Iterable[Layer]) -> list[str]:
    return [layer.node.name for layer in layers]

"""The prepared graph as switchable fake quantization: each observer quantizes or passes through.

convert_pt2e replaces every observer of the prepared graph by a quantize → dequantize pair with
the observer's qparams (torchao's _replace_observer_with_quantize_dequantize_node_decomposed). Here
each observer node instead *computes* that pair with the same decomposed ops and arguments, or
passes its input through, chosen per observer at run time. With every observer on, a pass
computes what the converted graph computes; with all off, the float graph (batch norms folded,
as prepare folds them); with some, a layer quantized alone or the others in float — which the
converted graph, where quantization is baked in, cannot do.

Observers are told apart by what they observe (`ObserverInfo.kind`): a "weight" observer reads a
parameter or constant (folded weights and int32 biases included), an "activation" observer
anything else. An observer whose dtype convert would not quantize (a float placeholder observer,
a dynamic one) always passes through, as convert removes it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Literal

import torch
from torch.fx import GraphModule, Interpreter, Node
from torch.fx.node import map_arg

ObserverKindName = Literal["weight", "activation"]
_QD = None      # torch.ops.quantized_decomposed, resolved on first use (its library registers on import)


def _ops() -> Any:
    global _QD
    if _QD is None:
        from torch.ao.quantization.fx._decomposed import quantized_decomposed_lib  # noqa: F401

        _QD = torch.ops.quantized_decomposed
    return _QD


@dataclass
class ObserverInfo:
    node: Node
    kind: ObserverKindName
    fake_quant: Callable[[torch.Tensor], torch.Tensor] | None    # None: convert removes it


def _is_constant(node: Node) -> bool:
    """A parameter / constant, or a chain of ops on constants only (a folded batch norm)."""
    seen: set[Node] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if n.op == "placeholder":
            return False
        if n.op == "call_function" or n.op == "call_module":
            stack.extend(n.all_input_nodes)
    return True


def _fake_quant(module: torch.nn.Module) -> Callable[[torch.Tensor], torch.Tensor] | None:
    """quantize → dequantize with `module`'s qparams, as convert_pt2e writes them (None: convert
    would remove the observer)."""
    from torch.ao.quantization.utils import is_per_channel, to_underlying_dtype
    from torchao.quantization.pt2e.convert import SUPPORTED_QDTYPES

    dtype = getattr(module, "dtype", None)
    if dtype not in SUPPORTED_QDTYPES or getattr(module, "is_dynamic", False):
        return None
    qd, underlying = _ops(), to_underlying_dtype(dtype)
    scale, zero_point = module.calculate_qparams()
    qmin, qmax = module.quant_min, module.quant_max
    if is_per_channel(module.qscheme):
        axis = int(module.ch_axis)

        def per_channel(x: torch.Tensor) -> torch.Tensor:
            q = qd.quantize_per_channel.default(x, scale, zero_point, axis, qmin, qmax, underlying)
            return qd.dequantize_per_channel.default(q, scale, zero_point, axis, qmin, qmax, underlying,
                                                     **_out_dtype(x))
        return per_channel
    s, z = float(scale), int(zero_point)

    def per_tensor(x: torch.Tensor) -> torch.Tensor:
        q = qd.quantize_per_tensor.default(x, s, z, qmin, qmax, underlying)
        return qd.dequantize_per_tensor.default(q, s, z, qmin, qmax, underlying, **_out_dtype(x))
    return per_tensor


def _out_dtype(x: torch.Tensor) -> dict:
    return {} if x.dtype == torch.float32 else {"out_dtype": x.dtype}


class FakeQuantGraph:
    """A prepared GraphModule whose observers hold their qparams (vpu_core.pipeline.
    prepared_with_qparams), run with a chosen set of observers quantizing."""

    def __init__(self, prepared: GraphModule) -> None:
        self.gm = prepared
        self.observers: dict[str, ObserverInfo] = {}
        for node in prepared.graph.nodes:
            module = _observer_module(prepared, node)
            if module is not None:
                kind: ObserverKindName = "weight" if _is_constant(node.args[0]) else "activation"
                self.observers[node.name] = ObserverInfo(node, kind, _fake_quant(module))

    def is_observer(self, node: Node) -> bool:
        return node.name in self.observers

    def quantize(self, observer: Node, value: torch.Tensor) -> torch.Tensor:
        """`value` through `observer`'s quantize → dequantize (unchanged when convert removes it)."""
        fq = self.observers[observer.name].fake_quant
        return fq(value) if fq is not None and isinstance(value, torch.Tensor) else value

    def values(self, batch: tuple, on: Callable[[Node], bool] = lambda n: False,
               env: dict[Node, Any] | None = None,
               tap: Callable[[Node, Any], Any] | None = None) -> Iterator[tuple[Node, Any]]:
        """(node, value) of one pass on `batch`, freeing values after their last use (as
        torch.fx.Interpreter.run does); an observer node quantizes when `on(node)`. `env`: the
        dict the pass keeps its live values in (at each yield, every input of the node is there);
        `tap(node, value)`: the value later nodes read instead (yielded too)."""
        interp = Interpreter(self.gm)
        interp.env = {} if env is None else env
        interp.args_iter = iter(self.gm.graph.process_inputs(*batch))
        for node in self.gm.graph.nodes:
            if node.name in self.observers:
                value = interp.env[node.args[0]]
                value = self.quantize(node, value) if on(node) else value
            else:
                value = interp.run_node(node)
            if tap is not None:
                value = tap(node, value)
            interp.env[node] = value
            yield node, value
            for dead in interp.user_to_last_uses.get(node, []):
                del interp.env[dead]

    def output(self, batch: tuple, on: Callable[[Node], bool] = lambda n: False) -> Any:
        """The graph's output on `batch` with the observers `on` selects quantizing."""
        result = None
        with torch.inference_mode():
            for node, value in self.values(batch, on):
                if node.op == "output":
                    result = value
        return result


def _observer_module(gm: GraphModule, node: Node) -> torch.nn.Module | None:
    if node.op != "call_module":
        return None
    module = getattr(gm, str(node.target), None)
    return module if module is not None and hasattr(module, "calculate_qparams") else None


def call(node: Node, value_of: Callable[[Node], Any]) -> Any:
    """Run `node`'s op on the values `value_of` gives its input nodes."""
    args = map_arg(node.args, value_of)
    kwargs = map_arg(node.kwargs, value_of)
    return node.target(*args, **kwargs)

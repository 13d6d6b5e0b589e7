"""Why XnnpackPartitioner left an op outside its delegates, in XNNPACK's own words, as data.

    why = why_not_delegated(edge_lowering)      # lowered node name -> Why

XnnpackPartitioner is configuration based (ExecuTorch's ConfigerationBasedPartitioner): one
config per op target (ConvolutionConfig, AddConfig, SoftmaxConfig, …) whose `check_constraints`
decides whether XNNPACK takes a node, and which explains a "no" through ExecuTorch's
`WhyNoPartition` helper ("invalid dtype", "Expected weight to be a static param", "Only support
1D + 2D Conv", …), which it only logs at debug level. After lowering, every op left in the
top-level graph is asked again, against the lowered program, and what the helper was told is read
back:

- no config for its target: XNNPACK has no kernel for the op (`no_kernel`);
- its config says no: XNNPACK's reason (`rejected`; `dtype` when the reason is the dtype and the
  node reads or writes an integer / bool tensor, which no XNNPACK kernel takes);
- its config says yes: it was left out when the delegates were formed (`left_out`).
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator

import torch
from torch.fx import Node

from vpu_core.analysis.results import XnnpackCause
from vpu_core.fx_utils import dtype_name

if TYPE_CHECKING:
    from vpu_core.targets.xnnpack.lowering import EdgeLowering

LOGGER = "executorch.backends.xnnpack.partition"    # the configs log under it (…partition.config.*)
_FLOAT = (torch.float32, torch.float16, torch.bfloat16, torch.float64)
_FLOAT_NAMES = frozenset(dtype_name(t) for t in _FLOAT)


@dataclass(frozen=True)
class Why:
    """Why one lowered op runs outside XNNPACK."""

    cause: XnnpackCause         # "no_kernel" | "dtype" | "rejected" | "left_out"
    op: str                     # the lowered op, as XNNPACK's configs name targets: "native_layer_norm.default"
    config: str | None = None   # the XNNPACK config that decided: "AddConfig"
    check: str | None = None    # its words: "invalid dtype"
    dtypes: tuple[str, ...] = ()  # what the op reads and writes: ("int64", "bool")

    @property
    def sentence(self) -> str:
        if self.cause == "no_kernel":
            return f"XNNPACK has no kernel for {self.op} (XnnpackPartitioner has no config for it)"
        if self.cause == "left_out":
            return (f"{self.config} accepts {self.op}, but XnnpackPartitioner left it out of the delegates "
                    "it formed")
        said = self.check or "its checks failed"
        if self.dtypes and "dtype" in said:
            said += f" ({', '.join(self.dtypes)})"
        return f"XNNPACK's {self.config} rejected {self.op}: {said}"


def why_not_delegated(lowering: EdgeLowering, nodes: list[Node]) -> dict[str, Why]:
    """Why each of `nodes` (call_function nodes of lowering.lowered_module() outside the
    delegates) is not delegated, keyed by lowered node name."""
    from executorch.exir.backend.canonical_partitioners.config_partitioner import format_target_name

    configs = lowering.partitioner.target_partitioner_configs
    program = lowering.edge.exported_program()
    out: dict[str, Why] = {}
    for node in nodes:
        op = format_target_name(getattr(node.target, "__name__", str(node.target)))
        config = configs.get(op)
        if config is None:
            out[node.name] = Why("no_kernel", op, dtypes=_dtypes(node))
            continue
        with _captured() as said:
            accepted = _accepts(config, node, program)
        name = type(config).__name__
        if accepted:
            out[node.name] = Why("left_out", op, name)
            continue
        dtypes = _dtypes(node)
        check = said[-1] if said else None
        integer = any(d not in _FLOAT_NAMES for d in dtypes)
        cause: XnnpackCause = "dtype" if integer and (check is None or "dtype" in check) else "rejected"
        out[node.name] = Why(cause, op, name, check, dtypes)
    return out


def _accepts(config, node: Node, program) -> bool:
    try:
        return bool(config.check_constraints(node, program))
    except Exception:       # a config may assume what only its own pass guarantees: not taken
        return False


def _dtypes(node: Node) -> tuple[str, ...]:
    """The dtypes a node reads (its tensor inputs) and writes, each once, in that order."""
    vals = [a.meta.get("val") for a in node.all_input_nodes] + [node.meta.get("val")]
    seen = [dtype_name(v.dtype) for v in vals if isinstance(v, torch.Tensor)]
    return tuple(dict.fromkeys(seen))


@contextlib.contextmanager
def _captured() -> Iterator[list[str]]:
    """The reasons XNNPACK's configs give while the block runs. Each config module keeps one
    WhyNoPartition (`why`) that remembers the last node and reason it was called with before it
    logs them at debug level: read from there, no logger or global logging switch touched."""
    import sys

    from executorch.exir.backend.utils import WhyNoPartition

    helpers = [m.why for name, m in list(sys.modules.items())
               if name.startswith(LOGGER) and isinstance(getattr(m, "why", None), WhyNoPartition)]
    for why in helpers:
        why.node, why.reason = None, ""
    said: list[str] = []
    try:
        yield said
    finally:
        said.extend(why.reason for why in helpers if why.node is not None and why.reason)

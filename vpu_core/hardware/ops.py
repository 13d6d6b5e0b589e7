"""The op vocabulary: what each ATen op is to the VPU, read from the kernel specs
(vpu_core.hardware.kernels, one module per kernel), and the bound `Kernel` of one call.

- `LAYOUT_OPS`: ops that move or view data and compute nothing; `LAYOUT_SHARED_OPS` the view-like
  ones the VPU quantizer annotates with their input's scale; `LIST_INPUT_OPS` ops whose tensor
  operands come as one list; `AVG_POOL_OPS` ops whose window sum is divided by the window size K
  (part of the requantization). Which ops share one scale (constraint 6), fuse with an activation
  (7) or run at all (1) is the profile's: [ops] shared_scale, fusable, fused_activations, vpu.
- Kernel aliases (conv1d = 1×k conv2d; addmm / mm / matmul with a constant 2-D weight = linear):
  an alias runs on the VPU when the profile lists its own op or the kernel it runs as ("conv2d",
  "linear"); the kernel's [op.*] limits apply to it.

Names only (no torch: the profile parser and the GUI import this); vpu_core.hardware.nodes
applies them to fx nodes (`kernel_of(node)`).
"""
from __future__ import annotations

from dataclasses import dataclass

from vpu_core.hardware.kernels import KernelSpec, ops_where, spec_of
from vpu_core.hardware.kernels.spec import packet_of

LAYOUT_OPS = ops_where("layout")
LAYOUT_SHARED_OPS = ops_where("shares_input_scale")
LIST_INPUT_OPS = ops_where("list_input")
AVG_POOL_OPS = ops_where("averages")


@dataclass(frozen=True)
class Kernel:
    """The VPU kernel one call runs as (its own op, or the kernel its alias names), with the
    positions of its operands in that call."""

    op: str                      # the node's ATen op, "addmm.default"
    name: str                    # the op the profile sees: "linear.default" for that addmm
    alias: str = ""              # "" for its own kernel, else "addmm with a constant weight"
    input: int | None = None     # weighted ops: argument index of the activation …
    weight: int | None = None    # … of the weight …
    bias: int | None = None      # … and of the bias (None: no bias argument)
    weight_axis: int = 0         # the weight's output-channel axis (per-channel quantization)

    @property
    def packet(self) -> str:
        """"linear", "conv2d", "relu": the kernel without its overload."""
        return self.name.partition(".")[0]

    @property
    def spec(self) -> KernelSpec | None:
        """What the inspector knows about the kernel (None: an op no kernel module declares)."""
        return spec_of(self.name)

    @property
    def weighted(self) -> bool:
        return self.weight is not None

    def weight_of(self, args: tuple) -> object | None:
        """The weight among a call's positional `args` (None: not weighted, or not passed)."""
        return args[self.weight] if self.weight is not None and len(args) > self.weight else None

    @property
    def table(self) -> str:
        """The profile's [op.NAME] table that limits this kernel ("" when none can)."""
        spec = self.spec
        return spec.table if spec is not None else ""

    @property
    def runs_as(self) -> str:
        """"runs as the VPU's linear kernel (addmm with a constant weight)", or ""."""
        return f"runs as the VPU's {self.packet} kernel ({self.alias})" if self.alias else ""


def op_matches(op_name_: str, patterns: tuple[str, ...]) -> bool:
    """`op_name_` is "conv2d.default"; a pattern names a packet ("conv2d") or one overload.
    An in-place variant matches its functional op ("relu_.default" is "relu")."""
    packet, _, overload = op_name_.partition(".")
    functional = packet_of(op_name_)
    if functional != packet:
        op_name_ = f"{functional}.{overload}" if overload else functional
    return op_name_ in patterns or functional in patterns


def listed(kernel: Kernel, patterns: tuple[str, ...]) -> bool:
    """The profile's list `patterns` names this kernel: its own op, or the kernel it runs as."""
    return op_matches(kernel.op, patterns) or (bool(kernel.alias) and op_matches(kernel.name, patterns))


def is_layout(op: str) -> bool:
    return op_matches(op, LAYOUT_OPS)

"""What one kernel is, as data: `KernelSpec`, and the small types it is made of.

A spec names the ATen ops it runs (`ops`) and the ops that run as it (`aliases`), where its
operands sit in a call (`args`), the profile's [op.NAME] limit keys that apply to it and how their
quantities are read (`limits`, `quantities`), its multiply-accumulates (`macs`), the integer kernel
that simulates it (`int_kernel`, a name vpu_core.intsim resolves: the arithmetic needs torch and
the integer values of that layer), and how the VPU quantizer and the requantization read it.

Torch-free: `quantities` and `macs` read an op through `OpView` (shapes and arguments only), which
vpu_core.hardware.nodes implements on fx nodes. A spec claims nothing about the hardware: which
kernels the VPU runs is the profile's op list.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Literal, Mapping, Protocol

if TYPE_CHECKING:
    from vpu_core.hardware.kernels import KernelName
    from vpu_core.hardware.limit_keys import LimitKey, Quantity
    from vpu_core.hardware.ops import Kernel

# The integer implementations vpu_core.intsim has (vpu_core.intsim.implementations maps each to
# its function; a test checks that every name has one).
IntKernel = Literal["conv", "linear", "relu", "hardtanh", "add", "cat", "max_pool", "avg_pool",
                    "adaptive_avg_pool", "layout"]
Shape = tuple[int, ...]


class OpView(Protocol):
    """One call of an op, as much of it as specs read: its name, arguments and shapes."""

    @property
    def op(self) -> str: ...                        # "conv2d.default"

    @property
    def args(self) -> tuple: ...                    # positional arguments (tensors are opaque)

    @property
    def kernel(self) -> Kernel: ...                 # the kernel it runs as, operand positions

    @property
    def out(self) -> Shape | None: ...              # its output's shape (None: unknown)

    def shape(self, value: object) -> Shape | None: ...   # an argument's shape (None: no tensor)

    def bound(self) -> Mapping[str, Any]: ...       # arguments by schema name, defaults included


QuantitiesFn = Callable[[OpView], "dict[Quantity, object]"]
MacFn = Callable[[OpView], int]


@dataclass(frozen=True)
class WeightArgs:
    """Where a weighted op's operands sit in its call, and its weight's output-channel axis."""

    input: int = 0
    weight: int = 1
    bias: int | None = 2
    bias_optional: bool = True      # conv / linear: the bias is there only when passed
    weight_axis: int = 0            # 1 for the [in, out] weight of addmm / mm / matmul


@dataclass(frozen=True)
class Alias:
    """An ATen op that runs as another kernel, the way real backends canonicalise before they pick
    one (ExecuTorch's XNNPACK delegate has a Conv1d → Conv2d pass for exactly this)."""

    op: str                          # "addmm"
    text: str                        # "addmm with a constant weight" (shown to users)
    args: WeightArgs
    constant_weight: bool = False    # only with a constant 2-D weight (two activations: no alias)
    unit_scalars: tuple[str, ...] = ()   # arguments that must be 1 (addmm's beta, alpha)
    overload: str | None = None      # the kernel overload it runs as (None: its own overload)


@dataclass(frozen=True)
class KernelSpec:
    """Everything the inspector knows about one kernel (see the module docstring)."""

    name: KernelName                     # "conv2d": the op a profile lists, its [op.NAME] table
    ops: tuple[str, ...]                 # ATen packets that run as it under their own name
    doc: str                             # one line: what it computes
    aliases: tuple[Alias, ...] = ()
    args: WeightArgs | None = None       # weighted ops only (input, weight, bias)
    limits: tuple[LimitKey, ...] = ()    # its [op.NAME] keys, in the order failures are reported
    quantities: QuantitiesFn | None = None   # reads the quantities its limits bound from an op
    macs: MacFn | None = None            # None: no multiply-accumulate array's work
    int_kernel: IntKernel | None = None  # None: runs in float even inside a VPU subgraph
    layout: bool = False                 # moves or views data, computes nothing
    shares_input_scale: bool = False     # VPU quantizer: output annotated with its input's scale
    list_input: bool = False             # its tensor operands come as one list (cat)
    averages: bool = False               # its window sum is divided by the window size K

    @property
    def table(self) -> str:
        """The profile's [op.NAME] table that limits it ("" when none can)."""
        return self.name if self.limits else ""


# -- helpers for the specs' quantities and macs functions --------------------------------------

def packet_of(op: str) -> str:
    """"relu" for "relu_.default": an in-place variant computes what its functional op computes
    (torch.export keeps `nn.ReLU(inplace=True)` as relu_, and the hardware does not care)."""
    packet = op.partition(".")[0]
    return packet.rstrip("_") if packet.endswith("_") and not packet.startswith("_") else packet


def pair(value: object, spatial: int) -> tuple[int, int] | None:
    """(H, W) of a conv / pool argument: an int, [v] or [h, w]; a 1-D op is (1, v)."""
    values: list[Any] = list(value) if isinstance(value, (list, tuple)) else [value]
    if not values or not all(isinstance(v, int) for v in values):
        return None
    if spatial == 1:
        return (1, int(values[-1]))
    return (int(values[0]), int(values[-1]))


def arg_shape(v: OpView, index: int) -> Shape | None:
    """The shape of positional argument `index` (None when absent or not a tensor)."""
    return v.shape(v.args[index]) if len(v.args) > index else None


def out_times(v: OpView, index: int, dims: slice | int) -> int:
    """Output elements × the product of `dims` of argument `index`'s shape (0 when unknown)."""
    out, shape = v.out, arg_shape(v, index)
    if out is None or not shape:
        return 0
    picked = shape[dims]
    return math.prod(out) * (math.prod(picked) if isinstance(picked, tuple) else picked)

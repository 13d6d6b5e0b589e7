"""The op vocabulary: what each ATen op is to the VPU, in one place.

- `WEIGHTED_OPS`: ATen ops called as (input, weight, bias, …) — ATen semantics, not a hardware
  claim (which of them the VPU runs is the profile's op list).
- `LAYOUT_OPS`: ops that move or view data and compute nothing.
- `LAYOUT_SHARED_OPS`, `LIST_INPUT_OPS`, `AVG_POOL_OPS`: how the quantizer, the shared-scale rule
  and the requantization read layout, concatenation and averaging ops (which ops share one scale
  is the profile's [ops] shared_scale);
- `CONV_OPS`, `MATMUL_OPS`, …: the ops whose multiply-accumulates are counted.
- Kernel aliases, the way real backends canonicalise before they pick a kernel (ExecuTorch's
  XNNPACK delegate has a Conv1d → Conv2d pass for exactly this):
    conv1d                                   = a conv2d with a 1×k kernel (kH = 1, kW = k,
                                               stride (1, s), dilation (1, d));
    addmm / mm / matmul with a constant 2-D  = a linear; the weight is stored [in, out], so its
      second operand (the weight)              output channels (the per-channel axis) are axis 1,
                                               where linear's [out, in] weight has them on axis 0.
  An alias runs on the VPU when the profile lists its own op or the kernel it runs as ("conv2d",
  "linear"); the kernel's [op.*] limits apply to it. A matmul of two activations is no linear:
  it keeps its own name (and, in the shipped profile, stays on the CPU).

Names only (no torch: the profile parser and the GUI import this); vpu_core.hardware.kernels
applies them to fx nodes (`kernel_of(node)`), on the exported float graph (a weight is a
get_attr) and on the converted Q/DQ graph (a weight is a dequantize of a folded constant) alike.
"""
from __future__ import annotations

from dataclasses import dataclass

WEIGHTED_OPS = ("conv1d", "conv2d", "conv3d", "linear")
LAYOUT_OPS = ("flatten", "reshape", "view", "_unsafe_view", "squeeze", "unsqueeze", "permute",
              "transpose", "t", "contiguous", "clone", "alias", "detach", "expand", "slice", "select",
              "unflatten", "split", "split_with_sizes", "chunk", "unbind", "dropout")
# Layout ops the VPU quantizer annotates with their output sharing the input's scale.
LAYOUT_SHARED_OPS = ("flatten", "reshape", "view", "squeeze", "unsqueeze", "permute", "transpose")
# Ops whose tensor operands come as one list (their first argument).
LIST_INPUT_OPS = ("cat", "concat", "stack")
# Averaging ops: their window sum is divided by the window size K (part of the requantization).
AVG_POOL_OPS = ("avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
                "adaptive_avg_pool3d")
# Which ops share one scale (constraint 6), fuse with an activation (7) or run at all (1) is the
# profile's: [ops] shared_scale, fusable, fused_activations, vpu (resources/vpu_default.toml).
# Ops with a multiply-accumulate array's work (vpu_core.analysis.macs counts them).
CONV_OPS = ("conv1d", "conv2d", "conv3d", "convolution")
CONV_TRANSPOSE_OPS = ("conv_transpose1d", "conv_transpose2d", "conv_transpose3d")
MATMUL_OPS = ("matmul", "mm", "bmm", "addmm", "baddbmm", "mv", "addmv", "dot", "vdot")
ATTENTION_OPS = ("scaled_dot_product_attention",)
RECURRENT_OPS = ("gru", "lstm", "rnn_tanh", "rnn_relu")     # aten.gru.input / .data, …
EINSUM_OPS = ("einsum",)
# alias op -> (the kernel it runs as, how it is described to users; "{op}" is the alias' packet)
ALIASES = {
    "conv1d": ("conv2d", "conv1d as a 1×k conv2d"),
    "addmm": ("linear", "addmm with a constant weight"),   # addmm(bias, x, W), beta = alpha = 1
    "mm": ("linear", "mm with a constant weight"),         # mm(x, W)
    "matmul": ("linear", "matmul with a constant weight"),  # matmul(x, W), W 2-D
}
# The [op.*] table whose limits apply to a kernel (vpu_core.hardware.limits declares the keys).
LIMIT_TABLES = {"conv2d": "conv2d", "linear": "linear", "max_pool2d": "max_pool2d",
                "max_pool2d_with_indices": "max_pool2d", "avg_pool2d": "avg_pool2d"}


@dataclass(frozen=True)
class Kernel:
    """The VPU kernel a node runs as (its own op, or the kernel its alias names)."""

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
    def weighted(self) -> bool:
        return self.weight is not None

    def weight_of(self, args: tuple) -> object | None:
        """The weight among a call's positional `args` (None: not weighted, or not passed)."""
        return args[self.weight] if self.weight is not None and len(args) > self.weight else None

    @property
    def table(self) -> str:
        """The profile's [op.NAME] table that limits this kernel ("" when none can)."""
        return LIMIT_TABLES.get(self.packet, "")

    @property
    def runs_as(self) -> str:
        """"runs as the VPU's linear kernel (addmm with a constant weight)", or ""."""
        return f"runs as the VPU's {self.packet} kernel ({self.alias})" if self.alias else ""


def op_matches(op_name_: str, patterns: tuple[str, ...]) -> bool:
    """`op_name_` is "conv2d.default"; a pattern names a packet ("conv2d") or one overload.

    An in-place variant matches its functional op ("relu_.default" is "relu"): torch.export
    keeps `nn.ReLU(inplace=True)` as relu_, and the hardware does not care about aliasing.
    """
    packet, _, overload = op_name_.partition(".")
    if packet.endswith("_") and not packet.startswith("_"):
        packet = packet.rstrip("_")
        op_name_ = f"{packet}.{overload}" if overload else packet
    return op_name_ in patterns or packet in patterns


def listed(kernel: Kernel, patterns: tuple[str, ...]) -> bool:
    """The profile's list `patterns` names this kernel: its own op, or the kernel it runs as."""
    return op_matches(kernel.op, patterns) or (bool(kernel.alias) and op_matches(kernel.name, patterns))


def is_layout(op: str) -> bool:
    return op_matches(op, LAYOUT_OPS)

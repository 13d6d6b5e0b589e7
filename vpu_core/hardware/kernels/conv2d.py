"""conv2d, and conv1d as a conv2d with a 1×k kernel (kH = 1, kW = k, stride (1, s), dilation
(1, d)); conv3d is the same arithmetic with no limit table."""
from __future__ import annotations

from vpu_core.hardware.kernels.spec import Alias, KernelSpec, OpView, WeightArgs, out_times, pair
from vpu_core.hardware.limit_keys import LimitKey, Quantity

_ARGS = WeightArgs(input=0, weight=1, bias=2)


def _key(key: str, kind, quantity: Quantity, doc: str) -> LimitKey:
    return LimitKey("conv2d", key, kind, quantity, doc)


LIMITS = (
    _key("kernel_max", "pair_max", "kernel", "largest kernel [kH, kW]; conv1d is 1×k"),
    _key("stride_max", "pair_max", "stride", "largest stride [sH, sW]; conv1d is 1×s"),
    _key("dilation_max", "pair_max", "dilation", "largest dilation [dH, dW]; conv1d is 1×d"),
    _key("groups", "choice", "groups", '"any", "one" (no grouped conv) or "one_or_depthwise"'),
    _key("in_channels_multiple", "multiple", "in_channels",
         "input channels must be a multiple of this (1: any); depthwise convs check channels once"),
    _key("out_channels_multiple", "multiple", "out_channels",
         "output channels must be a multiple of this (1: any); not checked on a depthwise conv"),
)


def quantities(v: OpView) -> dict[Quantity, object]:
    """Kernel, stride, dilation as (H, W) pairs, groups, and the whole conv's channels; a
    depthwise conv (groups = in_channels > 1) has no output-channel count of its own to check."""
    weight = v.shape(v.kernel.weight_of(v.args))
    if not weight or len(weight) not in (3, 4):
        return {}
    spatial = len(weight) - 2
    a = v.bound()
    groups = int(a.get("groups", 1))
    in_channels, out_channels = int(weight[1]) * groups, int(weight[0])
    depthwise = groups > 1 and int(weight[1]) == 1
    return {"kernel": pair(tuple(weight[2:]), spatial), "stride": pair(a.get("stride", 1), spatial),
            "dilation": pair(a.get("dilation", 1), spatial), "groups": groups, "depthwise": depthwise,
            "in_channels": in_channels, "out_channels": None if depthwise else out_channels}


def macs(v: OpView) -> int:
    """Output elements × (input channels / groups) × kernel size: prod(weight.shape[1:])."""
    return out_times(v, 1, slice(1, None))


CONV2D = KernelSpec(
    "conv2d", ("conv2d",), "2-D convolution: int8 × int8 products summed into an int32 accumulator",
    aliases=(Alias("conv1d", "conv1d as a 1×k conv2d", _ARGS),),
    args=_ARGS, limits=LIMITS, quantities=quantities, macs=macs, int_kernel="conv")
CONV3D = KernelSpec("conv3d", ("conv3d",), "3-D convolution (no limit table)", args=_ARGS, macs=macs,
                    int_kernel="conv")
SPECS = (CONV2D, CONV3D)

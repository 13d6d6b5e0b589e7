"""linear, and addmm / mm / matmul whose weight is a constant 2-D tensor (a parameter, or a
transpose / view of one): their weight is stored [in, out], so its output channels (the
per-channel axis) are axis 1, where linear's [out, in] weight has them on axis 0. A matmul of two
activations is no linear: it keeps its own name (vpu_core.hardware.kernels.matmul)."""
from __future__ import annotations

from vpu_core.hardware.kernels.spec import Alias, KernelSpec, OpView, WeightArgs, out_times
from vpu_core.hardware.limit_keys import LimitKey, Quantity

_IN_OUT = WeightArgs(input=0, weight=1, bias=None, weight_axis=1)       # mm(x, W), matmul(x, W)

LIMITS = (
    LimitKey("linear", "in_features_max", "int_max", "in_features", "largest input width"),
    LimitKey("linear", "out_features_max", "int_max", "out_features", "largest output width"),
)


def quantities(v: OpView) -> dict[Quantity, object]:
    weight = v.shape(v.kernel.weight_of(v.args))
    if not weight or len(weight) != 2:
        return {}
    out_axis = v.kernel.weight_axis
    return {"in_features": int(weight[1 - out_axis]), "out_features": int(weight[out_axis])}


def macs(v: OpView) -> int:
    """Output elements × in_features (the weight's last dimension)."""
    return out_times(v, 1, -1)


LINEAR = KernelSpec(
    "linear", ("linear",), "fully connected: int8 × int8 products summed into an int32 accumulator",
    aliases=(
        # addmm(bias, x, W) with beta = alpha = 1
        Alias("addmm", "addmm with a constant weight", WeightArgs(1, 2, 0, bias_optional=False, weight_axis=1),
              constant_weight=True, unit_scalars=("beta", "alpha"), overload="default"),
        Alias("mm", "mm with a constant weight", _IN_OUT, constant_weight=True, overload="default"),
        Alias("matmul", "matmul with a constant weight", _IN_OUT, constant_weight=True, overload="default"),
    ),
    args=WeightArgs(input=0, weight=1, bias=2), limits=LIMITS, quantities=quantities, macs=macs,
    int_kernel="linear")
SPECS = (LINEAR,)

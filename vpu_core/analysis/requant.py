"""Requantization shifts: M = s_in·s_w/s_out = 2^-n, n the right-shift count, per output channel
(docs/spec.md, "Requantization shifts").

A site is an op the VPU runs (the partition placed it in a VPU subgraph) that requantizes; an op
on the CPU — outside the op list, over a limit, left in float — has no VPU requantization and no
site, whatever its qparams (the requant table, the Shifts tab and JSON `requant` list the same
sites). Sites, read from the Q/DQ graph and its partition:
- conv / linear with quantized input, weight and output: M[c] = s_in·s_w[c] / s_out (s_out read
  through a directly fused relu);
- shared-scale ops (add / cat / pooling of the profile) whose inputs and output scales differ:
  one M per input, M[i] = s_in[i] / s_out;
- average pooling: the sum over a window of K values is divided by K, so M[i] = s_in[i] / (K·s_out)
  (always a site: K is part of the requantization).
`exact` is False where some M is not a power of two; then `shifts` is None and `nearest_shifts`
holds round(-log2 M) with the relative error of that shift in `max_rel_error`.
"""
from __future__ import annotations

from typing import Any

import math
from typing import TYPE_CHECKING, Mapping

from torch.fx import Node

from vpu_core.analysis.qgraph import QGraph, QParams
from vpu_core.formatting import is_pow2
from vpu_core.analysis.results import Placement, RequantSite
from vpu_core.analysis.rules.shared_scale import shared_scale_ops
from vpu_core.fx_utils import op_name
from vpu_core.hardware.ops import AVG_POOL_OPS, op_matches

if TYPE_CHECKING:
    from vpu_core.hardware.profile import HardwareProfile


def make_site(node: str, multipliers: list[float], profile: HardwareProfile, **extra: Any) -> RequantSite:
    """The site of `node` with multipliers M (one per channel / input). An M that is not a finite
    positive number (a scale of inf, 0 or NaN: analysis.extreme) has no shift at all: the site is
    then inexact and out of range, with no nearest shifts and an infinite error."""
    if not all(math.isfinite(m) and m > 0 for m in multipliers):
        return RequantSite(node=node, shifts=None, exact=False, nearest_shifts=(),
                           max_rel_error=math.inf, out_of_range=True, **extra)
    nearest = tuple(round(-math.log2(m)) for m in multipliers)
    exact = all(is_pow2(m) for m in multipliers)
    err = 0.0 if exact else max(abs(m - 2.0 ** -n) / m for m, n in zip(multipliers, nearest))
    out_of_range = any(n < profile.min_shift or n > profile.max_shift for n in nearest)
    return RequantSite(node=node, shifts=nearest if exact else None, exact=exact, nearest_shifts=nearest,
                       max_rel_error=err, out_of_range=out_of_range, **extra)


def _weighted_site(g: QGraph, op: Node) -> RequantSite | None:
    x, w, out = g.input_dq(op), g.weight_dq(op), g.output_q(op)
    if x is None or w is None or out is None or len(x.scales) != 1 or len(out.scales) != 1 or not w.scales:
        return None
    s_in, s_out = x.scales[0], out.scales[0]
    mult = [s_in * s / s_out for s in w.scales]
    return make_site(op.name, mult, g.profile, s_in=s_in, s_w=w.scales, s_out=s_out, kind="weighted")


def pool_window(g: QGraph, op: Node) -> int:
    """Number of values an average pool sums per output value (1 when it cannot be read)."""
    if op_name(op).startswith("adaptive"):
        src, dst = g.tensor_meta.get(op.args[0].name), g.tensor_meta.get(op.name)
        if not src or not dst:
            return 1
        n_spatial = len(dst[0]) - 2
        k = 1
        for i, o in zip(src[0][-n_spatial:], dst[0][-n_spatial:]):
            k *= max(int(i) // max(int(o), 1), 1)
        return k
    kernel = op.args[1] if len(op.args) > 1 else op.kwargs.get("kernel_size", 1)
    kernel = kernel if isinstance(kernel, (list, tuple)) else [kernel]
    divisor = op.args[6] if len(op.args) > 6 else op.kwargs.get("divisor_override")
    return int(divisor) if divisor else math.prod(int(k) for k in kernel)


def _shared_site(g: QGraph, op: Node, ins: list[QParams], out: QParams | None) -> RequantSite | None:
    if out is None or len(out.scales) != 1 or any(len(i.scales) != 1 for i in ins):
        return None
    window = pool_window(g, op) if op_matches(op_name(op), AVG_POOL_OPS) else 1
    mult = [i.scales[0] / (window * out.scales[0]) for i in ins]
    if window == 1 and all(m == 1.0 for m in mult):
        return None  # one shared scale and no division: nothing is requantized
    return make_site(op.name, mult, g.profile, s_in=ins[0].scales[0], s_out=out.scales[0],
                     kind="avg_pool" if window > 1 else "shared",
                     input_scales=tuple(i.scales[0] for i in ins), window=window)


def requant_sites(g: QGraph, assignment: Mapping[str, Placement] | None = None) -> tuple[RequantSite, ...]:
    """Every requantization site of `g`, in graph order; with the partition's `assignment`
    (node name -> subgraph id or "cpu") only those of ops placed on the VPU."""
    sites = [_weighted_site(g, op) for op in g.weighted_ops]
    shared = shared_scale_ops(g, g.profile.shared_scale_ops + AVG_POOL_OPS)
    sites += [_shared_site(g, *site) for site in shared]
    order = {n.name: i for i, n in enumerate(g.nodes)}
    kept = (s for s in sites if s is not None
            and (assignment is None or isinstance(assignment.get(s.node), int)))
    return tuple(sorted(kept, key=lambda s: order[s.node]))

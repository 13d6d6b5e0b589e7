"""Integer simulation against numbers computed by hand (real torch.export graphs, no mocks)."""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
import torch
from torch import nn

from vpu_core.intsim.arith import exact_sum, round_fraction, shift_round, zero_point_expansion
from vpu_core.intsim.compare import run_integer, simulate_graph
from vpu_core.profile import load_profile
from vpu_core import quiet

quiet.import_torchao()
qd = torch.ops.quantized_decomposed
INT8 = (-128, 127, torch.int8)


class HandConv(nn.Module):
    """quantize → dequantize → conv2d(int8 weight per channel, int32 bias) [→ act] → quantize → dequantize."""

    def __init__(self, w_q, b_q, e_in=-4, e_w=-5, e_out=-4, z_in=0, z_w=None, z_out=0, padding=0,
                 act: str | None = None) -> None:
        super().__init__()
        c = w_q.shape[0]
        self.register_buffer("w_q", w_q.to(torch.int8))
        self.register_buffer("w_scale", torch.full((c,), 2.0 ** e_w))
        self.register_buffer("w_zp", torch.zeros(c, dtype=torch.int64) if z_w is None
                             else torch.as_tensor(z_w, dtype=torch.int64))
        self.register_buffer("b_q", torch.as_tensor(b_q).to(torch.int32))
        self.register_buffer("b_scale", torch.full((c,), 2.0 ** (e_in + e_w)))
        self.register_buffer("b_zp", torch.zeros(c, dtype=torch.int64))
        self.s_in, self.s_out, self.z_in, self.z_out = 2.0 ** e_in, 2.0 ** e_out, z_in, z_out
        self.padding, self.act = [padding, padding], act

    def forward(self, x):
        q = qd.quantize_per_tensor.default(x, self.s_in, self.z_in, *INT8)
        dq = qd.dequantize_per_tensor.default(q, self.s_in, self.z_in, *INT8)
        w = qd.dequantize_per_channel.default(self.w_q, self.w_scale, self.w_zp, 0, -127, 127, torch.int8)
        b = qd.dequantize_per_channel.default(self.b_q, self.b_scale, self.b_zp, 0, -2 ** 31, 2 ** 31 - 1,
                                              torch.int32)
        y = torch.ops.aten.conv2d.default(dq, w, b, [1, 1], self.padding)
        if self.act == "relu":
            y = torch.ops.aten.relu.default(y)
        elif self.act == "relu6":
            y = torch.ops.aten.hardtanh.default(y, 0.0, 6.0)
        q2 = qd.quantize_per_tensor.default(y, self.s_out, self.z_out, *INT8)
        return qd.dequantize_per_tensor.default(q2, self.s_out, self.z_out, *INT8)


class HandAvgPool(nn.Module):
    """quantize → dequantize → avg_pool2d(kernel) → quantize (same scale) → dequantize."""

    def __init__(self, kernel: int, e: int = -4) -> None:
        super().__init__()
        self.kernel, self.s = kernel, 2.0 ** e

    def forward(self, x):
        q = qd.quantize_per_tensor.default(x, self.s, 0, *INT8)
        dq = qd.dequantize_per_tensor.default(q, self.s, 0, *INT8)
        y = torch.ops.aten.avg_pool2d.default(dq, [self.kernel, self.kernel])
        q2 = qd.quantize_per_tensor.default(y, self.s, 0, *INT8)
        return qd.dequantize_per_tensor.default(q2, self.s, 0, *INT8)


def exported(module: nn.Module, x: torch.Tensor):
    """The module as a GraphModule whose buffers are get_attr nodes (like a converted graph)."""
    return torch.export.export(module, (x,)).module()


def as_input(q: torch.Tensor, e: int = -4, z: int = 0) -> torch.Tensor:
    """A float input that quantizes to exactly `q` at scale 2^e, zero point z."""
    return ((q.to(torch.float32) - z) * 2.0 ** e).to(torch.float32)


def ints(out: torch.Tensor, e: int = -4, z: int = 0) -> list:
    """The int8 values behind a dequantized output (exact for 2^e scales)."""
    if isinstance(out, (tuple, list)):          # a graph returns its outputs as a tuple
        (out,) = out
    return (torch.round(out / 2.0 ** e) + z).to(torch.int64).flatten().tolist()


MODES = ("round_half_up", "round_half_even", "truncate")


def profile(**settings):
    return replace(load_profile(), **settings)


# -- the right shift ------------------------------------------------------------------------------

def test_shift_rounding_modes_by_hand():
    #           80/32 = 2.5   -80/32   112/32  81/32  79/32  -81/32  48/32  -48/32
    acc = torch.tensor([80, -80, 112, 81, 79, -81, 48, -48])
    expected = {
        "round_half_up":   [3, -2, 4, 3, 2, -3, 2, -1],   # (acc + 16) >> 5: ties towards +inf
        "round_half_even": [2, -2, 4, 3, 2, -3, 2, -2],   # ties to even, like torch.round
        "truncate":        [2, -3, 3, 2, 2, -3, 1, -2],   # acc >> 5: floor
    }
    for mode, want in expected.items():
        assert shift_round(acc, 5, mode).tolist() == want, mode
    # the Q/DQ graph rounds half to even: that mode is torch.round of the exact quotient
    assert shift_round(acc, 5, "round_half_even").tolist() == torch.round(acc / 32).long().tolist()


def test_shift_per_channel_and_left_shift():
    acc = torch.tensor([[12, 12, 12]])
    n = torch.tensor([2, 0, -3])                         # 12/4, 12, 12·8 (M = 2^3 > 1)
    assert shift_round(acc, n, "round_half_up").tolist() == [[3, 12, 96]]


def test_round_fraction_agrees_with_shift_round():
    for num in range(-70, 71):
        for mode in MODES:
            assert round_fraction(Fraction(num, 8), mode) == int(shift_round(torch.tensor([num]), 3, mode)[0])


# -- a 3x3 conv computed by hand --------------------------------------------------------------------
# input q_x = 1..9 (one channel, 3x3, no padding), s_in = 2^-4, s_w = 2^-5, s_out = 2^-4:
# M = 2^-4 · 2^-5 / 2^-4 = 2^-5, a right shift by n = 5. Four output channels:
#   c0: w = all 1,    b =  35: acc =  45 + 35  =   80 →   2.5    (a .5 LSB tie)
#   c1: w = all -1,   b = -35: acc = -45 - 35  =  -80 →  -2.5    (a negative tie)
#   c2: w = 10 at the centre, b = 62: acc = 50 + 62 = 112 → 3.5
#   c3: w = all 127,  b =   0: acc = 127 · 45 = 5715 → 178.6 → saturates to 127

def _hand_conv(act=None) -> HandConv:
    w = torch.zeros(4, 1, 3, 3)
    w[0], w[1], w[2, 0, 1, 1], w[3] = 1, -1, 10, 127
    return HandConv(w, torch.tensor([35, -35, 62, 0]), act=act)


HAND_X = as_input(torch.arange(1, 10).reshape(1, 1, 3, 3))
HAND_EXPECTED = {"round_half_up": [3, -2, 4, 127], "round_half_even": [2, -2, 4, 127],
                 "truncate": [2, -3, 3, 127]}


@pytest.mark.parametrize("mode", MODES)
def test_conv3x3_by_hand(mode):
    gm = exported(_hand_conv(), HAND_X)
    assert ints(gm(HAND_X)) == [2, -2, 4, 127]                     # the Q/DQ graph: half to even
    assert ints(run_integer(gm, profile(rounding=mode), (HAND_X,))) == HAND_EXPECTED[mode]
    report = simulate_graph(gm, profile(rounding=mode), [(HAND_X,)])
    (layer,) = report.layers
    differ = sum(a != b for a, b in zip(HAND_EXPECTED[mode], [2, -2, 4, 127]))
    assert (layer.node, layer.elements, layer.saturated, layer.clipped) == ("conv2d", 4, 0, 1)
    assert layer.max_abs_lsb == (1 if differ else 0) and layer.mismatch_frac == differ / 4


def test_conv3x3_accumulator_saturates_at_profile_width():
    # a 12-bit accumulator holds [-2048, 2047]: c3's 5715 saturates to 2047 → 2047/32 = 63.97 → 64
    gm = exported(_hand_conv(), HAND_X)
    narrow = profile(accumulator_bits=12)
    assert ints(run_integer(gm, narrow, (HAND_X,))) == [3, -2, 4, 64]
    (layer,) = simulate_graph(gm, narrow, [(HAND_X,)]).layers
    assert layer.saturated == 1 and layer.max_abs_lsb == 127 - 64
    assert dict(layer.diff_hist) == {0: 2, 1: 1, -63: 1}


def test_fused_relu6_is_a_clamp_in_the_output_domain():
    # relu6 at s_out = 2^-4 clamps at 6 / 2^-4 = 96; relu clamps c1 (-2.5) to 0
    gm = exported(_hand_conv(act="relu6"), HAND_X)
    assert ints(gm(HAND_X)) == [2, 0, 4, 96]
    assert ints(run_integer(gm, profile(rounding="round_half_up"), (HAND_X,))) == [3, 0, 4, 96]


# -- zero points: the seed's cross-term identity ------------------------------------------------------

def test_seed_cross_term_identity():
    # the seed chapter's example: one output position, 27 products (a 3x3x3 conv), z_x = 5, z_w = 3
    g = torch.Generator().manual_seed(0)
    q_x = torch.randint(-128, 128, (27,), generator=g, dtype=torch.int64)
    q_w = torch.randint(-127, 128, (27,), generator=g, dtype=torch.int64)
    direct = int(((q_x - 5) * (q_w - 3)).sum())
    expanded = zero_point_expansion((q_x * q_w).sum(), q_x.sum(), q_w.sum(), 5, torch.tensor(3), 27)
    assert direct == int(expanded) == -20196                       # the number the seed prints


def test_conv_with_zero_points_matches_the_direct_formula():
    # non-zero z_x, per-channel z_w and z_out, and padding (pads with z_x: a real 0)
    torch.manual_seed(1)
    q_x = torch.randint(-100, 100, (2, 3, 5, 5))
    w = torch.randint(-60, 60, (4, 3, 3, 3))
    b = torch.randint(-500, 500, (4,))
    z_x, z_w, z_out = 5, [3, -2, 0, 1], -3
    module = HandConv(w, b, e_in=-3, e_w=-6, e_out=-2, z_in=z_x, z_w=z_w, z_out=z_out, padding=1)
    x = as_input(q_x, -3, z_x)
    gm = exported(module, x)
    centred_w = (w - torch.tensor(z_w).view(4, 1, 1, 1)).double()
    acc = torch.nn.functional.conv2d((q_x - z_x).double(), centred_w, padding=1).long() + b.view(1, 4, 1, 1)
    n = -2 - (-3) - (-6)                                               # shift 7
    want = (torch.round(acc / 2 ** n) + z_out).clamp(-128, 127).flatten().tolist()
    assert ints(run_integer(gm, profile(rounding="round_half_even"), (x,)), -2, z_out) == want
    assert ints(gm(x), -2, z_out) == want                               # the Q/DQ graph agrees


# -- average pooling ---------------------------------------------------------------------------------

def test_avg_pool_non_pow2_window_by_hand():
    # a 3x3 window (K = 9) summing to 77: exactly 77/9 = 8.556 → 9 (the Q/DQ graph)
    q = torch.tensor([[9, 9, 9], [9, 9, 9], [9, 9, 5]]).reshape(1, 1, 3, 3)
    x = as_input(q)
    gm = exported(HandAvgPool(3), x)
    assert ints(gm(x)) == [9]
    cases = {("reciprocal", 16): 9,      # 77 · round(2^16/9) = 77 · 7282 = 560714; / 2^16 = 8.556 → 9
             ("reciprocal", 6): 8,       # 77 · round(2^6/9)  = 77 · 7 = 539; / 64 = 8.42 → 8
             ("nearest_shift", 16): 10}  # 77 / 2^round(log2 9) = 77 / 8 = 9.625 → 10
    for (rule, bits), want in cases.items():
        p = profile(avg_pool_divisor=rule, reciprocal_bits=bits)
        assert ints(run_integer(gm, p, (x,))) == [want], (rule, bits)
        (layer,) = simulate_graph(gm, p, [(x,)]).layers
        assert layer.window == 9 and "non_pow2_window" in layer.flags
        assert layer.max_abs_lsb == abs(want - 9)


def test_avg_pool_pow2_window_is_an_exact_shift():
    # 2x2 windows (K = 4) sum to 10, 11, -10, 7: 2.5, 2.75, -2.5, 1.75
    q = torch.tensor([[1, 2, 2, 3], [3, 4, 2, 4], [-1, -2, 1, 2], [-3, -4, 2, 2]]).reshape(1, 1, 4, 4)
    x = as_input(q)
    gm = exported(HandAvgPool(2), x)
    assert ints(gm(x)) == [2, 3, -2, 2]
    for mode, want in {"round_half_up": [3, 3, -2, 2], "round_half_even": [2, 3, -2, 2],
                       "truncate": [2, 2, -3, 1]}.items():
        assert ints(run_integer(gm, profile(rounding=mode), (x,))) == want, mode
        (layer,) = simulate_graph(gm, profile(rounding=mode), [(x,)]).layers
        assert layer.window == 4 and not layer.flags


# -- exactness of the sums --------------------------------------------------------------------------

def test_exact_sum_cuts_long_reductions_and_stays_exact():
    torch.manual_seed(2)
    x = torch.randint(-128, 128, (3, 5000))
    w = torch.randint(-127, 128, (7, 5000))
    x[:, :100], w[:, :100] = -128, -127                 # ≥ 100·2^14: beyond float32's 2^24
    want = (x.unsqueeze(1) * w.unsqueeze(0)).sum(-1)    # int64 reference
    got = exact_sum(torch.nn.functional.linear, x, w, terms=5000, split=(-1, 1, 1))
    assert torch.equal(got, want)
    assert torch.equal(exact_sum(torch.nn.functional.linear, x, w, terms=5000), want)   # float64 path

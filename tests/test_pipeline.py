"""Real torch.export + PT2E runs through both quantizers."""
import math

import pytest
import torch

from vpu_core.errors import StaticShapeError
from vpu_core.pipeline import RunConfig, run_pipeline
from vpu_core.qdq import is_quantize, is_dequantize

QPT = torch.ops.quantized_decomposed.quantize_per_tensor.default


def _act_qparams(gm):
    return [(float(n.args[1]), int(n.args[2])) for n in gm.graph.nodes if n.target == QPT]


def _is_pow2(s):
    return math.log2(s).is_integer()


def test_vpu_conv_relu_has_pow2_scales_and_zero_points(run_cached):
    qm = run_cached(model="conv_relu", quantizer="vpu")
    qparams = _act_qparams(qm.converted)
    assert len(qparams) == 2  # input and the fused relu output: nothing between conv and relu
    assert all(_is_pow2(s) and z == 0 for s, z in qparams)
    relu = next(n for n in qm.converted.graph.nodes if n.name == "relu")
    assert is_quantize(next(iter(relu.users)))
    conv = next(n for n in qm.converted.graph.nodes if n.name == "conv2d")
    assert not is_quantize(next(iter(conv.users)))  # conv feeds relu directly (constraint 7)


def test_vpu_bias_is_int32_with_derived_scale(run_cached):
    qm = run_cached(model="conv_relu", quantizer="vpu")
    gm = qm.converted
    conv = next(n for n in gm.graph.nodes if n.name == "conv2d")
    act_dq, w_dq, b_dq = conv.args[:3]
    assert all(is_dequantize(n) for n in (act_dq, w_dq, b_dq))
    assert b_dq.args[-1] == torch.int32
    w_scale = getattr(gm, w_dq.args[1].target)
    b_scale = getattr(gm, b_dq.args[1].target)
    torch.testing.assert_close(b_scale, w_scale * act_dq.args[1], rtol=0, atol=0)


@pytest.mark.slow
def test_xnnpack_conv_relu_is_not_vpu_friendly(run_cached):
    qm = run_cached(model="conv_relu", quantizer="xnnpack")
    qparams = _act_qparams(qm.converted)
    assert not all(_is_pow2(s) for s, _ in qparams)
    assert qparams[-1][1] == -128  # relu output: asymmetric, zero point at the bottom


def test_vpu_refuses_dynamic_batch_naming_the_constraint():
    with pytest.raises(StaticShapeError) as info:
        run_pipeline(RunConfig(model="conv_relu", dynamic_batch=True))
    assert "static" in info.value.message and "'x'" in info.value.message


@pytest.mark.slow
def test_xnnpack_accepts_dynamic_batch(run_cached):
    qm = run_cached(model="conv_relu", quantizer="xnnpack", dynamic_batch=True)
    x = next(n for n in qm.converted.graph.nodes if n.op == "placeholder")
    assert not isinstance(x.meta["val"].shape[0], int)


def test_vpu_observer_scales_record_the_rounding(run_cached):
    qm = run_cached(model="resnet8", quantizer="vpu")
    assert qm.observer_scales
    for rec in qm.observer_scales:
        for s, f in zip(rec["scale"], rec["float_scale"]):
            assert _is_pow2(s) and f <= s < 2 * f + 1e-12


def test_cancel_stops_the_pipeline():
    import threading

    from vpu_core.errors import Cancelled

    cancel = threading.Event()
    seen = []

    def progress(stage, frac):
        seen.append(stage)
        if stage == "calibrate":
            cancel.set()

    with pytest.raises(Cancelled):
        run_pipeline(RunConfig(model="conv_relu"), progress=progress, cancel=cancel)
    assert seen[0] == "load" and "convert" not in seen

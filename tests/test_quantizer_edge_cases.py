"""What unseen real models did to the VPU quantizer and the checker (qa-1 #1, #2, #4), on one tiny
model (tests/models/shared_mask_gru.py: a Linear called twice, a finfo.min mask added to
activations, a GRU) and on resnet8's graph with one scale made infinite. One real run each,
shared by every test here."""
import copy
import dataclasses
import json
import math
from pathlib import Path

import torch

from vpu_core.analysis.qgraph import QGraph
from vpu_core.qdq import is_quantize

MODEL = str(Path(__file__).parent / "models" / "shared_mask_gru.py")


def test_a_layer_called_twice_gets_its_own_bias_quantization_per_call(run, analysis, fx):
    # qa-1 #2 (ALBERT): the shared bias was quantized once, with the first call's s_in.
    qm, a = run(MODEL), analysis(MODEL)
    assert [v.rule for v in a.violations] == []
    g = QGraph(qm.converted, qm.profile)
    calls = g.weighted_ops
    assert [op_name.name for op_name in calls] == ["linear", "linear_1"]
    s_in = [g.input_dq(op).scales[0] for op in calls]
    assert s_in[0] != s_in[1]                               # the two calls really differ
    for op, s in zip(calls, s_in):
        bias = g.qp[g.bias_arg(op)]
        assert bias.dtype == torch.int32
        assert bias.scales == tuple(s * w for w in g.weight_dq(op).scales)
    weights = [fx.attr(qm.converted, g.weight_dq(op).node.args[0]) for op in calls]
    assert torch.equal(weights[0], weights[1])              # the weight stays one int8 tensor
    assert a.summary.weights_quantized == 2


def test_recurrent_ops_count_their_macs(analysis):
    # qa-1 #4: GRU 8 → 4 at batch 4 × 6 steps: T·B × (w_ih 12×8 + w_hh 12×4); two linears 8 → 8.
    a = analysis(MODEL)
    gru = next(c for c in a.partition.cpu_nodes if c.op == "gru.input")
    assert gru.macs == 4 * 6 * (12 * 8 + 12 * 4)
    assert (a.summary.macs_total, a.summary.macs_vpu) == (gru.macs + 2 * 4 * 6 * 8 * 8, 2 * 4 * 6 * 8 * 8)

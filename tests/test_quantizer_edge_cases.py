"""What unseen real models did to the VPU quantizer and the checker, on one tiny
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
    # ALBERT: the shared bias was quantized once, with the first call's s_in.
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


def test_a_mask_constant_stays_in_float_and_says_why(analysis):
    # GPT-Neo: `where(cond, 0, finfo.min)` added to activations gave scale 2^122 (inf
    # with two masks summed) and a crash; the add now stays in float on the CPU with the reason.
    a = analysis(MODEL)
    add = next(c for c in a.partition.cpu_nodes if c.node == "add")
    assert add.cause == "float" and "it reads where, which reaches -3.4e+38 (float32's lowest value: a " \
                                     "mask constant)" in add.reason
    assert [(n.kind, n.node) for n in a.notes] == [("kept_float", "add")]
    assert isinstance(a.partition.assignment["linear_1"], int)   # its output is ordinary: int8
    assert max(s for t in a.tensors for s in t.scales) < 1.0
    assert a.sqnr_db is not None and a.sqnr_db > 20


def test_recurrent_ops_count_their_macs(analysis):
    # GRU 8 → 4 at batch 4 × 6 steps: T·B × (w_ih 12×8 + w_hh 12×4); two linears 8 → 8.
    a = analysis(MODEL)
    gru = next(c for c in a.partition.cpu_nodes if c.op == "gru.input")
    assert gru.macs == 4 * 6 * (12 * 8 + 12 * 4)
    assert (a.summary.macs_total, a.summary.macs_vpu) == (gru.macs + 2 * 4 * 6 * 8 * 8, 2 * 4 * 6 * 8 * 8)


def test_an_infinite_scale_is_a_note_never_a_crash(run):
    # A Q/DQ graph with scale inf (what the VPU quantizer made of GPT-Neo's summed masks, or a
    # loaded program): analysis, JSON, text, HTML and the integer simulation all survive, and say so.
    from vpu_core.analysis import analyze
    from vpu_core.intsim import simulate
    from vpu_core.reports.html import build_report_html
    from vpu_core.reports.json_report import analysis_to_json
    from vpu_core.reports.text_report import analysis_to_text

    qm = run("resnet8")
    gm = copy.deepcopy(qm.converted)
    q = next(n for n in gm.graph.nodes if is_quantize(n) and n.args[0].op == "call_function")
    for node in (q, *q.users):
        node.args = (node.args[0], math.inf, *node.args[2:])
    gm.recompile()
    bad = dataclasses.replace(qm, converted=gm)
    a = analyze(bad)
    assert [(n.kind, n.node) for n in a.notes] == [("extreme_scale", q.name)]
    assert "has scale inf" in a.notes[0].message
    broken = [s for s in a.requant if not s.exact]
    assert broken and all(s.nearest_shifts == () and s.out_of_range for s in broken)
    data = json.loads(json.dumps(analysis_to_json(a), allow_nan=False))
    assert data["notes"][0]["node"] == q.name and None in next(t["scales"] for t in data["tensors"]
                                                               if t["node"] == q.name)
    assert "! " + a.notes[0].message in analysis_to_text(a)
    assert q.name in build_report_html(a)
    assert "scale inf" in simulate(bad).refused

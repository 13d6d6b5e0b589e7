"""check --stages and diff A B (vpu_core.stagediff): real runs of zoo models, no mocks.

The fault test seeds one wrong activation scale (x8 in the quantize and its dequantizes) into a
program stock PT2E made (the XNNPACK quantizer) and asks that the first divergent op float → qdq
be the faulted op, within one op; `python -m tools.bench --stages` runs the same over more models and places.
"""
from __future__ import annotations

import dataclasses
import json

import pytest

from vpu_core.analysis.qgraph import is_op
from vpu_core.config import RunConfig
from vpu_core.session import default_session
from vpu_core.stagediff import check_stages
from vpu_core.stagediff.faults import activation_quantizes, seed_scale_fault


def _qm(model: str, quantizer: str = "xnnpack"):
    return default_session().quantized(RunConfig(model=model, quantizer=quantizer, calib_batches=2))


@pytest.mark.parametrize("model, index", [("conv_relu", 0), ("resnet8", 6), ("transformer", 12)])
def test_a_seeded_scale_fault_is_the_first_divergent_op(model, index):
    qm = _qm(model)
    order = [n.name for n in qm.converted.graph.nodes if is_op(n)]
    clean = check_stages(qm, "none")
    assert clean.divergence("float→qdq").node is None, clean.divergence("float→qdq").why
    assert dict(clean.matched)["float→qdq"] >= 0.95
    faulty, op = seed_scale_fault(qm.converted, index, 8.0)
    found = check_stages(dataclasses.replace(qm, converted=faulty), "none").divergence("float→qdq")
    assert found.node is not None and abs(order.index(found.node) - order.index(op)) <= 1, (op, found)
    assert "rounding step" in found.why


def test_seeding_changes_one_scale_in_the_quantize_and_its_dequantize():
    qm = _qm("conv_relu")
    faulty, op = seed_scale_fault(qm.converted, 0, 8.0)
    before, after = activation_quantizes(qm.converted)[0], activation_quantizes(faulty)[0]
    assert op == before.args[0].name and after.args[1] == pytest.approx(8 * before.args[1])
    assert all(u.args[1] == after.args[1] for u in after.users)


def test_batch_norms_are_folded_and_every_op_is_matched_on_resnet8():
    diff = check_stages(_qm("resnet8", "vpu"), "vpu")
    assert diff.names == ("float", "qdq", "vpu") and dict(diff.matched) == {"float→qdq": 1.0, "qdq→vpu": 1.0}
    folded = [u for u in diff.unmatched if u.node.startswith("batch_norm")]
    assert len(folded) == 7 and all(u.stage == "float" and u.why.startswith("folded into conv2d") for u in folded)
    relu = next(n for n in diff.nodes if n.node == "relu_1")
    qdq, vpu = dict(relu.values)["qdq"], dict(relu.values)["vpu"]
    assert 20 < qdq.sqnr_db < 50 and qdq.cosine > 0.99 and vpu.placement.startswith("vpu")
    assert vpu.added_lsb is not None and vpu.added_lsb <= 2      # the VPU's shifts: at most a rounding step or two


def test_xnnpack_stage_reads_the_runtime_inside_its_delegate():
    diff = check_stages(_qm("resnet8"), "xnnpack")
    assert diff.names == ("float", "qdq", "xnnpack")
    ops, delegated, operators, all_operators = diff.runtime_coverage
    assert delegated == 22 and operators == all_operators == ops     # every XNNPACK operator's output
    fused = [u for u in diff.unmatched if u.stage == "xnnpack"]
    assert len(fused) == delegated - ops and all(u.why.startswith("fused") for u in fused)
    values = [dict(n.values)["xnnpack"] for n in diff.nodes if "xnnpack" in dict(n.values)]
    assert len(values) == ops and all(v.placement.startswith("xnnpack") for v in values)
    assert max(v.added_lsb for v in values) <= 4 and diff.divergence("qdq→xnnpack").node is None


def test_check_stages_json(run_cli):
    code, out, err = run_cli("check", "conv_relu", "--stages", "--format", "json", "--calib-batches", "2")
    assert code == 0, err
    stages = json.loads(out)["stages"]
    assert stages["names"] == ["float", "qdq", "vpu"] and stages["matched"] == {"float→qdq": 1.0, "qdq→vpu": 1.0}
    assert [n["node"] for n in stages["nodes"]] == ["conv2d", "relu"]
    relu = stages["nodes"][1]
    assert relu["module"] == "relu" and relu["op"] == "relu.default"
    assert set(relu["values"]) == {"qdq", "vpu"}
    assert {"sqnr_db", "cosine", "max_abs_lsb", "added_db"} <= set(relu["values"]["qdq"])
    assert set(stages["first_divergent"]) == {"float→qdq", "qdq→vpu"} and stages["unmatched"] == []


def test_diff_float_against_quantized_and_two_quantizers(run_cli):
    code, out, err = run_cli("diff", "float:conv_relu", "conv_relu", "--format", "json", "--calib-batches", "2")
    assert code == 0, err
    result = json.loads(out)
    assert result["stages"]["names"] == ["A", "B"] and result["stages"]["matched"] == {"A→B": 1.0}
    assert result["structure"]["added"] == result["structure"]["removed"] == []
    changed = {c["node_b"]: c["qparams"] for c in result["structure"]["changed"]}
    assert changed["relu"]["output"]["a"] == "float" and changed["relu"]["output"]["b"].startswith("int8 scale")
    assert changed["conv2d"]["weight"]["a"] == "none" and "scales" in changed["conv2d"]["weight"]["b"]
    code, out, err = run_cli("diff", "conv_relu", "conv_relu", "--quantizer-b", "xnnpack", "--calib-batches", "2")
    assert code == 0, err
    assert "Structure: 0 op(s) only in B, 0 only in A" in out and "int8 scale" in out


def test_diff_of_two_models_with_other_inputs_is_one_sentence(run_cli):
    code, _, err = run_cli("diff", "conv_relu", "resnet8", "--calib-batches", "2")
    assert code == 2 and "A and B take different inputs" in err

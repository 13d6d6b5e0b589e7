"""Every accuracy figure rests on HELDOUT_SAMPLES held-aside samples, in calls at the model's batch:
a batch-1 model's SQNR (end to end, per layer) and integer simulation sum their signal and noise
energies over 8 calls, never an average of dB; calibration sees its own batches."""
import math

import pytest
import torch
from torch.utils._pytree import tree_leaves

from vpu_core.analysis.sqnr import SqnrSum, sqnr
from vpu_core.config import HELDOUT_SAMPLES

BATCH1 = "tests/corpus/batch1_reshape.py"       # a keyword CNN whose own batch is 1


def _energies(pairs) -> float:
    signal = noise = 0.0
    for f, q in pairs:
        f, q = f.double().flatten(), q.double().flatten()
        signal += float((f * f).sum())
        noise += float(((f - q) ** 2).sum())
    return 10 * math.log10(signal / noise)


def test_an_sqnr_over_calls_sums_energies_and_keeps_its_reasons():
    gen = torch.Generator().manual_seed(3)
    quiet, loud = torch.randn(64, generator=gen) * 0.01, torch.randn(64, generator=gen) * 10
    noisy = [x + torch.randn(64, generator=gen) * 0.005 for x in (quiet, loud)]
    total = SqnrSum().add(quiet, noisy[0]).add(loud, noisy[1]).result()
    assert total.db == pytest.approx(sqnr(torch.cat([quiet, loud]), torch.cat(noisy)).db, abs=1e-6)
    average = (sqnr(quiet, noisy[0]).db + sqnr(loud, noisy[1]).db) / 2
    assert abs(total.db - average) > 20                      # the loud call carries the signal
    constant = SqnrSum().add(torch.full((4,), 2.0), torch.zeros(4)).add(torch.full((4,), 2.0), torch.ones(4))
    assert constant.result().db is None and "constant (2 everywhere)" in constant.result().reason
    varied = SqnrSum().add(torch.full((4,), 2.0), torch.zeros(4)).add(torch.full((4,), 3.0), torch.zeros(4))
    assert varied.result().db == pytest.approx(0.0)          # constant per call, not over both
    nan = SqnrSum().add(quiet, noisy[0]).add(torch.tensor([1.0, math.nan]), torch.zeros(2)).result()
    assert nan.db is None and "1 non-finite value(s) (inf / NaN) of 66" in nan.reason


@pytest.fixture(scope="module")
def batch1():
    from vpu_core.analysis import analyze
    from vpu_core.intsim.compare import simulate_graph
    from vpu_core.pipeline import RunConfig, run_pipeline

    qm = run_pipeline(RunConfig(model=BATCH1))
    return qm, analyze(qm), simulate_graph(qm.converted, qm.profile, qm.heldout_calls, qm.float_graph)


def test_a_batch1_model_is_measured_on_eight_held_aside_samples(batch1):
    from vpu_core.intsim.compare import simulate_graph
    from vpu_core.pipeline.calibration import synthetic_batches

    qm, a, sim = batch1
    calls = qm.heldout_calls
    assert len(calls) == HELDOUT_SAMPLES == 8 and all(b[0].shape[0] == 1 for b in calls)   # the model's batch
    assert len(qm.calib_batches) == 4 and qm.example_inputs[0].shape[0] == 1          # 4 calibration samples
    seen = {b[0].numpy().tobytes() for b in qm.calib_batches}
    assert len(seen) == 4 and not seen & {b[0].numpy().tobytes() for b in calls}       # never calibrated on
    assert len({b[0].numpy().tobytes() for b in calls}) == 8
    # the first call is the one held-aside batch of before (same seed): a batch-8 model is unchanged
    assert torch.equal(calls[0][0], synthetic_batches(qm.example_inputs, 1, qm.config.seed + 7919)[0][0])
    with torch.no_grad():
        outputs = [(tree_leaves(qm.float_graph(*b))[0], tree_leaves(qm.converted(*b))[0]) for b in calls]
    assert a.sqnr_db == pytest.approx(_energies(outputs), abs=1e-3)
    single = [sqnr(f, q).db for f, q in outputs]
    assert max(single) - min(single) > 0.1                     # one sample is one draw among several
    assert a.accuracy_samples == 8 and a.accuracy_calls == 8
    assert sim.samples == 8 and sim.refused is None
    assert sim.qdq_sqnr_db == pytest.approx(a.sqnr_db, abs=1e-3)     # the same eight calls
    elements = sum(layer.elements for layer in sim.layers)
    assert elements and all(sum(c for _, c in layer.diff_hist) == layer.elements for layer in sim.layers)
    first = [layer.elements for layer in simulate_graph(qm.converted, qm.profile, calls[:1], qm.float_graph).layers]
    assert [layer.elements for layer in sim.layers] == [8 * n for n in first]


def test_the_per_layer_sqnr_rests_on_every_call(batch1):
    from vpu_core.analysis.sqnr import graph_sqnr

    qm, a, _ = batch1
    one, _ = graph_sqnr(qm.float_graph, qm.converted, qm.heldout)
    assert set(a.layer_sqnr) == set(one) and a.layer_sqnr != one
    linear = next(n for n in a.layer_sqnr if n.startswith(("linear", "addmm")))
    assert a.layer_sqnr[linear] == pytest.approx(_energies(_layer(qm, linear)), abs=1e-3)


def _layer(qm, name: str) -> list:
    """(float, dequantized) values of op `name`'s output on every held-aside call."""
    from vpu_core.analysis.sqnr import node_values

    pairs = []
    dq = next(u2 for u in next(n for n in qm.converted.graph.nodes if n.name == name).users
              for u2 in u.users)
    with torch.inference_mode():
        for b in qm.heldout_calls:
            f = next(v for n, v in node_values(qm.float_graph, b) if n.name == name).clone()
            q = next(v for n, v in node_values(qm.converted, b) if n.name == dq.name).clone()
            pairs.append((f, q))
    return pairs


def test_the_reports_say_eight_samples(batch1):
    from vpu_core.formatting import db_on_samples
    from vpu_core.reports.text_report import analysis_to_text

    _, a, _ = batch1
    assert f"SQNR (float vs quantized, 8 samples held aside): {a.sqnr_db:.1f} dB" in analysis_to_text(a)
    assert db_on_samples(a.sqnr_db, a.accuracy_samples) == f"{a.sqnr_db:.1f} dB (8 samples)"


def test_a_calibration_file_holds_aside_what_calibration_did_not_take(tmp_path):
    from vpu_core.pipeline.calibration import calibration_data
    from vpu_core.config import RunConfig

    example = (torch.zeros(1, 3),)
    path = tmp_path / "calib.pt"
    torch.save(torch.arange(30, dtype=torch.float32).reshape(10, 3), path)
    batches, heldout = calibration_data(RunConfig(model="m", calib_data=str(path)), example, ["x"])
    assert [int(b[0][0, 0]) for b in batches] == [0, 3, 6, 9]              # the first 4 samples
    assert [int(b[0][0, 0]) for b in heldout] == [12, 15, 18, 21, 24, 27]   # the 6 left, all held aside
    batches, heldout = calibration_data(RunConfig(model="m", calib_data=str(path), calib_batches=1),
                                        (torch.zeros(5, 3),), ["x"])
    assert len(batches) == 1 and len(heldout) == 1 and int(heldout[0][0][0, 0]) == 15   # batch 5: one call


def test_the_ablation_noise_estimate_rests_on_every_held_aside_sample(batch1):
    """A batch-1 model had no jackknife error (one sample per call); over its 8 calls it has one."""
    from vpu_core.whatif.ablation import _Noise
    from vpu_core.whatif.noise import run_outputs, sample_noise

    qm, _, _ = batch1
    noise = _Noise(qm)
    assert noise.delta_se(qm.converted) == 0.0                   # the baseline against itself
    per_sample = noise._base
    assert per_sample.shape == (8,) and bool((per_sample > 0).all())
    first = sample_noise(run_outputs(qm.float_graph, qm.heldout), run_outputs(qm.converted, qm.heldout), 1)
    assert float(per_sample[0]) == pytest.approx(float(first[0]))



def test_the_weights_are_dequantized_once_for_all_calls(batch1):
    """A weight's dequantize is the same in every call: computed in the first, read back in the
    next (sqnr.call_independent); every node's value is what a fresh pass computes."""
    from vpu_core.analysis.sqnr import CallConstants, call_independent, node_values

    qm, _, _ = batch1
    fixed = call_independent(qm.converted)
    ops = [n for n in qm.converted.graph.nodes if n.name in fixed]
    assert ops and all("dequantize_per_channel" in str(n.target) or "dequantize_per_tensor" in str(n.target)
                       for n in ops)
    assert not any(n.op == "placeholder" for n in qm.converted.graph.nodes if n.name in fixed)
    constants = CallConstants(qm.converted)
    with torch.inference_mode():
        for b in qm.heldout_calls[:3]:
            again = dict(node_values(qm.converted, b, constants))
            for node, value in node_values(qm.converted, b):
                if isinstance(value, torch.Tensor):
                    assert torch.equal(again[node], value), node.name
    assert set(constants.values) == fixed


def test_finite_values_whose_difference_overflows_float32_have_an_sqnr():
    big = 3e38                                   # finite float32; f - q = 6e38 is not
    total = SqnrSum().add(torch.tensor([big, -big, 1.0]), torch.tensor([-big, big, 1.0])).result()
    assert total.reason == "" and total.db == pytest.approx(10 * math.log10(1 / 4), abs=1e-6)
    inf = SqnrSum().add(torch.tensor([1.0, 2.0]), torch.tensor([math.inf, 2.0])).add(
        torch.tensor([1.0, 2.0]), torch.tensor([math.nan, math.nan])).result()
    assert inf.db is None and "2 non-finite" not in inf.reason and "3 non-finite value(s) (inf / NaN) of 4" in inf.reason

"""Sensitivity per layer and its fixes (vpu_core.sensitivity), on models whose errors sit where they
were put (tests/models/sensitivity_probe.py), a trained digits CNN with a real accuracy, and a
corpus model none of it was tuned on: real export, PT2E and convert throughout."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from torch.utils._pytree import tree_leaves

from vpu_core.config import RunConfig
from vpu_core.sensitivity.options import SensitivityOptions
from vpu_core.session import Session

MODELS = Path(__file__).parent / "models"
CHAIN = str(MODELS / "sensitivity_probe.py")
SPIKE = f"{CHAIN}:get_spike"
DIGITS = str(MODELS / "digits_cnn.py")
TOP1 = f"{MODELS / 'digits_eval.py'}:top1"
ROOT = Path(__file__).parent.parent


@pytest.fixture(scope="session", autouse=True)
def digits_weights(tmp_path_factory):
    """The digits CNN is trained once per test session (the CLI's processes read the same file)."""
    os.environ["DIGITS_CNN_WEIGHTS"] = str(tmp_path_factory.mktemp("digits") / "digits_cnn.pt")


@pytest.fixture(scope="module")
def session():
    return Session(disk_cache=False)


@pytest.fixture(scope="module")
def report(session):
    """report(model, quantizer="vpu", per_tensor=False, layers=4, goal=None, metric=None): the
    SensitivityReport, once per module."""
    found = {}

    def get(model, quantizer="vpu", per_tensor=False, layers=4, goal=None, metric=None):
        key = (model, quantizer, per_tensor, layers, goal, metric)
        if key not in found:
            config = RunConfig(model=model, quantizer=quantizer, per_tensor=per_tensor)
            found[key] = session.sensitivity(config, SensitivityOptions(layers, goal, metric))
        return found[key]
    return get


def layer(report, node):
    row = report.layer(node)
    assert row is not None, f"no layer {node}: {[r.node for r in report.layers]}"
    return row


def fix(report, *args):
    found = [f for f in report.fixes if f.args == tuple(args)]
    assert found, f"no fix {args}: {[f.args for f in report.fixes]}"
    return found[0]


# -- per layer --------------------------------------------------------------------------------------

def test_local_and_cumulative_differ_where_the_error_is_inherited(report):
    """C (conv2d_3) is clean: quantized alone with exact inputs it loses little, but it inherits the
    coarse input Z read. Z (conv2d_1) adds its error itself: local ≈ cumulative."""
    r = report(CHAIN)
    c, z = layer(r, "conv2d_3"), layer(r, "conv2d_1")
    assert c.local_db - c.cumulative_db > 10.0
    assert abs(z.local_db - z.cumulative_db) < 1.0
    assert z.local_db < c.local_db - 5.0


def test_weight_and_activation_errors_split(report):
    """W (conv2d_2): weights of 10 on a dead channel make its real weights coarse; Z (conv2d_1):
    exact weights, but it reads P's output quantized on the scale of P's bias spike."""
    r = report(CHAIN)
    w, z = layer(r, "conv2d_2"), layer(r, "conv2d_1")
    assert w.weight_db < w.activation_db - 15.0
    assert z.activation_db < z.weight_db - 15.0
    assert abs(w.local_db - w.weight_db) < 1.0 and abs(z.local_db - z.activation_db) < 1.0


def test_ranking_and_the_samples_every_figure_rests_on(report):
    r = report(CHAIN)
    ops = [row for row in r.layers if row.kind == "op"]
    assert [row.rank for row in ops] == list(range(1, len(ops) + 1))
    shares = [row.error_share for row in ops if row.error_share is not None]
    assert shares == sorted(shares, reverse=True)
    assert (r.samples, r.ranking_samples, r.calibration_samples) == (8, 1, 4)   # batch 1: 8 held-aside calls, 4 calibration batches
    assert r.layers[-1].kind == "output" and r.layers[-1].cumulative_db == pytest.approx(r.baseline.sqnr_db)
    worst = ops[0]
    assert worst.alone_db is not None and worst.alone_db < 30.0   # quantizing it alone costs end to end


def test_fake_quantized_replay_is_the_converted_graph(session):
    """Every observer of the re-prepared graph quantizing computes what convert_pt2e's graph computes,
    bit for bit (what the local errors rest on)."""
    from vpu_core.cache.stage_store import StageStore
    from vpu_core.pipeline import prepared_with_qparams
    from vpu_core.sensitivity.fakequant import FakeQuantGraph

    config = RunConfig(model=CHAIN)
    session.analysis(config)
    qm = session.quantized(config)
    recorded = StageStore(session.keys(config), session.memory, None).qparams()
    fq = FakeQuantGraph(prepared_with_qparams(qm, recorded)[0])
    with torch.inference_mode():
        replayed, converted = fq.output(qm.heldout, lambda n: True), qm.converted(*qm.heldout)
    pairs = list(zip(tree_leaves(replayed), tree_leaves(converted), strict=True))
    assert pairs and all(torch.equal(a, b) for a, b in pairs)


# -- fixes, each kind ---------------------------------------------------------------------------------

def test_keep_float_moves_the_layer_to_the_cpu_and_says_why(report, session):
    r = report(CHAIN)
    f = fix(r, "--keep-float", "conv2d_2")
    assert f.gain_db > 1.0
    assert f.predicted.cpu_ops == r.baseline.cpu_ops + 1
    assert f.predicted.vpu_mac_share < r.baseline.vpu_mac_share
    cpu = {c.node: c for c in session.analysis(RunConfig(model=CHAIN, keep_float=("conv2d_2",))).partition.cpu_nodes}
    assert cpu["conv2d_2"].cause == "float" and "--keep-float conv2d_2" in cpu["conv2d_2"].reason


def test_keep_the_output_in_float_frees_a_shared_scale(report):
    """The spike's add shares one scale with S's output: keeping the add in float frees it."""
    r = report(SPIKE)
    assert fix(r, "--keep-float", "add").gain_db > 20.0


def test_another_observer_takes_the_finer_power_of_two(report, session):
    """130/127 is just above 2^0: min/max rounds up to 2^1, the histogram observer clips the spike."""
    r = report(SPIKE)
    assert fix(r, "--observer", "conv2d=histogram").gain_db > 3.0
    scales = {}
    for observers in ((), (("conv2d", "histogram"),)):
        a = session.analysis(RunConfig(model=SPIKE, observers=observers))
        scales[observers] = next(t.scales[0] for t in a.tensors if t.kind == "activation" and t.consumer == "conv2d")
    assert scales[()] == 2.0 and scales[(("conv2d", "histogram"),)] == 1.0


def test_per_channel_where_the_run_is_per_tensor(report, session):
    r = report(CHAIN, "xnnpack", per_tensor=True)
    assert "per_channel" in r.offers
    assert fix(r, "--per-channel", "conv2d_3").gain_db > 0.3
    g = session.quantized(RunConfig(model=CHAIN, quantizer="xnnpack", per_tensor=True, per_channel=("conv2d_3",)))
    weight_dq = {n.name: n.args[1].target.__name__ for n in g.converted.graph.nodes if n.name.startswith("conv2d")}
    assert weight_dq["conv2d_3"].startswith("dequantize_per_channel")
    assert {k for k, v in weight_dq.items() if v.startswith("dequantize_per_tensor")} == {"conv2d", "conv2d_1", "conv2d_2"}


def test_a_change_the_quantizer_does_not_offer_is_one_sentence(run_cli):
    code, _, err = run_cli("check", CHAIN, "--a16w8", "conv2d")
    assert code == 2 and err.count("\n") == 1
    assert "does not offer 16-bit activations" in err and "--keep-float, --observer" in err
    code, _, err = run_cli("check", CHAIN, "--keep-float", "conv2d_99")
    assert code == 2 and "no op of that name" in err and "conv2d, conv2d_1" in err


# -- predicted = applied --------------------------------------------------------------------------------

def _applied(args: list[str], model: str) -> dict:
    """A fresh process, no cache: `check MODEL ARGS --format json`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "app.cli", "check", model, *args, "--format", "json",
                          "--no-cache"], capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    assert out.returncode in (0, 1), out.stderr
    return json.loads(out.stdout)


def test_every_predicted_fix_is_what_applying_it_gives(report):
    """In another session, without any cache: each kind of fix's options give its predicted numbers
    (the best fix, and the best of each other kind)."""
    r = report(CHAIN)
    for f in [*{f.change: f for f in reversed(r.fixes)}.values()]:
        applied = Session(disk_cache=False).analysis(RunConfig(model=CHAIN, **_fields(f.args)))
        assert applied.sqnr_db == pytest.approx(f.predicted.sqnr_db, abs=1e-9), f.args
        assert len(applied.partition.cpu_nodes) == f.predicted.cpu_ops
        assert len(applied.partition.subgraphs) == f.predicted.subgraphs


def _fields(args) -> dict:
    import argparse

    from vpu_core.sensitivity.options import add_change_options, changes_from_args

    parser = argparse.ArgumentParser()
    add_change_options(parser)
    return changes_from_args(parser.parse_args(list(args)))


@pytest.mark.slow
def test_the_best_fix_on_an_unseen_model_in_a_fresh_run(tmp_path):
    """A corpus CNN with batch norms, never looked at while writing this: `check --sensitivity` in
    one process, the best fix's options in another, no cache."""
    model = str(ROOT / "tests" / "corpus" / "resnet_bn.py")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VPU_INSPECTOR_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "app.cli", "check", model, "--sensitivity", "--format", "json"],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)
    assert out.returncode in (0, 1), out.stderr
    sensitivity = json.loads(out.stdout)["sensitivity"]
    best = max(sensitivity["fixes"], key=lambda f: f["gain_db"])
    applied = _applied(best["args"], model)
    p = best["predicted"]
    assert abs(p["sqnr_db"] - applied["sqnr_db"]) <= 0.5
    assert p["cpu_ops"] == len(applied["partition"]["cpu_nodes"])
    assert p["subgraphs"] == len(applied["partition"]["subgraphs"])


def test_the_search_reaches_the_goal_and_each_step_is_real(report):
    r = report(CHAIN, goal=20.0)
    s = r.search
    assert s is not None and s.steps[0].outcome == r.baseline
    shares = [step.outcome.vpu_mac_share for step in s.steps]
    assert shares == sorted(shares, reverse=True)                   # each step gives up NPU share
    last = s.steps[-1]
    applied = Session(disk_cache=False).analysis(RunConfig(model=CHAIN, **_fields(last.fixes)))
    assert applied.sqnr_db == pytest.approx(last.outcome.sqnr_db, abs=1e-9)
    assert s.reached == (last.outcome.sqnr_db >= 20.0)


# -- the user's metric ----------------------------------------------------------------------------------

def test_the_digits_metric_is_a_real_accuracy(report):
    r = report(DIGITS, layers=1, metric=TOP1)
    assert r.metric_float > 90.0                              # trained: top-1 on 540 unseen digits, in %
    assert 50.0 < r.baseline.metric <= 100.0
    assert all(f.predicted.metric is not None and f.metric_gain is not None for f in r.fixes)
    assert r.samples == 16 and r.metric_name == TOP1


@pytest.mark.parametrize("fn, says", [
    ("missing", "has no function 'missing'"),
    ("not_a_function", "'not_a_function' is a int, not a function"),
    ("two_arguments", "must take one argument"),
    ("raises", "raised RuntimeError: no data here"),
    ("returns_text", "it must return a number, it returned str"),
])
def test_a_bad_metric_function_is_one_sentence_and_exit_2(run_cli, fn, says):
    code, _, err = run_cli("check", DIGITS, "--sensitivity", "--eval", f"{MODELS / 'digits_eval.py'}:{fn}")
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("vpu-inspector: error: --eval") and says in err


def test_json_schema(check_json):
    code, out, _ = check_json(CHAIN, "--sensitivity", "--fix-layers", "1")
    s = out["sensitivity"]
    for row in s["layers"]:
        assert {"node", "op", "local_db", "cumulative_db", "weight_db", "activation_db", "rank"} <= row.keys()
    for f in s["fixes"]:
        assert {"node", "change", "predicted", "args"} <= f.keys()
        assert {"sqnr_db", "cpu_ops", "subgraphs", "boundary_bytes", "vpu_mac_share", "time_us"} <= f["predicted"].keys()
    assert (s["samples"], s["ranking_samples"]) == (8, 1) and s["offers"] == ["keep_float", "observer"]


@pytest.mark.slow
def test_a16w8_and_the_ethos_u_target_on_both_sides_of_the_trade():
    """The Arm quantizer offers 16-bit activations per op; with --target ethos-u55-128 every fix is
    also judged by Vela: its CPU ops, subgraphs and cycle estimate are what that target says of the
    applied configuration."""
    session = Session(disk_cache=False)
    config = RunConfig(model=CHAIN, quantizer="ethos-u")
    r = session.sensitivity(config, SensitivityOptions(layers=1, targets=("ethos-u55-128",)))
    assert set(r.offers) == {"keep_float", "wide_activation"}
    wide = next(f for f in r.fixes if f.change == "wide_activation")
    assert wide.args == ("--a16w8", wide.node)
    judged = {f.args: f.predicted.targets[0] for f in r.fixes}
    assert all(t.target == "ethos-u55-128" and t.unit == "cycles" and t.estimate for t in judged.values())
    for args, predicted in judged.items():
        applied = Session(disk_cache=False).target(RunConfig(model=CHAIN, quantizer="ethos-u", **_fields(args)),
                                                   "ethos-u55-128")
        assert len(applied.verdict.cpu_nodes) == predicted.cpu_ops, args
        assert len(applied.verdict.subgraphs) == predicted.subgraphs, args
        assert applied.estimate is not None and applied.estimate.total == predicted.estimate, args


def test_when_no_fix_gains_anything_the_report_says_where_to_look_instead(report):
    """The digits CNN's real fixes that gain under 0.5 dB, alone: the report proposes none of them
    as the one to apply and names --fix-layers / --reach-db; with its real best fix it says nothing."""
    import dataclasses

    from vpu_core.reports.sensitivity import sensitivity_lines, sensitivity_to_json
    from vpu_core.sensitivity.results import USEFUL_GAIN_DB

    full = report(DIGITS)
    assert not full.no_fix_helps and not any("No single-layer fix gains" in line for line in sensitivity_lines(full))
    useless = tuple(f for f in full.fixes if (f.gain_db or 0.0) < USEFUL_GAIN_DB)
    assert useless, [(f.args, f.gain_db) for f in full.fixes]
    only = dataclasses.replace(full, fixes=useless)
    assert only.no_fix_helps and sensitivity_to_json(only)["no_fix_helps"] is True
    note = next(line for line in sensitivity_lines(only) if "No single-layer fix gains" in line)
    assert "--fix-layers N" in note and "--reach-db DB" in note
    assert all(f.node in note for f in useless)

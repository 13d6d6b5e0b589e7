"""`check --run`: the converted graph lowered to ExecuTorch XNNPACK and run on this CPU (slow: real
lowering). One lowering per model for the whole module: resnet8 under XNNPACK (the bench's
`--run` target), conv_relu under the VPU quantizer, and a model the runtime cannot run."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vpu_core.config import RunConfig
from vpu_core.session import Session

pytestmark = pytest.mark.slow

RANKED = str(Path(__file__).parent / "models" / "ranked_scores.py")
RUNTIME_KEYS = {"backend", "latency_ms", "sqnr_vs_float_db", "sqnr_vs_qdq_db", "ops"}


@pytest.fixture(scope="module")
def resnet8(check_json):
    # the same argv as tests/test_export.py: one run for both modules
    return check_json("resnet8", "--quantizer", "xnnpack", "--calib-batches", "2", "--run", "--runs", "3")


def test_resnet8_xnnpack_run_meets_the_targets(resnet8):
    code, data, err = resnet8
    assert code in (0, 1) and err == ""
    run = data["runtime"]
    assert RUNTIME_KEYS <= set(run) and run["backend"] == "xnnpack" and run["refused"] is None
    lat = run["latency_ms"]
    assert lat["runs"] == 3 and lat["warmup"] == 3 and 0 < lat["p10"] <= lat["median"] <= lat["p90"]
    # the same int8 program: XNNPACK's outputs are the Q/DQ graph's, or within the target's 30 dB
    assert run["outputs_identical"] or run["sqnr_vs_qdq_db"] >= 30
    if run["outputs_identical"]:
        assert run["sqnr_vs_qdq_db"] is None and "bit for bit" in run["sqnr_vs_qdq_reason"]
        assert run["sqnr_vs_float_db"] == pytest.approx(data["sqnr_db"], abs=0.01)
    assert run["graph"] == "qdq" and run["folded_biases"] == 0 and run["portable_ops"] == []
    (output,) = run["outputs"]
    assert output["shape"] == [1, 10] and len(output["sha256"]) == 64


def test_every_delegate_has_per_op_timings_mapped_to_graph_nodes(resnet8):
    _code, data, _err = resnet8
    run = data["runtime"]
    graph = {n["name"]: n["op"] for n in data["graph"]["nodes"]}
    assert run["delegates"], "resnet8 lowers to at least one XNNPACK delegate"
    for d in run["delegates"]:
        assert d["ops"] > 0 and d["nodes"] and d["us"] > 0
        assert d["ops_us"] <= d["us"] * 1.05 + 1.0          # the operators run inside the call
    ops = {o["node"]: o for o in run["ops"]}
    assert set(ops) <= set(graph)
    convs = [n for n, op in graph.items() if op.startswith("conv2d")]
    assert len(convs) == 9 and set(convs) <= set(ops)
    for name in convs:                                      # each conv is an XNNPACK convolution
        assert any(k.startswith("Convolution") for k in ops[name]["kernels"]) and ops[name]["delegate"] == 0
    assert any(k.startswith("Fully Connected") for k in ops["linear"]["kernels"])
    assert sum(o["us"] for o in run["ops"]) > 0


def test_text_report_has_the_run_section(run_cli):
    code, out, err = run_cli("check", "resnet8", "--quantizer", "xnnpack", "--run", "--runs", "3",
                             "--calib-batches", "2")
    lines = out.splitlines()
    head = next(x for x in lines if x.startswith("Run on this CPU ("))
    assert "XNNPACK" in head and "latency median" in head and "3 runs after 3 warm-up" in head
    assert any(x.strip().startswith("SQNR vs float") for x in lines)
    i = next(i for i, x in enumerate(lines) if "Slowest ops" in x)
    assert all(lines[i + k].strip().split()[0].startswith(("conv2d", "add", "linear", "quantize", "flatten",
                                                           "adaptive")) for k in range(1, 4))


def test_vpu_graph_runs_as_the_same_int8_program_with_its_bias_folded(tmp_path):
    session = Session(cache_dir=tmp_path)
    config = RunConfig(model="conv_relu", calib_batches=2)
    report = session.runtime(config, runs=3)
    assert report.refused is None and report.graph_kind == "qdq, int32 bias folded" and report.folded_biases == 1
    assert report.outputs_identical or report.sqnr_vs_qdq_db >= 30
    assert {o.node for o in report.ops} >= {"conv2d"} and report.lowering_s > 0
    # a new session over the same cache reads the lowered program instead of lowering again, and the
    # program computes the same bytes
    again = Session(cache_dir=tmp_path).runtime(config, runs=3)
    assert again.lowering_s == 0.0 and again.outputs == report.outputs


def test_a_model_the_runtime_cannot_run_is_refused_in_one_sentence_with_the_check(run_cli):
    code, out, err = run_cli("check", RANKED, "--quantizer", "xnnpack", "--run", "--runs", "3",
                             "--format", "json", "--calib-batches", "2")
    data = json.loads(out)
    run = data["runtime"]
    assert code == (1 if data["violations"] else 0)          # the check's own verdict
    assert run["refused"] == ("ExecuTorch's runtime has no kernel for aten::sort.values (node sort, outside "
                              "the XNNPACK delegates), so the lowered program cannot run on this CPU.")
    assert (run["refused_op"], run["refused_node"], run["latency_ms"], run["ops"]) == \
        ("aten::sort.values", "sort", None, [])
    assert err.strip().splitlines() == [f"vpu-inspector: note: {run['refused']}"]
    assert len(data["rules"]) == 7 and data["partition"]["subgraphs"]


def test_check_without_run_has_no_runtime_key(run_cli):
    code, out, _ = run_cli("check", "conv_relu", "--format", "json", "--calib-batches", "2")
    assert "runtime" not in json.loads(out)


def test_html_report_has_the_runtime_section(run_cli, tmp_path, html_page):
    out = tmp_path / "r.html"
    code, _out, err = run_cli("report", "resnet8", "--quantizer", "xnnpack", "--calib-batches", "2",
                              "--run", "--runs", "3", "-o", str(out))
    assert code == 0, err
    html = out.read_text(encoding="utf-8")
    page = html_page(html)
    assert "runtime" in page.ids and "#runtime" in page.urls
    section = html[html.index('id="runtime"'):]
    section = section[:section.index("</section>")]
    assert "Runs in " in section and "Latency (median)" in section and "Where the time goes" in section
    assert "Does each VPU subgraph pay, in time?" in section and "[timing] of profile vpu-default" in section
    assert ("pays (saves" in section) or ("costs " in section)
    assert section.count('class="pill sg') == 0 and section.count(">sg 0<") == 1   # resnet8: one subgraph

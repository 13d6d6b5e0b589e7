"""The Arm targets with ExecuTorch's real Arm backend, Vela and the TOSA reference model (no mocks).

Every lowering here is real (to_edge_transform_and_lower with EthosUPartitioner / TOSAPartitioner,
Vela per partition), made through the session so that the command-line checks reuse it. One
lowering (the probe on the U55) is the quick part; the other targets, quantizers, the runs and
the export are slow (each lowering is 10–80 s on the shared 2-core machine).
"""
import csv
import io
import json
from pathlib import Path

import pytest

from vpu_core.config import RunConfig
from vpu_core.session import default_session
from vpu_core.targets.arm.results import ARM_CAUSES
from vpu_core.targets.arm.target import CANNOT_RUN

PROBE = str(Path(__file__).parent / "models" / "arm_probe.py")
POOLED = str(Path(__file__).parent / "models" / "pooled_cnn.py")


def _config(model: str, quantizer: str) -> RunConfig:
    return RunConfig(model=model, quantizer=quantizer)      # the command line's defaults


def _judged(model: str, quantizer: str, target: str):
    """(TargetResult, ArmLowering) of `model` under `quantizer`, judged by `target` in the session
    (the lowering is the one the session remembers, lowered again if it let it go)."""
    from vpu_core import targets

    session = default_session()
    config = _config(model, quantizer)
    result = session.target(config, target)
    return result, targets.load(target).lowering(session.job(config, target))


def _cpu(result) -> dict:
    return {c.node: c for c in result.verdict.cpu_nodes}


def test_u55_refuses_each_kind_in_the_backends_own_words():
    result, lowering = _judged(PROBE, "ethos-u", "ethos-u55-128")
    cpu = _cpu(result)
    assert set(cpu) == {"avg_pool2d", "gt", "where", "atan2", "_to_dim_order_copy"}
    assert all(c.cause in ARM_CAUSES for c in cpu.values())
    # a kernel / stride limit: the op is supported, these arguments of it are not
    assert cpu["avg_pool2d"].cause == "limit"
    assert cpu["avg_pool2d"].reason == "not delegated to Ethos-U55-128: Avgpool2d needs stride <= 3, got [16, 16]"
    assert dict(cpu["avg_pool2d"].detail)["check"] == "AvgPool2dSupported"
    # an op with no TOSA operator at all
    assert cpu["atan2"].cause == "unsupported"
    assert dict(cpu["atan2"].detail)["check"] == "TOSASupportLists"
    # types the U55 does not take: bool (the comparison and what reads it), int64 (the token ids' cast)
    assert {cpu[n].cause for n in ("gt", "where", "_to_dim_order_copy")} == {"dtype"}
    assert "torch.bool output" in cpu["gt"].reason
    assert cpu["_to_dim_order_copy"].reason.endswith("Non-constant int64 input ids")
    assert len(result.verdict.subgraphs) == 2


def test_a_node_the_checks_refused_but_the_lowering_delegated_is_not_a_cpu_node():
    # MaxPool2dSupported refuses a stride-4 max pool on the U55; the U55's large-stride
    # decomposition check takes it anyway, and the lowered program runs it in a delegate.
    result, lowering = _judged(PROBE, "ethos-u", "ethos-u55-128")
    refused = {r.sentence for r in lowering.rejections}
    assert "Maxpool2d needs stride <= 3, got [4, 4]" in refused
    assert isinstance(result.verdict.assignment["max_pool2d"], int)
    assert "max_pool2d" not in _cpu(result)
    assert result.verdict.lowered_counts["overruled"] == 1


def test_another_profile_reuses_the_arm_verdict_of_the_same_quantized_graph():
    """Arm's verdict reads the quantized graph only (TargetInfo.reads_profile): `check M --target
    ethos-u55-128 --profile edge_npu` after the same without the profile lowers nothing."""
    from dataclasses import replace

    from vpu_core import targets

    session = default_session()
    config = _config(PROBE, "ethos-u")
    first = session.target(config, "ethos-u55-128")
    computed: list[str] = []
    session.before_computing = computed.append          # what the session computes from here
    try:
        again = session.target(replace(config, profile="edge_npu"), "ethos-u55-128")
    finally:
        del session.before_computing
    assert again == first and not any(c.startswith("target") for c in computed), computed
    assert not targets.info("ethos-u55-128").reads_profile and targets.info("vpu").reads_profile


@pytest.mark.slow
def test_u85_takes_what_the_u55_refuses_but_no_operator_it_lacks():
    result, _ = _judged(PROBE, "ethos-u", "ethos-u85-256")
    assert set(_cpu(result)) == {"atan2", "_to_dim_order_copy"}
    assert all(isinstance(result.verdict.assignment[n], int) for n in ("avg_pool2d", "gt", "where", "max_pool2d"))


def _summary_cycles(lowering) -> tuple[int, int]:
    total = npu = 0
    for part in lowering.partitions:
        text = next(v for k, v in part.files.items() if k.startswith("output/out_summary_")).decode()
        row = next(csv.DictReader(io.StringIO(text)))
        total, npu = total + int(float(row["cycles_total"])), npu + int(float(row["cycles_npu"]))
    return total, npu


def test_vela_numbers_are_vela_summary_and_land_on_graph_nodes():
    result, lowering = _judged(PROBE, "ethos-u", "ethos-u55-128")
    e = result.estimate
    assert (e.total_cycles, e.npu_cycles) == _summary_cycles(lowering)
    assert e.vela_version == "5.1.0" and e.label.startswith("Vela 5.1.0 estimate")
    assert e.system_config == "Ethos_U55_High_End_Embedded" and e.memory_mode == "Shared_Sram"
    assert e.inference_ms == pytest.approx(1e3 * e.total_cycles / e.clock_hz)
    assert e.attributed_share >= 0.8
    conv = e.node("conv2d")
    assert conv.macs == 1 * 8 * 16 * 16 * 8 * 3 * 3 and conv.cycles > 0 and "Conv2D" in conv.vela_ops
    assert 0 < conv.utilisation(e.macs_per_cycle) <= 100
    assert len(e.partitions) == 2 and e.sram_bytes == max(p.sram_bytes for p in e.partitions)
    # what no node accounts for is listed, not dropped
    assert e.attributed_cycles + sum(u.cycles for u in e.unattributed) == e.total_cycles


def test_check_json_carries_the_compilers_verdict_and_estimate(check_json):
    code, out, err = check_json(PROBE, "--quantizer", "ethos-u", "--target", "ethos-u55-128")
    assert code in (0, 1), err
    t = out["targets"]["ethos-u55-128"]
    assert t["subgraphs"] == 2
    avg = next(c for c in t["cpu_nodes"] if c["node"] == "avg_pool2d")
    assert (avg["op"], avg["cause"], avg["detail"]["check"]) == ("avg_pool2d.default", "limit", "AvgPool2dSupported")
    e = t["estimate"]
    assert e["unit"] == "cycles" and e["vela_version"] == "5.1.0"
    assert e["total"] == e["total_cycles"] and e["npu_cycles"] > 0 and e["inference_ms"] > 0
    assert e["sram_bytes"] > 0 and e["flash_bytes"] > 0
    assert {"cycles", "npu_cycles", "macs", "utilisation_pct", "sram_access_cycles"} <= set(e["per_node"]["conv2d"])
    assert isinstance(e["unattributed"], list)


@pytest.mark.slow
def test_xnnpack_and_vpu_graphs_are_judged_with_exact_rewrites():
    xnn, lowering = _judged(POOLED, "xnnpack", "ethos-u55-128")
    assert lowering.prepared.quantized_biases == ("conv2d", "linear")   # XNNPACK's float biases, as its int32
    # the one op the backend cannot take from another quantizer: a global average quantized whole
    # (its lowering fails on it, and with it the whole program, unless it stays on the CPU)
    pool = {c.node: c for c in xnn.verdict.cpu_nodes}["adaptive_avg_pool2d"]
    assert pool.cause == "unsupported" and dict(pool.detail)["check"] == "graph_prep"
    assert "only in the pieces its own quantizer decomposes it into" in pool.reason
    assert isinstance(xnn.verdict.assignment["conv2d"], int) and isinstance(xnn.verdict.assignment["linear"], int)
    vpu, lowering = _judged(POOLED, "vpu", "tosa-int")
    assert lowering.prepared.separated_relus == ("relu",)       # zero point 0 above qmin -128
    assert vpu.estimate is None                                 # TOSA has no cost model


@pytest.mark.slow
def test_tosa_reference_numerics_against_the_qdq_graph():
    session = default_session()
    run = session.target_run(_config(PROBE, "ethos-u"), "tosa-int", runs=1)
    assert run.refused is None and run.runtime.startswith("TOSA reference model (tosa-tools")
    assert run.outputs_identical and run.max_lsb_diff == 0       # Arm's own graph: bit for bit
    assert run.sqnr_vs_float_db > 25
    # The VPU's graph (power-of-two scales, TOSA's round-half-up against torch's half-to-even):
    # one LSB apart at most, and the ReLU computed (without the rewrite it was 9.6 dB).
    vpu = session.target_run(_config(POOLED, "vpu"), "tosa-int", runs=1)
    assert vpu.max_lsb_diff <= 1 and (vpu.outputs_identical or vpu.sqnr_vs_qdq_db > 30)


@pytest.mark.slow
def test_an_ethos_u_program_does_not_run_here_and_says_so_with_its_cpu_side_measured():
    session = default_session()
    config = _config(PROBE, "ethos-u")
    run = session.target_run(config, "ethos-u55-128", runs=2)
    assert run.refused == CANNOT_RUN and run.latency is None
    result = session.target(config, "ethos-u55-128")
    split = result.estimate.split(session.analysis(config).nodes, result.verdict, run)
    islands = {n for i in split.islands for n in i.nodes}
    assert {"avg_pool2d", "atan2", "gt", "where"} <= islands
    assert all(i.us > 0 for i in split.islands) and split.handoff_us > 0
    assert [i for i, _ in split.npu_us] == [0, 1]
    assert split.npu_total_us == pytest.approx(1e3 * result.estimate.inference_ms)


@pytest.mark.slow
def test_export_writes_the_program_and_the_compilers_files(tmp_path):
    output = tmp_path / "probe.pte"
    done = default_session().export(_config(PROBE, "ethos-u"), output, target="ethos-u55-128")
    assert done.kind == "pte" and output.stat().st_size == done.bytes > 0
    folder = tmp_path / "probe.ethos-u55-128"
    summary = json.loads((folder / "summary.json").read_text())
    assert summary["vela_version"] == "5.1.0" and len(summary["partitions"]) == 2
    for k in (0, 1):
        files = {p.relative_to(folder / f"partition_{k}").as_posix() for p in (folder / f"partition_{k}").rglob("*")}
        assert {"out.tosa", "debug.json", "output/out_per-layer.csv", "output/out_debug.xml"} <= files


def test_a_dynamic_batch_is_refused_in_one_sentence(check_json):
    code, out, err = check_json("conv_relu", "--quantizer", "xnnpack", "--dynamic-batch", "--target", "ethos-u55-128")
    assert code == 2 and out is None
    assert err.strip().splitlines() == [
        "vpu-inspector: error: The Ethos-U55-128 target compiles fixed shapes only (its compiler takes static "
        "tensors and would compile one size of a dynamic batch): drop --dynamic-batch."]


def test_the_ethos_u_quantizer_a16w8_config_and_its_per_op_changes(run_cached):
    import torch

    from vpu_core.qdq import is_quantize

    qm = run_cached(model="conv_relu", quantizer="ethos-u-a16w8")
    assert {n.args[-1] for n in qm.converted.graph.nodes if is_quantize(n)} == {torch.int16}
    # one op widened, one kept in float (the backend's per-node configs): its input is int16, the
    # other's weight is not quantized
    qm = run_cached(model=PROBE, quantizer="ethos-u", wide_activations=("conv2d",), keep_float=("linear",))
    by_name = {n.name: n for n in qm.converted.graph.nodes}
    assert by_name["conv2d"].args[0].args[-1] == torch.int16
    assert by_name["linear"].args[1].op == "get_attr"           # a float weight: no dequantize


@pytest.mark.slow
def test_the_verdict_is_what_executorchs_own_arm_flow_gives_without_us(tmp_path, caplog):
    """ExecuTorch's documented flow on the probe, none of our code: EthosUQuantizer → prepare /
    convert → to_edge_transform_and_lower(EthosUPartitioner). Its delegates, the ops it leaves
    outside them, its reporter's sentences and Vela's summary are what the target reports."""
    import logging
    import re
    import runpy

    import torch
    from executorch.backends.arm.ethosu import EthosUCompileSpec, EthosUPartitioner
    from executorch.backends.arm.quantizer import EthosUQuantizer, get_symmetric_quantization_config
    from executorch.exir import to_edge_transform_and_lower
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    model, inputs = runpy.run_path(PROBE)["get_model"]()
    quantizer = EthosUQuantizer(EthosUCompileSpec("ethos-u55-128")).set_global(
        get_symmetric_quantization_config(is_per_channel=True))
    prepared = prepare_pt2e(torch.export.export(model, inputs, strict=False).module(check_guards=False), quantizer)
    prepared(*inputs)
    program = torch.export.export(convert_pt2e(prepared), inputs, strict=False)
    spec = EthosUCompileSpec("ethos-u55-128").dump_intermediate_artifacts_to(str(tmp_path))
    with caplog.at_level(logging.INFO, logger="executorch.backends.arm.tosa.partitioner"):
        lowered = to_edge_transform_and_lower(program, partitioner=[EthosUPartitioner(spec)])
    names = [re.sub(r"^<EdgeOpOverload: ([\w.]+)>.*", r"\1", str(n.target), flags=re.S)
             for n in lowered.exported_program().graph.nodes if n.op == "call_function"]
    outside = sorted(n.removeprefix("aten.") for n in names       # our op names drop "aten." only
                     if not any(k in n for k in ("call_delegate", "getitem", "quantize")))
    delegates = sum("call_delegate" in str(n.target) for n in lowered.exported_program().graph.nodes)

    result, _ = _judged(PROBE, "ethos-u", "ethos-u55-128")
    ours = [c for c in result.verdict.cpu_nodes if c.cause != "removed"]
    assert delegates == len(result.verdict.subgraphs) == 2
    assert sorted(c.op for c in ours) == outside
    # the reporter's table as ExecuTorch logs it: the last column of each row, its wrapped lines joined
    logged, row = set(), []
    for line in caplog.text.splitlines() + [""]:
        if line.startswith("│"):
            row.append(line.split("│")[-2])
        elif row:
            logged.add("".join("".join(row).split()))
            row = []
    assert {"".join(dict(c.detail)["sentence"].split()) for c in ours} <= logged
    # Vela's summary of the partition it compiled last (every partition writes the same folder)
    summary = next(tmp_path.rglob("*summary*.csv"))
    row = next(csv.DictReader(summary.open()))
    assert int(float(row["cycles_total"])) in {p.cycles for p in result.estimate.partitions}


def test_the_ethos_u_primary_leads_check_and_its_exit_status(run_cli, check_json):
    """`--target ethos-u55-128` alone: the Ethos-U quantizer, the NPU's verdict first, no VPU word,
    exit 1 for the probe's CPU ops (docs/spec.md, section 9.0)."""
    code, out, err = run_cli("check", PROBE, "--target", "ethos-u55-128")
    assert code == 1, err
    lines = out.splitlines()
    assert lines[0].startswith("arm_probe.py · target Ethos-U55-128 · quantizer ethos-u") or \
        " · target Ethos-U55-128 · quantizer ethos-u · " in lines[0]
    assert lines[2].startswith("Verdict: Ethos-U55-128: ") and "on the CPU" in lines[2]
    assert "Vela 5.1.0 estimate:" in lines[2]
    assert "VPU" not in out and "violation" not in out and "cpu->vpu" not in out
    code, data, _ = check_json(PROBE, "--target", "ethos-u55-128")
    s, t = data["summary"], data["targets"]["ethos-u55-128"]
    assert data["primary_target"] == "ethos-u55-128" and not s["ok"]
    assert s["cpu_ops"] == len(t["cpu_nodes"]) > 0 and all(c["cause"] != "removed" for c in t["cpu_nodes"])
    assert s["partitions"] == t["partitions"] == 2 and s["accelerator"] == "NPU"


def test_the_report_opens_with_the_primary_targets_verdict(tmp_path, run_cli):
    out = tmp_path / "probe.html"
    code, _, err = run_cli("report", PROBE, "--target", "ethos-u55-128", "-o", str(out))
    assert code == 0, err
    html = out.read_text()
    summary = html[html.index('id="summary"'):html.index('id="graph"')]
    assert "Ethos-U55-128: " in summary and "on the CPU" in summary and "Vela 5.1.0 estimate" in summary
    assert "MACs on the NPU" in summary and "SRAM / flash" in summary
    body = html[html.index("<body>"):]
    assert 'id="targets"' in body and 'id="rules"' not in body and "MACs on the VPU" not in body
    assert "rule violation" not in body and "VPU partition" not in body


@pytest.mark.slow
def test_run_under_an_ethos_u_primary_runs_its_program_not_xnnpack_beside_it(check_json):
    """`--run` under an Ethos-U primary measures the Ethos-U program's CPU side; the XNNPACK run and
    the VPU's timing model (the VPU and XNNPACK are no targets here) are not asked for."""
    code, data, err = check_json(PROBE, "--target", "ethos-u55-128", "--run", "--runs", "1")
    assert code == 1, err
    assert "runtime" not in data and "timing" not in data
    run = data["targets"]["ethos-u55-128"]["run"]
    assert run["refused"] and "split" in data["targets"]["ethos-u55-128"]

"""Model Explorer interop (vpu_core.interop): `export --format model-explorer` writes node-data files
keyed by the node ids Model Explorer's own PyTorch adapter gives the written program, in its own
formats (node_data_builder, graph_builder); `check --overlay` reads such a file back onto our graph;
the [model-explorer] extra's extension opens a model file. Real runs, real adapter: when the
`ai-edge-model-explorer` package is absent, ids are checked against the FX node names of the saved
program loaded back with torch.export.load (what its adapter names nodes by), and the format checks
are skipped."""
from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

try:
    import model_explorer  # noqa: F401  (the [model-explorer] extra)
    HAVE_ME = True
except ImportError:
    HAVE_ME = False
needs_me = pytest.mark.skipif(not HAVE_ME, reason="ai-edge-model-explorer (the [model-explorer] extra) is not installed")

MODELS = ("resnet8", "transformer")


@pytest.fixture(scope="module")
def exported(tmp_path_factory, cli):
    """model -> (folder, stdout) of `export MODEL --format model-explorer` (VPU quantizer)."""
    out = {}
    for model in MODELS:
        folder = tmp_path_factory.mktemp("me") / model
        code, stdout, err = cli("export", model, "--format", "model-explorer", "-o", str(folder))
        assert code == 0, err
        out[model] = (folder, stdout)
    return out


def adapter_ids(program: Path) -> set[str]:
    """The node ids Model Explorer's PyTorch adapter gives `program` (its FX node names once loaded,
    when the package is absent)."""
    if HAVE_ME:
        from model_explorer.builtin_pytorch_exportedprogram_adapter import BuiltinPytorchExportedProgramAdapter
        from model_explorer.consts import DEFAULT_SETTINGS

        graphs = BuiltinPytorchExportedProgramAdapter().convert(str(program), DEFAULT_SETTINGS)["graphs"]
        assert [g.id for g in graphs] == ["graph"]
        return {n.id for n in graphs[0].nodes}
    import torch
    import torchao  # noqa: F401  (registers the quantized_decomposed ops the program calls)

    return {n.name for n in torch.export.load(str(program)).graph_module.graph.nodes}


def ours(model: str):
    """The Analysis the export wrote its files from (the command line's default configuration),
    remembered by the process-wide session the in-process command line used."""
    from vpu_core.config import RunConfig
    from vpu_core.session import default_session

    return default_session().analysis(RunConfig(model=model))


def node_data_files(folder: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json")) if p.name != "graph.json"}


@pytest.mark.parametrize("model", MODELS)
def test_every_key_of_every_file_is_a_node_id_of_model_explorers_adapter(exported, model):
    folder, stdout = exported[model]
    ids = adapter_ids(folder / "program.pt2")
    files = node_data_files(folder)
    assert {"placement_vpu", "violations", "scales", "sqnr", "shift"} <= set(files)
    for stem, data in files.items():
        assert set(data["results"]) <= ids, (stem, sorted(set(data["results"]) - ids)[:5])
    assert set(files["placement_vpu"]["results"]) == ids          # the placement names every node
    graph = json.loads((folder / "graph.json").read_text())["graphs"][0]
    assert {n["id"] for n in graph["nodes"]} <= ids
    assert {e["sourceNodeId"] for n in graph["nodes"] for e in n["incomingEdges"]} <= ids
    # the printed command opens the program, graph.json and every file written
    command = next(line.strip() for line in stdout.splitlines() if line.strip().startswith("model-explorer "))
    assert command == (f"model-explorer {folder}/program.pt2,{folder}/graph.json --node_data_paths "
                       + ",".join(f"{folder}/{stem}.json" for stem in _order(stdout)))
    assert sorted(_order(stdout)) == sorted(files)


def _order(stdout: str) -> list[str]:
    """The node-data stems as the first line lists them ("… files (placement_vpu, violations, …)")."""
    return stdout.splitlines()[0].rsplit("(", 1)[1].rstrip(")").split(", ")


def test_placement_says_where_each_op_runs_and_why_in_the_canvas_colours(exported):
    from vpu_core.graph.colours import CPU_FILL, QDQ_FILL, VPU_PALETTE

    folder, _ = exported["transformer"]
    results = node_data_files(folder)["placement_vpu"]["results"]
    a = ours("transformer")
    cpu = {c.node: c for c in a.partition.cpu_nodes}
    softmax = next(n for n in cpu if n.startswith("softmax"))
    assert results[softmax] == {"value": f"CPU: {cpu[softmax].reason}", "bgColor": CPU_FILL, "textColor": "#1b1f23"}
    assert "not in the VPU op list" in results[softmax]["value"]
    linear = next(n for n, sub in a.partition.assignment.items() if n.startswith("linear") and sub != "cpu")
    sub = a.partition.assignment[linear]
    assert results[linear]["value"] == f"VPU partition {sub}"
    assert results[linear]["bgColor"] == VPU_PALETTE[sub % len(VPU_PALETTE)]
    q = next(n for n in results if n.startswith("quantize_per_tensor"))   # Model Explorer's name for it
    assert results[q] == {"value": "quantize / dequantize", "bgColor": QDQ_FILL, "textColor": "#1b1f23"}
    # resnet8 under the VPU quantizer: every op in subgraph 0, no rule broken
    r8 = node_data_files(exported["resnet8"][0])
    ops = [n for n, i in ours("resnet8").nodes.items() if n.startswith(("conv2d", "relu", "add"))]
    assert ops and {r8["placement_vpu"]["results"][n]["value"] for n in ops} == {"VPU partition 0"}
    assert r8["violations"]["results"] == {}


def test_metric_files_hold_our_numbers_under_the_adapters_ids(exported):
    folder, _ = exported["resnet8"]
    files = node_data_files(folder)
    a = ours("resnet8")
    sqnr = files["sqnr"]["results"]
    assert {k: v["value"] for k, v in sqnr.items()} == {n: v for n, v in a.layer_sqnr.items()
                                                        if v is not None and math.isfinite(v)}
    # per-channel weight scales: on the dequantize Model Explorer names without "_default"
    weight = next(n for n, i in a.nodes.items() if n.startswith("dequantize_per_channel"))
    renamed = {k: v["value"] for k, v in files["scales"]["results"].items()}
    assert weight not in renamed and max(a.nodes[weight].qparams.scales) in renamed.values()
    shifts = {s.node: float(max(s.nearest_shifts)) for s in a.requant}
    assert {k: v["value"] for k, v in files["shift"]["results"].items()} == shifts
    assert [g["stop"] for g in files["sqnr"]["gradient"]] == [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]


@needs_me
@pytest.mark.parametrize("model", MODELS)
def test_files_parse_with_model_explorers_own_types(exported, model):
    import dacite
    from model_explorer import graph_builder, node_data_builder

    folder, _ = exported[model]
    for stem, data in node_data_files(folder).items():
        numeric = all(isinstance(r["value"], (int, float)) for r in data["results"].values())
        # its GraphNodeData types `value` a number; Model Explorer shows text values too (placements)
        parsed = dacite.from_dict(node_data_builder.GraphNodeData, data,
                                  config=dacite.Config(strict=True, check_types=numeric))
        assert json.loads(parsed.to_json_string()) == {**data, "hideInAggregatedStatsTable": False,
                                                       "hideInChildrenStatsTable": False,
                                                       "showExpandedSummaryOnGroupNode": False,
                                                       "showLabelCountColumnsInChildrenStatsTable": False,
                                                       "thresholds": [], "gradient": data.get("gradient", [])}, stem
    graph = json.loads((folder / "graph.json").read_text())
    collection = dacite.from_dict(graph_builder.GraphCollection, graph, config=dacite.Config(strict=True))
    round_trip = dataclasses.asdict(collection)
    assert round_trip["graphs"][0]["nodes"] == [
        {**n, "style": {**n["style"]}, "config": None} for n in graph["graphs"][0]["nodes"]]


def test_graph_json_is_our_folded_view_grouped_by_module(exported):
    folder, _ = exported["transformer"]
    graph = json.loads((folder / "graph.json").read_text())
    nodes = {n["id"]: n for n in graph["graphs"][0]["nodes"]}
    a = ours("transformer")
    assert not any(i.kind == "get_attr" for n, i in a.nodes.items() if n in nodes)   # parameters folded
    gelu = next(n for n in nodes if n.startswith("gelu"))
    assert nodes[gelu]["namespace"] == "layers (Sequential)/0 (EncoderLayer)/act (GELU)"
    assert dict((kv["key"], kv["value"]) for kv in nodes[gelu]["attrs"])["placement"].startswith("CPU: gelu")


def test_saved_program_puts_qdq_nodes_in_their_ops_module_not_in_the_export_wrapper(exported):
    import torch
    import torchao  # noqa: F401

    folder, _ = exported["transformer"]
    program = torch.export.load(str(folder / "program.pt2"))
    stacks = {n.name: n.meta.get("nn_module_stack") or {} for n in program.graph_module.graph.nodes}
    assert not any("<locals>.Wrapper" in str(v) for s in stacks.values() for v in s.values())
    gelu = next(n for n in stacks if n.startswith("gelu"))
    after = next(iter(next(n for n in program.graph_module.graph.nodes if n.name == gelu).users)).name
    assert after.startswith("quantize_per_tensor") and stacks[after] == stacks[gelu]


def test_check_overlay_reads_a_node_data_file_back_onto_our_nodes(exported, run_cli, tmp_path):
    folder, _ = exported["resnet8"]
    a = ours("resnet8")
    # a "device latency" file keyed by Model Explorer's ids: one renamed weight dequantize, one op
    scales = node_data_files(folder)["scales"]["results"]
    me_id = next(k for k in scales if k.startswith("dequantize_per_channel") and not k.endswith("default"))
    mine = next(n for n, i in a.nodes.items() if i.qparams is not None and max(i.qparams.scales) == scales[me_id]["value"]
                and n.startswith("dequantize_per_channel"))
    latency = tmp_path / "latency.json"
    latency.write_text(json.dumps({"graph": {"name": "Device µs", "results": {
        me_id: {"value": 3.5}, "conv2d": {"value": 12}, "not_a_node": {"value": 1}}}}))
    code, out, err = run_cli("check", "resnet8", "--overlay", str(latency), "--format", "json")
    assert code == 0, err
    overlay = json.loads(out)["overlays"][0]
    assert overlay["name"] == "Device µs" and overlay["unmatched"] == ["not_a_node"]
    assert overlay["values"] == {"conv2d": 12.0, mine: 3.5} and list(overlay["values"]) == \
        [n for n in a.nodes if n in ("conv2d", mine)]
    code, out, err = run_cli("check", "resnet8", "--overlay", str(latency))
    assert "Overlay 'Device µs' (latency.json): values on 2 of" in out and "sum 15.5, max 12 (conv2d)" in out


def test_check_overlay_refuses_a_file_that_names_no_node_in_one_sentence(run_cli, tmp_path):
    bad = tmp_path / "other.json"
    bad.write_text(json.dumps({"results": {"a": {"value": 1}, "b": {"value": 2}}}))
    code, out, err = run_cli("check", "resnet8", "--overlay", str(bad))
    assert code == 2 and err.strip().splitlines() == [
        f"vpu-inspector: error: None of the 2 node ids in {bad} ('a', 'b') names a node of resnet8's graph: "
        "was it written for another program?"]
    notes = tmp_path / "notes.json"
    notes.write_text(json.dumps({"nodes": []}))
    code, out, err = run_cli("check", "resnet8", "--overlay", str(notes))
    assert code == 2 and "has no \"results\" object" in err and not out


def test_export_takes_one_target_unless_it_writes_for_model_explorer(run_cli, tmp_path):
    code, out, err = run_cli("export", "resnet8", "--target", "vpu", "--target", "xnnpack", "-o", str(tmp_path / "x"))
    assert code == 2 and "give one --target" in err and not (tmp_path / "x").exists()


@pytest.mark.slow
def test_every_target_asked_has_a_placement_file_the_first_one_leading(cli, tmp_path):
    folder = tmp_path / "both"
    code, out, err = cli("export", "resnet8", "--format", "model-explorer", "-o", str(folder),
                         "--target", "xnnpack", "--target", "vpu")
    assert code == 0, err
    assert _order(out)[:2] == ["placement_xnnpack", "placement_vpu"]
    files = node_data_files(folder)
    assert files["placement_xnnpack"]["name"] == "XNNPACK placement"
    ids = adapter_ids(folder / "program.pt2")
    assert set(files["placement_xnnpack"]["results"]) == ids
    assert {v["value"] for k, v in files["placement_xnnpack"]["results"].items() if k.startswith("conv2d")} == \
        {"XNNPACK partition 0"}


@needs_me
def test_the_extension_opens_a_model_file_and_provides_our_overlays(tmp_path):
    from model_explorer.extension_manager import ExtensionManager

    model = tmp_path / "tiny.py"
    model.write_text(TINY)
    manager = ExtensionManager(["vpu_core.interop.explorer"])
    manager.load_extensions()
    ours = {e["id"]: e["type"] for e in manager.get_extensions_metadata() if e["id"].startswith("vpu_inspector")}
    assert ours == {"vpu_inspector": "adapter", **{f"vpu_inspector_{k}": "node_data_provider"
                                                   for k in ("placement", "violations", "sqnr", "shift", "scales")}}
    graph = manager.run_cmd({"extensionId": "vpu_inspector", "cmdId": "convert", "modelPath": str(model),
                             "settings": {}, "deleteAfterConversion": False})["graphs"][0]
    nodes = {n["id"]: n for n in graph["nodes"]}
    assert nodes["conv2d"]["namespace"] == "conv (Conv2d)" and nodes["conv2d"]["style"]["backgroundColor"] == "#6cc58a"
    assert nodes["mean"]["style"]["backgroundColor"] == "#f4a640"     # mean is no VPU op: the CPU's orange
    placed = manager.run_cmd({"extensionId": "vpu_inspector_placement", "cmdId": "run", "modelPath": str(model),
                              "graphId": graph["id"], "configValues": {}})
    assert placed["error"] == "" and placed["result"]["results"]["mean"]["value"].startswith("CPU: mean")
    assert set(nodes) <= set(placed["result"]["results"])


TINY = '''
import torch
from torch import nn


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.act = nn.ReLU()
        self.head = nn.Linear(8, 4)

    def forward(self, x):
        return self.head(self.act(self.conv(x)).mean(dim=(2, 3)))


def get_model():
    torch.manual_seed(0)
    return Tiny().eval(), (torch.randn(1, 3, 8, 8),)
'''


@pytest.mark.slow
def test_a_corpus_bert_is_placed_node_for_node_even_where_saving_added_nodes(cli, tmp_path):
    """BERT's saved program holds torch.export's dtype asserts, which our graph has not: the
    placement names them too (every adapter id), and every other file's keys stay the adapter's."""
    folder = tmp_path / "bert"
    code, out, err = cli("export", "tests/corpus/bert_text.py", "--format", "model-explorer", "-o", str(folder))
    assert code == 0, err
    ids = adapter_ids(folder / "program.pt2")
    files = node_data_files(folder)
    placement = files["placement_vpu"]["results"]
    assert set(placement) == ids and f"program.pt2 ({len(ids)} nodes)" in out
    added = {k for k, v in placement.items() if v["value"].startswith("added by torch.export")}
    assert added and all(k.startswith("_assert_tensor_metadata") for k in added)
    for stem, data in files.items():
        assert set(data["results"]) <= ids, stem


@pytest.mark.slow
def test_a_dynamic_batch_xnnpack_program_opens_and_its_violations_name_the_rules(cli, tmp_path):
    """Model Explorer 0.1.34's adapter cannot write a symbolic shape among several outputs: the
    program is written at its example batch. XNNPACK scales break the VPU's rules: each broken rule
    is on its node, in the canvas' violation red."""
    from vpu_core.config import RunConfig
    from vpu_core.graph.colours import VIOLATION
    from vpu_core.session import default_session

    folder = tmp_path / "dyn"
    code, out, err = cli("export", "resnet8", "--quantizer", "xnnpack", "--dynamic-batch", "--format",
                         "model-explorer", "-o", str(folder))
    assert code == 0, err
    ids = adapter_ids(folder / "program.pt2")
    files = node_data_files(folder)
    assert set(files["placement_vpu"]["results"]) == ids
    a = default_session().analysis(RunConfig(model="resnet8", quantizer="xnnpack", dynamic_batch=True))
    violations = files["violations"]["results"]
    assert violations and set(violations) <= ids
    assert {r for v in violations.values() for r in v["value"].split(", ")} == {v.rule for v in a.violations}
    assert {v["bgColor"] for v in violations.values()} == {VIOLATION}

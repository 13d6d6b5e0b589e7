"""The real-model corpus (tests/corpus: small `transformers` configs and a batch-1 CNN) through the
real command line under both quantizers, at each model's own batch, with the saved program loaded
back. One run per (model, quantizer) is shared by every test here (conftest.corpus_check).

Saving and re-checking a program costs about as much as the check itself, and the save path does
not depend on the quantizer, so CI round-trips every model's VPU program and the XNNPACK programs
of ROUND_TRIP_XNNPACK; CORPUS_ROUND_TRIP=all round-trips every XNNPACK program too."""
import functools
import math
import os
import re
from collections import Counter

import pytest
import torch

from conftest import CORPUS_DIR, corpus_models
from vpu_core.hardware.ops import op_matches
from vpu_core.profile import load_profile

MODELS = corpus_models()
QUANTIZERS = ("vpu", "xnnpack")
CASES = [(m, q) for m in MODELS for q in QUANTIZERS]
FAMILIES = {"bert_text", "gpt2_text", "vit_vision", "swin_vision", "resnet_bn", "wav2vec2_audio",
            "efficientnet_mobile", "mobilevit_hybrid", "whisper_audio"}
CAUSES = ("op_list", "dtype", "limit", "memory", "float")
INT_REASON = "tensor op: "   # "integer tensor op: …" / "bool tensor op: …"
ROUND_TRIP_XNNPACK = ("bert_text", "resnet_bn")     # int inputs + ModelOutput; folded batch norm
ALL_ROUND_TRIPS = os.environ.get("CORPUS_ROUND_TRIP") == "all"


def saves(stem: str, quantizer: str) -> bool:
    return quantizer == "vpu" or ALL_ROUND_TRIPS or stem in ROUND_TRIP_XNNPACK


@functools.lru_cache(maxsize=None)
def own_inputs(stem: str) -> list[tuple[list[int], str]]:
    from vpu_core.pipeline.loading import load_model

    loaded = load_model(f"{CORPUS_DIR}/{stem}.py")
    return [(list(t.shape), str(t.dtype).replace("torch.", "")) for t in loaded.example_inputs]


def test_the_corpus_covers_the_architecture_families():
    assert FAMILIES <= set(MODELS) and "batch1_reshape" in MODELS


@pytest.mark.slow
@pytest.mark.parametrize("stem, quantizer", CASES)
def test_check_runs_at_the_models_own_batch(corpus_check, stem, quantizer):
    run = corpus_check(stem, quantizer, saves(stem, quantizer))
    assert run["code"] in (0, 1), run["err"]
    data = run["json"]
    assert data["quantizer"] == quantizer and not data["dynamic_batch"]
    assert [(i["shape"], i["dtype"]) for i in data["inputs"]] == own_inputs(stem)
    assert (run["code"] == 1) == (not data["summary"]["ok"])     # the primary target's verdict
    if quantizer == "vpu":
        assert data["violations"] == []           # the VPU quantizer meets its own rules
    assert data["partition"]["subgraphs"], "something runs on the VPU"
    shown, laid_out = run["shown"]                  # what the window draws of the same run
    assert 0 < shown == laid_out <= len(data["graph"]["nodes"])
    assert isinstance(data["sqnr_db"], float) and 3 < data["sqnr_db"] < 80, data["sqnr_reason"]


@pytest.mark.slow
@pytest.mark.parametrize("stem, quantizer", CASES)
def test_cpu_fallbacks_give_the_real_reason(corpus_check, stem, quantizer):
    """Every CPU node carries its cause, and the cause is true of the node: under the shipped
    profile (no per-op limits) an op is on the CPU because its op is not listed (nor the kernel
    it runs as), because it computes integers / bools, or — XNNPACK only — because the quantizer
    left it in float."""
    data = corpus_check(stem, quantizer, saves(stem, quantizer))["json"]
    part = data["partition"]
    vpu_ops = load_profile().vpu_ops
    for cpu in part["cpu_nodes"]:
        # listed: its own op, or (an alias) the kernel it runs as
        reason, cause = cpu["reason"], cpu["cause"]
        listed = op_matches(cpu["op"], vpu_ops) or bool(cpu["runs_as"])
        assert cause in CAUSES and cause not in ("limit", "memory") and cpu["limit"] is None, cpu
        if cause == "op_list":
            assert "not in the VPU op list" in reason and not listed, cpu
        elif cause == "dtype":
            assert INT_REASON in reason and "int8-quantized float activations only" in reason, cpu
        else:
            assert quantizer == "xnnpack" and listed and "left in float by the quantizer" in reason, cpu
    counts = Counter(c["cause"] for c in part["cpu_nodes"])
    assert data["summary"]["cpu_ops_by_cause"] == {cause: counts[cause] for cause in CAUSES}
    # Quantize / dequantize nodes only ever carry float activations and int8 / int32 values.
    quantized = {t["dtype"] for t in data["tensors"]}
    assert quantized <= {"int8", "int32"}


@pytest.mark.slow
@pytest.mark.parametrize("stem", MODELS)
def test_the_vpu_quantizer_quantizes_every_weight_it_runs(corpus_check, stem):
    """Under the VPU quantizer every conv / linear and every alias of one (conv1d, addmm / mm /
    matmul with a constant weight) is quantized and runs on the VPU; the MAC share says how much
    of the model that is."""
    data = corpus_check(stem, "vpu", True)["json"]
    summary = data["summary"]
    assert summary["weights_total"] > 0
    assert summary["weights_quantized"] == summary["weights_total"] == summary["weighted_ops_on_vpu"]
    assert 0.5 <= summary["vpu_mac_share"] <= 1.0
    assert summary["macs_vpu"] <= summary["macs_total"]


@pytest.mark.slow
def test_gpt2_projections_run_as_linear_with_per_channel_weights(corpus_check):
    data = corpus_check("gpt2_text", "vpu", True)["json"]
    aliases = {a["node"]: a["runs_as"] for a in data["partition"]["aliases"]}
    addmms = [n["name"] for n in data["graph"]["nodes"] if n["op"] == "addmm.default"]
    assert len(addmms) == 8 and all(aliases[n] == "runs as the VPU's linear kernel (addmm with a "
                                    "constant weight)" for n in addmms)
    on_vpu = {n for s in data["partition"]["subgraphs"] for n in s["nodes"]}
    assert set(addmms) <= on_vpu
    weights = {t["consumer"]: t for t in data["tensors"] if t["kind"] == "weight"}
    for node in addmms:                         # Conv1D weight [in, out]: one scale per output feature
        assert len(weights[node]["scales"]) in (64, 192, 256) and set(weights[node]["zero_points"]) == {0}
    assert data["summary"]["vpu_mac_share"] >= 0.5


@pytest.mark.slow
def test_whisper_conv1d_runs_on_the_vpu_as_a_1xk_conv2d(corpus_check):
    data = corpus_check("whisper_audio", "vpu", True)["json"]
    convs = [n["name"] for n in data["graph"]["nodes"] if n["op"].startswith("conv1d")]
    on_vpu = {n for s in data["partition"]["subgraphs"] for n in s["nodes"]}
    assert len(convs) == 2 and set(convs) <= on_vpu
    aliases = {a["node"]: a["runs_as"] for a in data["partition"]["aliases"]}
    assert {aliases[c] for c in convs} == {"runs as the VPU's conv2d kernel (conv1d as a 1×k conv2d)"}


@pytest.mark.slow
@pytest.mark.parametrize("stem, quantizer", [c for c in CASES if saves(*c)])
def test_saved_program_loads_back_with_the_same_result(corpus_check, stem, quantizer):
    run = corpus_check(stem, quantizer, True)
    program = torch.export.load(run["pt2"])
    assert any("quantize_per_tensor" in str(n.target) for n in program.graph.nodes)
    saved = run["saved"]
    assert saved["code"] == run["code"], saved["err"]
    assert summary(saved["json"]) == summary(run["json"])
    assert saved["json"]["sqnr_db"] is None and "already quantized" in saved["json"]["sqnr_reason"]


def _float_reason(reason: str, c) -> str:
    """A "left in float" reason names the node it reads: named the saved program's way."""
    return re.sub(r"(it reads )(\S+)( without)", lambda m: m.group(1) + c(m.group(2)) + m.group(3), reason)


def summary(data: dict) -> dict:
    """What a saved program must reproduce: rules, violations, partition, qparams, shifts, inputs.

    torch.export renames nodes when it saves a program (quantize_per_tensor_default_3 →
    quantize_per_tensor_2, _scale_0 → _frozen_param0, expand_2 → expand when two expands were
    folded away), so every node is named by its op and rank among the nodes of that op
    ("unsqueeze.default#3"), in graph order (constants just "get_attr": a saved program lists
    them first): equal summaries mean the same nodes in the same order with the same partition,
    reasons, qparams, shifts and violations."""
    rank, names = Counter(), {}
    for n in data["graph"]["nodes"]:
        if n["op"] == "get_attr":       # constants: a saved program lists them all first
            names[n["name"]] = "get_attr"
            continue
        names[n["name"]] = f"{n['op']}#{rank[n['op']]}"
        rank[n["op"]] += 1
    word = re.compile("|".join(sorted(map(re.escape, names), key=len, reverse=True)))

    def c(text: str) -> str:
        return word.sub(lambda m: names[m.group(0)] if m.group(0) in names else m.group(0), text)

    part = data["partition"]
    return {
        "nodes": sorted(names.values()),
        "rules": [(r["id"], r["violations"]) for r in data["rules"]],
        "violations": [(v["rule"], c(v["node"]), c(v["message"])) for v in data["violations"]],
        "subgraphs": [sorted(map(c, s["nodes"])) for s in part["subgraphs"]],
        "cpu_nodes": [(c(n["node"]), n["op"], _float_reason(n["reason"], c), n["cause"], n["limit"])
                      for n in part["cpu_nodes"]],
        "aliases": sorted((c(a["node"]), a["runs_as"]) for a in part["aliases"]),
        "headline": data["summary"],
        "boundaries": [(c(b["src"]), c(b["dst"]), b["direction"], b["bytes"], b["dtype"])
                       for b in part["boundaries"]],
        "transfer_bytes": part["transfer_bytes"],
        "tensors": [(c(t["node"]), t["kind"], t["dtype"], t["scales"], t["zero_points"], c(t["consumer"]))
                    for t in data["tensors"]],
        "requant": [(c(r["node"]), r["shifts"], r["exact"], r["nearest_shifts"]) for r in data["requant"]],
        "inputs": [(i["shape"], i["dtype"]) for i in data["inputs"]],
    }


@pytest.mark.slow
def test_text_models_keep_their_token_ids_and_masks(corpus_check):
    data = corpus_check("bert_text", "vpu", True)["json"]
    assert [i["dtype"] for i in data["inputs"]] == ["int64", "int64"]
    reasons = {c["node"]: c["reason"] for c in data["partition"]["cpu_nodes"]}
    assert any(r.startswith("integer tensor op") for r in reasons.values())
    assert any(r.startswith("bool tensor op") for r in reasons.values())
    assert all(math.log2(s).is_integer() for t in data["tensors"] for s in t["scales"])


# -- the pictures of the corpus: every drawn text whole, every legend true -----------------------
PICTURE_MODELS = ("gpt2_text", "whisper_audio", "swin_vision", "mobilenetv2_mobile")
CANVASES = {"single": (894, 566), "compare": (474, 456)}    # a 1280×720 window's canvases


def _pictures(analysis, theme):
    """(name, model, flat model, layout) of what a canvas draws of `analysis` in `theme`: every
    group open, and the groups a new model opens with in the single view and a compare pane."""
    from vpu_core.config import ViewOptions
    from vpu_core.inspection import display_graph

    graph = display_graph(analysis, ViewOptions(label_scale=theme.label_scale()))
    out = [("flat", graph.model, graph.model, graph.layout)]
    if graph.grouped is not None:
        out.append(("all open", *graph.grouped.expand_all()[:1], graph.model, graph.grouped.expand_all()[1]))
        for name, (w, h) in CANVASES.items():
            shown, layout = graph.grouped.show(graph.grouped.fitting_view(w - 20, h - 20))
            out.append((name, shown, graph.model, layout))
    return out


def _drawn_problems(scene, theme) -> list[str]:
    """What a scene draws that is not its node's data whole: a label or title that differs, a
    detail line that is neither the node's nor it with whole dimensions dropped, a font shrunk
    below 90 % (the box was sized for another font)."""
    from vpu_core.formatting import shorter_shapes

    bad = []
    for item in [*scene.items.values(), *scene.headers.values()]:
        node = getattr(item, "node", None)
        texts = item.drawn_texts()
        if node is None:                                     # an open group's title strip
            s = item.stats
            want = [(f"▾ {s.label} · {s.nodes} nodes",)]
        elif node.category == "group":
            want = [("▸ " + node.label,), (node.detail,)]
        else:
            want = [(node.label,), (node.detail, *shorter_shapes(node.detail))][:len(texts)]
        for (text, font), allowed in zip(texts, want):
            base = theme.detail_font if allowed[0] == getattr(node, "detail", None) else theme.label_font
            if text not in allowed:
                bad.append(f"{text!r} for {allowed[0]!r}")
            elif font.pixelSize() < 0.9 * base.pixelSize():
                bad.append(f"{text!r} shrunk to {font.pixelSize()} px")
    return bad


def _legend_problems(model, flat, theme, by_metric: bool = False) -> list[str]:
    """Legend rows against the colours drawn: each box / shade row drawn, each drawn fill listed,
    two subgraphs in one colour only with the cycling note."""
    from app.graph_view.nodes import StyleCache
    from app.graph_view.style import legend_entries
    from vpu_core.graph.legend import legend_facts

    facts = legend_facts(model, flat)
    if by_metric:
        from dataclasses import replace
        facts = replace(facts, by_metric=True)
    rows = legend_entries(theme, facts)
    listed = {c.name() for kind, _, c in rows if kind == "box"}
    listed |= {c.name() for kind, _, cs in rows if kind == "shades" for c in cs}
    cache = StyleCache(theme)
    ops = ("vpu", "cpu")
    drawn = {cache.fill(n)[1].name() for n in model.nodes if n.category in ("qdq", "param", "io")
             or (n.category in ops and not by_metric)}
    bad = [f"drawn, not listed: {c}" for c in drawn - listed] + [f"listed, not drawn: {c}" for c in listed - drawn]
    # every partition is the one accelerator green (docs/spec.md 9.2: a partition is told by its
    # numbered tag, not by a shade), so the legend lists one green however many partitions there are
    if len({theme.fill("vpu", i).name() for i in facts.subgraphs}) > 1 and not by_metric:
        bad.append(f"partitions {facts.subgraphs} drawn in more than one green")
    return bad


@pytest.mark.parametrize("stem,quantizer", [(m, q) for m in PICTURE_MODELS for q in QUANTIZERS])
def test_every_drawn_text_is_whole_and_every_legend_true(corpus_check, stem, quantizer):
    """Default, large labels and presentation, flat, every group open and as a new model opens in
    the single view and a compare pane at 1280×720: every label, title and shape drawn whole (a
    shape only loses whole dimensions), and the legend lists exactly the colours drawn."""
    from app.graph_view.export import ensure_app
    from app.graph_view.scene import GraphScene
    from app.graph_view.style import Theme
    from vpu_core.config import RunConfig
    from vpu_core.session import default_session

    assert corpus_check(stem, quantizer, saves(stem, quantizer))["code"] in (0, 1)
    ensure_app()
    analysis = default_session().analysis(RunConfig(model=f"{CORPUS_DIR}/{stem}.py", quantizer=quantizer,
                                                    calib_batches=1))
    problems = []
    for theme in (Theme.make(), Theme.make(large_font=True), Theme.make(presentation=True)):
        for name, model, flat, layout in _pictures(analysis, theme):
            scene = GraphScene(model, layout, theme)
            where = f"{'presentation' if theme.presentation else 'large' if theme.large_font else 'default'} {name}"
            problems += [f"{where}: {p}" for p in _drawn_problems(scene, theme)]
            problems += [f"{where} legend: {p}" for p in _legend_problems(model, flat, theme)]
            problems += [f"{where} µs legend: {p}" for p in _legend_problems(model, flat, theme, True)]
            scene.deleteLater()
    assert not problems, problems[:12]

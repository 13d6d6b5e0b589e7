"""Module hierarchy, collapsed groups, folded Q/DQ, shared-scale groups and the compound layout.

Real runs (resnet8, the transformer of the zoo, a small model calling modules twice) through the
real export / PT2E / analysis; the synthetic graphs only for the layout's invariants.
"""
from __future__ import annotations

import textwrap

import pytest

from vpu_core.graph.build import build_graph_model, display_id
from vpu_core.graph.fold_qdq import edge_text, scale_label
from vpu_core.layout.grouped import GroupedGraph, grouped_graph
from vpu_core.graph.groups import group_id
from vpu_core.analysis.hierarchy import build_tree, module_tree
from vpu_core.layout import check_layout
from tools.layouts.synthetic import synthetic_qdq_graph, synthetic_tree
from vpu_core.reports.json_report import analysis_to_json

QDQ = "quantized_decomposed."


def _is_q(info):
    return info.op.startswith(QDQ + "quantize")


def _is_dq(info):
    return info.op.startswith(QDQ + "dequantize")


# -- hierarchy ---------------------------------------------------------------------------------

def test_build_tree_nests_and_keeps_nodes_without_a_module_at_the_top():
    a, b, c = ("enc", "Encoder"), ("enc.layer.0", "Layer"), ("enc.layer.0.attn", "Attention")
    stacks = {"n1": (a, b, c), "n2": (a, b), "n3": (a,), "n5": (("head", "Linear"),)}
    tree = build_tree(["x", "n1", "n2", "n3", "n5", "out"], stacks)
    assert tree.owner == {"x": None, "n1": "enc.layer.0.attn", "n2": "enc.layer.0", "n3": "enc",
                          "n5": "head", "out": None}
    g = tree.groups
    assert g["enc.layer.0.attn"].parent == "enc.layer.0" and g["enc.layer.0.attn"].depth == 3
    assert g["enc"].nodes == ("n1", "n2", "n3") and g["enc.layer.0"].children == ("enc.layer.0.attn",)
    assert tree.top_level() == ("enc", "head") and tree.max_depth == 3
    assert g["enc.layer.0.attn"].label == "attn (Attention)"         # relative to its parent
    assert tree.path_of("n1") == ["enc", "enc.layer.0", "enc.layer.0.attn"]
    assert tree.at_depth_below(2) == {"enc", "head"}


def test_resnet8_qdq_nodes_belong_to_the_op_they_quantize_for(analysis):
    a = analysis("resnet8")
    tree = module_tree(a)
    owner, nodes = tree.owner, a.nodes
    assert owner["x"] is None and owner["output"] is None
    checked = 0
    for name, info in nodes.items():
        if info.module_stack:                          # an op traced inside a module
            assert owner[name] == info.module_stack[-1][0]
        elif _is_q(info) and info.inputs and nodes[info.inputs[0]].module_stack:
            assert owner[name] == owner[info.inputs[0]]          # quantize: its producer's
            checked += 1
        elif _is_dq(info) and len(info.outputs) == 1 and nodes[info.outputs[0]].module_stack:
            assert owner[name] == owner[info.outputs[0]]         # dequantize: its consumer's
            checked += 1
        elif info.kind == "get_attr" and info.outputs:
            consumer = next(u for u in info.outputs)
            assert owner[name] == owner[consumer]                 # parameter: its consumer's
    assert checked > 30
    conv = next(n for n, i in nodes.items() if i.op == "conv2d.default")
    weight_dq = next(i for i in nodes[conv].inputs if _is_dq(nodes[i]) and "per_channel" in nodes[i].op)
    assert owner[weight_dq] == owner[conv] == "entry.0"
    assert tree.groups["stages.0.path_a"].parent == "stages.0" and tree.groups["stages.0"].cls == "_ResStage"


REPEATED = textwrap.dedent('''
    import torch

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(4, 4, 3, padding=1)
            self.act = torch.nn.ReLU()

        def forward(self, x):
            return self.act(self.conv(self.act(x))) + x

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.block = Block()
            self.head = torch.nn.Conv2d(4, 2, 1)

        def forward(self, x):
            return self.head(self.block(self.block(x)))

    def get_model():
        torch.manual_seed(0)
        return Model().eval(), (torch.randn(1, 4, 8, 8),)
''')


def test_a_module_called_twice_gives_one_group_per_call(tmp_path):
    from vpu_core.analysis import analyze
    from vpu_core.pipeline import RunConfig, run_pipeline

    path = tmp_path / "repeated.py"
    path.write_text(REPEATED)
    a = analyze(run_pipeline(RunConfig(model=str(path), calib_batches=1, batch_size=1)))
    tree = module_tree(a)
    assert {"block", "block@1"} <= set(tree.groups)
    first, second = tree.groups["block"], tree.groups["block@1"]
    assert first.parent is None and second.parent is None
    assert not set(first.nodes) & set(second.nodes)
    assert second.label == "block #2 (Block)"
    inner = [p for p, g in tree.groups.items() if g.parent == "block@1"]
    assert any(p.startswith("block.conv") for p in inner) and any(p.startswith("block.act") for p in inner)
    adds = [n for n, i in a.nodes.items() if i.op.startswith("add")]
    assert [tree.owner[n] for n in adds] == ["block", "block@1"]
    # one numbering in the window: the table label and the node panel say "#2" like the group title
    # and the breadcrumbs (the JSON keeps torch.export's "@1" in its group paths)
    from vpu_core.formatting import node_label
    assert a.nodes[adds[1]].module.endswith("block@1") and node_label(a.nodes[adds[1]]) == "block #2 · add"
    # collapsing both calls never merges them into one box (which would make a cycle)
    model = build_graph_model(a)
    grouped = grouped_graph(a, model)
    shown, layout = grouped.collapse_to(1)
    assert {group_id("block"), group_id("block@1")} <= {n.id for n in shown.nodes}
    assert (group_id("block"), group_id("block@1")) in {(e.src, e.dst) for e in shown.edges}
    assert check_layout(layout, [n.id for n in shown.nodes]) == []


# -- collapsed groups --------------------------------------------------------------------------------

def test_collapsed_group_stats_and_boundary_edges_on_the_transformer(analysis):
    a = analysis("transformer")
    model = build_graph_model(a)
    grouped = grouped_graph(a, model)
    shown, layout = grouped.collapse_to(1)
    layer = next(n for n in shown.nodes if n.id == group_id("layers"))
    s = layer.group
    members = set(grouped.tree.groups["layers"].nodes)
    cats = {n.id: n.category for n in model.nodes if n.id in members}
    assert s.vpu_ops == sum(c == "vpu" for c in cats.values()) > 0
    assert s.cpu_ops == sum(c == "cpu" for c in cats.values()) > 0          # layer_norm, softmax…
    assert s.nodes == len(members) and s.violations == sum(
        1 for v in a.violations if grouped.tree.owner.get(v.node) is not None
        and "layers" in grouped.tree.chain(grouped.tree.owner[v.node]))
    # every real boundary edge crossing the box is drawn on an edge of the box, with its bytes
    crossing = [e for e in model.edges if e.boundary and ((e.src in members) != (e.dst in members))]
    assert crossing
    box_edges = {(e.src, e.dst): e for e in shown.edges if group_id("layers") in (e.src, e.dst)}
    for e in crossing:
        drawn = box_edges[(display_id(shown, e.src), display_id(shown, e.dst))]
        assert drawn.boundary is not None
    assert sum(e.bytes for e in box_edges.values()) == sum(e.bytes for e in model.edges
                                                          if (e.src in members) != (e.dst in members))
    # nothing inside the box is drawn, and what is hidden maps to the box
    assert not members & {n.id for n in shown.nodes}
    some = next(iter(members & {n.id for n in model.nodes}))
    assert display_id(shown, some) == group_id("layers")
    assert check_layout(layout, [n.id for n in shown.nodes]) == []


@pytest.mark.parametrize("quantizer", ["vpu", pytest.param("xnnpack", marks=pytest.mark.slow)])
def test_expanding_and_collapsing_in_place_matches_a_fresh_layout(quantizer, analysis):
    a = analysis("resnet8", quantizer)
    model = build_graph_model(a)
    grouped = grouped_graph(a, model)
    grouped.collapse_to(1)
    grouped.expand("stages.1")                # opens stages too
    shown, layout = grouped.collapse("stages.0")
    fresh = grouped_graph(a, model)
    shown2, layout2 = fresh.show(grouped.expanded)
    assert shown.nodes == shown2.nodes and layout.boxes == layout2.boxes
    assert sorted(layout.edges) == sorted(layout2.edges) and layout.frames == layout2.frames
    assert set(layout.frames) == {"stages", "stages.1"} and group_id("stages.0") in layout.boxes
    assert check_layout(layout, [n.id for n in shown.nodes]) == []
    every, lay_all = grouped.expand_all()
    assert {n.id for n in every.nodes} == {n.id for n in model.nodes}     # nothing hidden
    assert len(lay_all.edges) == len(model.edges)


def test_compound_layout_invariants_on_synthetic_graphs():
    m = synthetic_qdq_graph(1500, seed=5)
    grouped = GroupedGraph(m, synthetic_tree(m))
    for depth in (1, 2, 3, 9):
        shown, layout = grouped.collapse_to(depth)
        assert check_layout(layout, [n.id for n in shown.nodes]) == [], depth
        for path, (x, y, w, h) in layout.frames.items():          # members inside their frame
            for node in grouped.tree.groups[path].nodes:
                if node in layout.boxes:
                    bx, by, bw, bh = layout.boxes[node]
                    assert x <= bx and bx + bw <= x + w and y <= by and by + bh <= y + h
    assert grouped.fitting_depth(1280, 800) >= 1


# -- folded Q/DQ ----------------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_grouped_graph_is_freed_without_the_cycle_collector():
    """No reference cycle: a graph the window replaces is freed at once, not by a full collection
    on the GUI thread over a big graph's layout caches (seconds at 20k nodes)."""
    import gc

    model = synthetic_qdq_graph(600, seed=2)
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        grouped = GroupedGraph(model, synthetic_tree(model))
        grouped.show(grouped.fitting_view(1280, 800))
        top = next(iter(grouped.tree.top_level()))
        grouped.toggle(top)
        grouped.expand_all()
        del grouped
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()


def test_folded_qdq_edges_carry_dtype_scale_and_violations(analysis):
    for quantizer in ("vpu", "xnnpack"):
        a = analysis("resnet8", quantizer)
        full, folded = build_graph_model(a), build_graph_model(a, hide_qdq=True)
        assert not [n for n in folded.nodes if n.category == "qdq"]
        assert len(folded.nodes) == sum(1 for n in full.nodes if n.category != "qdq")
        conv = next(n.id for n in folded.nodes if n.label == "conv2d")
        into = [e for e in folded.edges if e.dst == conv]
        assert len(into) == 1 and into[0].dtype == "int8" and into[0].folded
        tensor = {t.node: t for t in a.tensors}[into[0].folded[0]]
        assert into[0].scale == tensor.scales[0]
        if quantizer == "vpu":
            assert all(scale_label(e.scale).startswith("2^") for e in folded.edges if e.scale)
            assert edge_text(into[0]) == f"int8 · {scale_label(tensor.scales[0])}"
        # every violation on a Q/DQ node is still shown: on the edges it was folded into
        counts = {}
        for v in a.violations:
            counts[v.node] = counts.get(v.node, 0) + 1
        qdq = {x.id for x in full.nodes if x.category == "qdq"}
        bad = {n for n in counts if n in qdq}
        assert bad <= {q for e in folded.edges for q in e.folded}
        for e in folded.edges:
            assert e.violations == sum(counts.get(q, 0) for q in e.folded)
        assert bool(bad) == (quantizer == "xnnpack")
        for name in (q for e in folded.edges for q in e.folded):    # tables can still jump
            assert display_id(folded, name) in {n.id for n in folded.nodes}


def test_folded_boundary_edges_keep_direction_and_bytes(analysis):
    a = analysis("transformer")
    folded = build_graph_model(a, hide_qdq=True)
    marked = [e for e in folded.edges if e.boundary]
    assert marked and all(e.bytes > 0 for e in marked)
    assert sum(e.bytes for e in marked) == a.partition.transfer_bytes


# -- shared-scale groups --------------------------------------------------------------------------------

@pytest.mark.slow
def test_shared_scale_groups_vpu_share_xnnpack_differ(analysis):
    vpu, xnn = analysis("resnet8", "vpu"), analysis("resnet8", "xnnpack")
    assert len(vpu.scale_groups) == len(xnn.scale_groups) == 3
    for g in vpu.scale_groups:
        assert g.shared and len({m.scales for m in g.members}) == 1
    assert not any(g.shared for g in xnn.scale_groups)
    last = vpu.scale_groups[-1]
    assert last.ops == ("add_2", "adaptive_avg_pool2d")     # the add's output feeds the pool
    assert len(last.members) == 4
    add = vpu.nodes["add_2"]
    for dq in add.inputs:                                    # both add inputs are members
        assert vpu.nodes[dq].inputs[0] in {m.tensor for m in last.members}
    producers = {m.producer for m in last.members}
    assert "adaptive_avg_pool2d" in producers and set(last.nodes()) >= {"add_2", *producers}
    by_tensor = {m.tensor: m.scales for m in xnn.scale_groups[0].members}
    assert len(set(by_tensor.values())) == 3                 # three different scales side by side


# -- JSON ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("model", ["resnet8", "transformer"])
def test_json_groups_are_consistent_with_the_graph(model, analysis):
    data = analysis_to_json(analysis(model))
    groups = data["groups"]
    names = {n["name"] for n in data["graph"]["nodes"]}
    by_path = {g["path"]: g for g in groups}
    assert len(by_path) == len(groups) and groups
    seen = set()
    for g in groups:
        assert set(g) >= {"path", "class", "parent", "nodes"}
        assert "." not in g["class"]                          # short class names
        assert set(g["nodes"]) <= names and g["nodes"]
        if g["parent"] is None:
            assert not set(g["nodes"]) & seen                 # top-level groups are disjoint
            seen |= set(g["nodes"])
        else:
            assert g["parent"] in by_path and set(g["nodes"]) <= set(by_path[g["parent"]]["nodes"])
            assert groups.index(by_path[g["parent"]]) < groups.index(g)      # parents first
    assert "x" not in seen and "output" not in seen
    ops = [n["name"] for n in data["graph"]["nodes"] if n["op"].endswith(".default")
           and not n["op"].startswith(QDQ) and n["op"] not in ("getitem",)]
    inside = {n for g in groups for n in g["nodes"]}
    assert sum(op in inside for op in ops) >= len(ops) - 4   # ops of the top module's own forward


# -- render ------------------------------------------------------------------------------------------------

def test_render_collapse_and_hide_qdq(tmp_path):
    from PySide6.QtGui import QImage

    from app.cli import main

    common = ["resnet8", "--calib-batches", "1", "--batch-size", "2"]
    sizes = {}
    for name, extra in (("flat", []), ("collapsed", ["--collapse", "1"]), ("hidden", ["--hide-qdq"])):
        out = tmp_path / f"{name}.png"
        assert main(["render", *common, "-o", str(out), *extra]) == 0
        img = QImage(str(out))
        sizes[name] = img.width() * img.height()
    assert sizes["collapsed"] < sizes["flat"] / 3          # (the legend column is a fixed cost)
    assert sizes["hidden"] <= sizes["flat"] / 2

"""build_graph_model: categories, folding, violation counts, labels, boundaries.

The first tests use a small hand-written Analysis shaped exactly like a converted conv+relu graph
(plain dataclasses, the contract the analysis produces), so folding can be checked node by node.
The others run the real pipeline and analysis and check the graph agrees with the core.
"""
from __future__ import annotations

import pytest

from vpu_core.analysis.results import (Analysis, Boundary, CpuNode, NodeInfo, PartitionReport,
                                       QuantParams, Subgraph, Violation)
from vpu_core.formatting import shape_text
from vpu_core.graph.build import build_graph_model, display_id

QT = "quantized_decomposed.quantize_per_tensor.default"
DQT = "quantized_decomposed.dequantize_per_tensor.default"
DQC = "quantized_decomposed.dequantize_per_channel.default"


def _info(name, op, kind="call_function", inputs=(), shape="", dtype="", scale=None, target=""):
    qp = QuantParams((scale,), (0,), "int8", -128, 127) if scale is not None else None
    return NodeInfo(name=name, op=op, target=target or op, kind=kind, arguments=(), shape=shape,
                    dtype=dtype, inputs=tuple(inputs), qparams=qp)


def _conv_relu_analysis(violations=(), cpu_relu=False) -> Analysis:
    """x → Q → DQ → conv2d(w: frozen → DQ/ch(scale, zp), bias) → relu → Q → DQ → output."""
    nodes = [
        _info("_scale_0", "get_attr", "get_attr", target="_scale_0"),
        _info("_zero_point_0", "get_attr", "get_attr", target="_zero_point_0"),
        _info("quantize_per_channel_default", "get_attr", "get_attr", target="_frozen_param0"),
        _info("dequantize_per_channel_default", DQC,
              inputs=("quantize_per_channel_default", "_scale_0", "_zero_point_0")),
        _info("conv_bias", "get_attr", "get_attr", shape="[8]", dtype="float32", target="conv.bias"),
        _info("x", "placeholder", "placeholder", shape="[16, 3, 16, 16]", dtype="float32"),
        _info("quantize_per_tensor_default", QT, inputs=("x",), scale=0.0625),
        _info("dequantize_per_tensor_default", DQT, inputs=("quantize_per_tensor_default",)),
        _info("_guards_fn", "_guards_fn", "call_module", inputs=("x",)),
        _info("conv2d", "conv2d.default", inputs=("dequantize_per_tensor_default", "dequantize_per_channel_default",
                                                   "conv_bias"), shape="[16, 8, 16, 16]", dtype="float32"),
        _info("relu", "relu.default", inputs=("conv2d",), shape="[16, 8, 16, 16]", dtype="float32"),
        _info("quantize_per_tensor_default_1", QT, inputs=("relu",),
              scale=0.03125),
        _info("dequantize_per_tensor_default_1", DQT, inputs=("quantize_per_tensor_default_1",)),
        _info("output", "output", "output", inputs=("dequantize_per_tensor_default_1",)),
    ]
    infos = {n.name: n for n in nodes}
    edges = tuple((src, n.name) for n in nodes for src in n.inputs)
    vpu_side = ["quantize_per_tensor_default", "dequantize_per_tensor_default", "conv2d",
                "dequantize_per_channel_default"] + ([] if cpu_relu else ["relu"])
    assignment = {name: 0 for name in vpu_side}
    cpu, boundaries = (), ()
    if cpu_relu:
        assignment["relu"] = "cpu"
        cpu = (CpuNode("relu", "relu.default", "relu.default is not in the VPU op list"),)
        boundaries = (Boundary("conv2d", "relu", "vpu->cpu", 8192, (16, 8, 16, 16), "float32"),)
    partition = PartitionReport("test", ("conv2d",), (Subgraph(0, tuple(vpu_side)),), cpu, boundaries,
                                sum(b.bytes for b in boundaries), assignment)
    return Analysis(model="conv_relu", quantizer="vpu", dynamic_batch=False, rules=(),
                    violations=tuple(violations), partition=partition, requant=(), tensors=(),
                    sqnr_db=None, nodes=infos, edges=edges)


def test_folding_puts_weight_chain_and_bias_into_the_conv():
    model = build_graph_model(_conv_relu_analysis())
    ids = [n.id for n in model.nodes]
    assert ids == ["x", "quantize_per_tensor_default", "dequantize_per_tensor_default", "conv2d", "relu",
                   "quantize_per_tensor_default_1", "dequantize_per_tensor_default_1", "output"]
    conv = model.node("conv2d")
    assert conv.folded == ("_scale_0", "_zero_point_0", "quantize_per_channel_default",
                           "dequantize_per_channel_default", "conv_bias")
    assert display_id(model, "dequantize_per_channel_default") == "conv2d"
    assert display_id(model, "relu") == "relu"
    assert {(e.src, e.dst) for e in model.edges} == {
        ("x", "quantize_per_tensor_default"), ("quantize_per_tensor_default", "dequantize_per_tensor_default"),
        ("dequantize_per_tensor_default", "conv2d"), ("conv2d", "relu"),
        ("relu", "quantize_per_tensor_default_1"),
        ("quantize_per_tensor_default_1", "dequantize_per_tensor_default_1"),
        ("dequantize_per_tensor_default_1", "output")}


def test_categories_labels_and_details():
    model = build_graph_model(_conv_relu_analysis())
    cats = {n.id: n.category for n in model.nodes}
    assert cats["x"] == cats["output"] == "io"
    assert cats["conv2d"] == cats["relu"] == "vpu"
    assert cats["quantize_per_tensor_default"] == "qdq"
    assert model.node("quantize_per_tensor_default").subgraph == 0
    assert model.node("quantize_per_tensor_default").label == "quantize"
    assert model.node("dequantize_per_tensor_default_1").label == "dequantize"
    assert model.node("relu").detail == "16×8×16×16 int8"     # stored as the int8 of the quantize after it
    assert model.node("conv2d").detail == "16×8×16×16"        # fused into relu: no tensor of its own
    assert model.node("x").detail == "16×3×16×16 fp32"
    assert model.node("quantize_per_tensor_default").detail == "2^-4 int8"


def test_unfolded_parameters_are_marked_and_belong_to_their_consumer():
    model = build_graph_model(_conv_relu_analysis(), fold_params=False)
    assert "_guards_fn" not in {n.id for n in model.nodes}
    params = {n.id: n for n in model.nodes if n.is_param}
    assert set(params) == {"_scale_0", "_zero_point_0", "quantize_per_channel_default",
                           "dequantize_per_channel_default", "conv_bias"}
    assert params["quantize_per_channel_default"].category == "param"
    assert params["dequantize_per_channel_default"].category == "qdq"
    assert all(p.subgraph == 0 for p in params.values())
    assert model.meta["folded_into"] == {}


def test_violations_on_folded_nodes_count_on_the_op():
    violations = (Violation("weight_per_channel_symmetric", "dequantize_per_channel_default", "zp ≠ 0"),
                  Violation("pow2_scale", "dequantize_per_channel_default", "not 2^k"),
                  Violation("pow2_scale", "quantize_per_tensor_default", "not 2^k"))
    folded = build_graph_model(_conv_relu_analysis(violations))
    assert folded.node("conv2d").violations == 2
    assert folded.node("quantize_per_tensor_default").violations == 1
    unfolded = build_graph_model(_conv_relu_analysis(violations), fold_params=False)
    assert unfolded.node("conv2d").violations == 0
    assert unfolded.node("dequantize_per_channel_default").violations == 2


def test_cpu_node_and_boundary_edge():
    model = build_graph_model(_conv_relu_analysis(cpu_relu=True))
    assert model.node("relu").category == "cpu"
    assert model.node("relu").subgraph is None
    # a CPU op computes in its own dtype: fp32, even though a quantize follows it
    assert model.node("relu").detail == "16×8×16×16 fp32" and model.node("relu").dtype == "fp32"
    marked = {(e.src, e.dst): e.boundary for e in model.edges if e.boundary}
    assert marked == {("conv2d", "relu"): "vpu->cpu"}


def test_the_box_and_the_panel_state_the_same_dtype(qapp):
    import html
    import re

    from app.widgets.node_html import node_html

    for cpu_relu in (False, True):
        analysis = _conv_relu_analysis(cpu_relu=cpu_relu)
        model = build_graph_model(analysis)
        relu = model.node("relu")
        text = html.unescape(re.sub(r"<[^>]+>", " ", node_html(analysis, model, "relu")))
        row = " ".join(text.split()).split("dtype ", 1)[1]
        if cpu_relu:                        # CPU: fp32 in the box, float32 in the panel, nothing else
            assert relu.detail.endswith(" fp32") and row.startswith("float32") and "int8" not in row
        else:                               # VPU: int8 on the VPU, in both
            assert relu.detail.endswith(" int8") and row.startswith("int8 on the VPU")
    conv = build_graph_model(_conv_relu_analysis()).node("conv2d")
    assert conv.dtype == "" and not conv.detail.endswith(("int8", "fp32"))   # fused into the relu


@pytest.mark.parametrize("text, expected", [
    ("[16, 8, 16, 16]", "16×8×16×16"), ("", ""), ("[]", "scalar"),
    ("[16, 4, 16, 8], [16, 4, 16, 8], [16, 4, 16, 8]", "16×4×16×8 (×3)"),
    ("[2, 3], [4]", "2×3 …"), ("[s0, 3, 32, 32]", "s0×3×32×32"),
])
def test_shape_text(text, expected):
    assert shape_text(text) == expected


# -- real runs ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def analyzed(run_cached):
    from vpu_core.analysis import analyze

    cache: dict = {}

    def get(model: str, quantizer: str):
        if (model, quantizer) not in cache:
            cache[model, quantizer] = analyze(run_cached(model=model, quantizer=quantizer))
        return cache[model, quantizer]
    return get


@pytest.mark.parametrize("quantizer", ["vpu", pytest.param("xnnpack", marks=pytest.mark.slow)])
def test_resnet8_graph_agrees_with_the_analysis(analyzed, quantizer):
    a = analyzed("resnet8", quantizer)
    folded, unfolded = build_graph_model(a), build_graph_model(a, fold_params=False)
    for model in (folded, unfolded):
        assert sum(n.violations for n in model.nodes) == len(a.violations)
        assert {n.id for n in model.nodes if n.category == "vpu"} == {
            name for name, sub in a.partition.assignment.items()
            if isinstance(sub, int) and a.nodes[name].kind == "call_function" and "quantize" not in a.nodes[name].op}
    assert len(unfolded.nodes) == len(a.nodes) - 1                     # only torch.export's _guards_fn hidden
    assert not any(n.category == "param" or n.is_param for n in folded.nodes)
    convs = [n for n in folded.nodes if n.label == "conv2d"]
    assert len(convs) == 9 and all(n.category == "vpu" for n in convs)
    for conv in convs:                                                  # each weight's Q/DQ chain is folded in
        assert any(a.nodes[f].op.endswith("dequantize_per_channel.default") for f in conv.folded)
    if quantizer == "vpu":
        assert not a.violations
        assert all(n.detail.split()[0].count("×") == 3 for n in convs)      # "16×16×32×32 [int8]"
    else:                                                               # XNNPACK: violations flagged on ops
        assert any(n.violations for n in convs)


def test_transformer_cpu_fallback_and_boundaries(analyzed):
    a = analyzed("transformer", "vpu")
    model = build_graph_model(a)
    cats = {n.id: n.category for n in model.nodes}
    assert {c.node for c in a.partition.cpu_nodes} <= {i for i, c in cats.items() if c == "cpu"}
    for node in model.nodes:
        if node.label in ("softmax", "layer_norm", "gelu", "matmul"):
            assert node.category == "cpu" and node.subgraph is None and node.detail
        if node.category == "vpu":
            assert node.subgraph == a.partition.assignment[node.id]
    marked = {(e.src, e.dst): e.boundary for e in model.edges if e.boundary}
    assert marked == {(b.src, b.dst): b.direction for b in a.partition.boundaries}
    assert {n.subgraph for n in model.nodes if n.category == "vpu"} == {s.id for s in a.partition.subgraphs}

"""The pieces of `--run` that need no lowering: matching XNNPACK operator events to the delegate's
nodes, the robust per-event average, the refusal sentence of a failed lowering, the JSON shape."""
from __future__ import annotations

from vpu_core.targets.xnnpack.lowering import lowering_refusal
from vpu_core.targets.xnnpack.measure import middle_mean
from vpu_core.targets.results import DelegateTime, Latency, OpTime, RuntimeReport
from vpu_core.targets.xnnpack.xnn_blob import XNode, align, implements, operator_kind
from vpu_core.reports.runtime import runtime_lines, runtime_to_json


def _x(*types: str) -> list[XNode]:
    return [XNode(t, i) for i, t in enumerate(types)]


def test_operator_kind_and_what_it_implements():
    assert operator_kind("Convolution (NHWC, QC8) IGEMM #12") == "convolution"
    assert operator_kind("Fully Connected (NC, QS8, QC8W) GEMM #1") == "fully connected"
    assert implements("Convolution (NHWC, QC8) IGEMM #1", "XNNDepthwiseConv2d")
    assert implements("Invalid Unary Op #1", "XNNGelu")          # XNNPACK's name for newer unary ops
    assert not implements("Add (ND) #1", "XNNConv2d")
    assert implements("Hard Thing (NC) #1", "XNNHardThing")      # unknown names: by their letters


# resnet8's delegate as ExecuTorch 1.5 runs it: the input convert and transpose, three convs (the
# relus fused into them), then the residual add, whose relu XNNPACK runs as a separate Clamp.
def test_align_matches_in_order_and_charges_split_off_operators_to_their_node():
    xnodes = _x("XNNConvert", "XNNStaticTranspose", "XNNConv2d", "XNNConv2d", "XNNConv2d", "XNNAdd",
                "XNNGlobalAvgPooling2d", "XNNFullyConnected", "XNNConvert")
    events = ["Convert (NC) #1", "Transpose (ND, X8) #1", "Convolution (NHWC, QC8) IGEMM #1",
              "Convolution (NHWC, QC8) IGEMM #2", "Convolution (NHWC, QC8) IGEMM #3", "Add (ND) #1",
              "Clamp (NC) #1", "Mean (ND) #1", "Fully Connected (NC, QS8, QC8W) GEMM #1", "Convert (NC) #2"]
    assert align(events, xnodes) == [0, 1, 2, 3, 4, 5, 5, 6, 7, 8]


def test_align_skips_nodes_xnnpack_fused_away_and_handles_leading_strays():
    xnodes = _x("XNNConv2d", "XNNClamp", "XNNStaticReshape", "XNNFullyConnected")
    # the clamp was fused into the conv; the reshape ran as a copy before the conv, which the order
    # forbids (it would cross the conv): a leading stray goes to the first match after it
    events = ["Copy (NC, X8) #1", "Convolution (NHWC, QC8) IGEMM #1", "Fully Connected (NC) #1"]
    assert align(events, xnodes) == [0, 0, 3]
    assert align(events[1:2] + ["Copy (NC, X8) #1"] + events[2:], xnodes) == [0, 2, 3]
    assert align(["Mystery Op #1", "Fully Connected (NC) #1"], xnodes) == [3, 3]
    assert align([], xnodes) == [] and align(["Add (ND) #1"], []) == [None]


def test_middle_mean_ignores_interrupted_runs_and_resolves_sub_microsecond_operators():
    assert middle_mean([10.0, 11.0, 12.0, 400.0]) == 11.5      # a run the machine interrupted
    assert middle_mean([0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0]) == 0.5
    assert middle_mean([3.0]) == 3.0 and middle_mean([2.0, 4.0]) == 3.0


def test_a_failed_lowering_names_the_op_outside_the_core_aten_opset():
    exc = RuntimeError('\nOperator torch._ops.aten.cumprod.default is not in Core ATen opset '
                       '(https://pytorch.org/docs/stable/torch.compiler_ir.html#core-aten-ir)."\nThere are …')
    refusal = lowering_refusal(exc)
    assert refusal.op == "cumprod"
    assert refusal.message == ("ExecuTorch cannot lower aten.cumprod: it is not in the Core ATen opset "
                               "its programs are made of, and no decomposition replaces it.")
    other = lowering_refusal(ValueError("partitioner exploded\nlong trace"))
    assert other.message == "ExecuTorch could not lower the program for XNNPACK: partitioner exploded"


def test_runtime_json_has_the_contract_keys_and_refusals_have_no_numbers():
    report = RuntimeReport(
        "xnnpack", latency=Latency(0.1, 0.09, 0.2, 3, 3), sqnr_vs_float_db=35.0, sqnr_vs_qdq_db=44.0,
        ops=(OpTime("conv2d", 12.0, ("Convolution (NHWC, QC8) IGEMM #1",), 0, 1.5),),
        delegates=(DelegateTime(0, 0, 15.0, 12.0, 1, ("conv2d",)),))
    data = runtime_to_json(report)
    assert data["latency_ms"] == {"median": 0.1, "p10": 0.09, "p90": 0.2, "runs": 3, "warmup": 3,
                                  "min": 0.0, "max": 0.0}
    assert data["ops"] == [{"node": "conv2d", "us": 12.0, "kernels": ["Convolution (NHWC, QC8) IGEMM #1"],
                            "delegate": 0, "overhead_us": 1.5}]
    assert (data["backend"], data["sqnr_vs_float_db"], data["sqnr_vs_qdq_db"]) == ("xnnpack", 35.0, 44.0)
    assert report.delegates[0].overhead_us == 3.0 and report.op_us() == {"conv2d": 13.5}
    refused = RuntimeReport("xnnpack", refused="ExecuTorch's runtime has no kernel for aten::sort.values.",
                            refused_op="aten::sort.values")
    data = runtime_to_json(refused)
    assert data["latency_ms"] is None and data["ops"] == [] and data["refused_op"] == "aten::sort.values"
    assert runtime_lines(refused) == ["Run on this CPU refused: ExecuTorch's runtime has no kernel for "
                                      "aten::sort.values."]


def test_a_program_the_runtime_will_not_load_is_refused_naming_the_op_from_its_log():
    from vpu_core.targets.xnnpack.measure import load_refusal
    from vpu_core.targets.xnnpack.op_map import DelegateOps, OpMap

    # what ExecuTorch 1.5 logs for tests/corpus/swin_vision.py (VPU quantizer): XNNPACK names the
    # node by its debug handle, which the op map keeps per xnode
    log = ("[XNNCompiler.cpp:1262] Failed to create StaticConstantPad node 83 with code: "
           "xnn_status_invalid_parameter\n[XNNPACKBackend.cpp:143] XNNCompiler::compileModel failed: 0x1\n")
    op_map = OpMap(delegates=(DelegateOps(0, 4, (("XNNConv2d", "conv2d"), ("XNNStaticConstantPad", "pad_1")),
                                          (82, 83)),))
    refusal = load_refusal(RuntimeError("Failed to load method forward, error: 0x:1"), log, op_map)
    assert refusal.message == ("XNNPACK cannot build the StaticConstantPad operator (node pad_1) it was given "
                               "(xnn_status_invalid_parameter), so the lowered program does not load on this CPU.")
    assert (refusal.op, refusal.node) == ("StaticConstantPad", "pad_1") and log in refusal.detail
    missing = load_refusal(RuntimeError("x"), "[operator_registry.cpp:256] Missing operator: [3] aten::sort.values\n",
                           OpMap())
    assert missing.op == "aten::sort.values" and missing.message.startswith("ExecuTorch's runtime has no kernel")
    other = load_refusal(RuntimeError("Failed to load method forward, error: 0x:1"), "", OpMap())
    assert other.message == "ExecuTorch's runtime could not load the program: Failed to load method forward, error: 0x:1"

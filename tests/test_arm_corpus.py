"""Real models of the corpus under both NPU configurations (slow: each is a real Arm lowering with
Vela, 10 s to minutes). Two models by default — a CNN written for batch 1 and a speech
transformer —; VPU_INSPECTOR_ARM_CORPUS=all runs every corpus model
(`python benchmarks/arm_corpus.py` prints the same as a table)."""
import os

import pytest

from vpu_core.targets.arm.results import ARM_CAUSES

pytestmark = pytest.mark.slow

DEFAULT = ("batch1_reshape", "whisper_audio")
CORPUS_DIR = os.path.join(os.path.dirname(__file__), "corpus")
MODELS = (sorted(f[:-3] for f in os.listdir(CORPUS_DIR) if f.endswith(".py") and not f.startswith("_"))
          if os.environ.get("VPU_INSPECTOR_ARM_CORPUS") == "all" else DEFAULT)


# Measured (ExecuTorch 1.5.1, Vela 5.1.0): the partitions and the CPU ops (op: cause) the real
# backend gives; resnet_bn's agrees with ExecuTorch's own flow run without this project.
MEASURED = {
    ("batch1_reshape", "ethos-u55-128"): (1, {}), ("batch1_reshape", "ethos-u85-256"): (1, {}),
    ("resnet_bn", "ethos-u55-128"): (1, {"avg_pool2d.default": "limit"}), ("resnet_bn", "ethos-u85-256"): (1, {}),
    ("resnet50_shaped", "ethos-u55-128"): (1, {}), ("resnet50_shaped", "ethos-u85-256"): (1, {}),
    ("mobilenetv2_mobile", "ethos-u55-128"): (1, {}), ("mobilenetv2_mobile", "ethos-u85-256"): (1, {}),
    ("efficientnet_mobile", "ethos-u55-128"): (1, {"avg_pool2d.default": "limit", "reshape.default": "partition"}),
    ("efficientnet_mobile", "ethos-u85-256"): (1, {}),
    ("vit_vision", "ethos-u55-128"): (2, {"ge.Tensor": "dtype", "expand.default": "dtype", "where.self": "dtype"}),
    ("vit_vision", "ethos-u85-256"): (1, {}),
    ("bert_text", "ethos-u55-128"): (2, {"__and__.Tensor": "dtype", "dim_order_ops._to_dim_order_copy.default": "dtype",
                                         "expand.default": "dtype", "ge.Tensor": "dtype", "index.Tensor": "dtype",
                                         "index_select.default": "unsupported", "new_ones.default": "dtype",
                                         "to.device": "dtype", "where.self": "dtype"}),
    ("bert_text", "ethos-u85-256"): (1, {"dim_order_ops._to_dim_order_copy.default": "dtype"}),
    ("llama_decoder", "ethos-u55-128"): (2, {"__and__.Tensor": "dtype", "dim_order_ops._to_dim_order_copy.default": "dtype",
                                             "expand.default": "dtype", "index.Tensor": "dtype",
                                             "index_select.default": "unsupported", "le.Tensor": "dtype",
                                             "new_ones.default": "dtype", "to.device": "dtype", "to.dtype": "dtype",
                                             "where.self": "dtype"}),
    ("llama_decoder", "ethos-u85-256"): (1, {"dim_order_ops._to_dim_order_copy.default": "dtype"}),
    ("mobilevit_hybrid", "ethos-u55-128"): (1, {}), ("mobilevit_hybrid", "ethos-u85-256"): (1, {}),
    ("swin_vision", "ethos-u55-128"): (7, {"roll.default": "limit", "masked_fill.Scalar": "limit",
                                           "ge.Tensor": "dtype", "eq.Tensor": "dtype", "to.dtype": "dtype",
                                           "logical_not.default": "dtype", "flatten.using_ints": "partition"}),
    ("swin_vision", "ethos-u85-256"): (5, {"roll.default": "limit", "masked_fill.Scalar": "limit",
                                           "flatten.using_ints": "partition"}),
}


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"])
def test_corpus_model_is_judged_and_estimated_by_the_real_backend(check_json, model, target):
    code, out, err = check_json(os.path.join(CORPUS_DIR, f"{model}.py"), "--quantizer", "ethos-u",
                                "--target", "ethos-u55-128", "--target", "ethos-u85-256")
    if code == 2:
        # a model ExecuTorch's Arm quantizer cannot take is refused in one sentence, never a crash
        assert len(err.strip().splitlines()) == 1 and "prepare_pt2e failed" in err
        return
    assert code in (0, 1), err
    t = out["targets"][target]
    assert t["subgraphs"] >= 1
    for c in t["cpu_nodes"]:
        assert c["cause"] in ARM_CAUSES and c["reason"].startswith(f"not delegated to {t['title']}: ")
    e = t["estimate"]
    assert e["total_cycles"] == sum(p["cycles"] for p in e["partitions"]) > 0
    assert len(e["partitions"]) == t["subgraphs"]
    assert e["attributed_share"] >= 0.8
    assert e["inference_ms"] > 0 and e["sram_bytes"] > 0
    if (model, target) in MEASURED:
        partitions, cpu = MEASURED[(model, target)]
        assert t["subgraphs"] == partitions
        assert {c["op"]: c["cause"] for c in t["cpu_nodes"] if c["cause"] != "removed"} == cpu

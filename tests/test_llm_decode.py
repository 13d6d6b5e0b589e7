"""Decoder LLMs with a static KV cache (one decode step, the cache as buffers written in place)
through the real command line, and the fold of their repeated blocks (JSON `repeated_blocks`).

tests/corpus/llama_kv_decode.py and qwen2_kv_decode.py are 2-block decode steps; the 30-block
tests/models/llama_30_blocks.py has SmolLM2-135M's block count at a tiny width."""
import math
import os

import pytest

from conftest import CORPUS_DIR, run_check

LLAMA = os.path.join(CORPUS_DIR, "llama_kv_decode.py")
QWEN2 = os.path.join(CORPUS_DIR, "qwen2_kv_decode.py")
BLOCKS_30 = os.path.join(os.path.dirname(__file__), "models", "llama_30_blocks.py")


def _subgraph_starts(data: dict) -> dict[int, str]:
    """Each VPU subgraph's first node in graph order."""
    order = {n["name"]: i for i, n in enumerate(data["graph"]["nodes"])}
    return {s["id"]: min(s["nodes"], key=order.__getitem__) for s in data["partition"]["subgraphs"]}


def test_a_llama_decode_step_with_its_kv_cache_is_quantized_and_partitioned(check_json):
    code, data, err = check_json(LLAMA)
    assert code == 1, err                                  # int64 position arithmetic on the CPU
    assert data["violations"] == []                        # the VPU quantizer meets its own rules
    assert [(i["name"], i["shape"], i["dtype"]) for i in data["inputs"]] == [
        ("input_ids", [1, 1], "int64"), ("cache_position", [1], "int64")]
    ops = [n["op"] for n in data["graph"]["nodes"]]
    assert ops.count("index_copy_.default") == 4           # K and V written into the cache, 2 blocks
    assert len(data["partition"]["subgraphs"]) == 29 and len(data["partition"]["cpu_nodes"]) == 123
    assert data["summary"]["macs_total"] == 113920
    assert data["sqnr_db"] is not None and math.isfinite(data["sqnr_db"]) and data["sqnr_db"] > 15


def test_the_model_files_decode_steps_calibrate_at_positions_0_to_n(tmp_path):
    from vpu_core.config import RunConfig
    from vpu_core.pipeline.calibration import calibration_data
    from vpu_core.pipeline.loading import load_model

    loaded = load_model(LLAMA)
    config = RunConfig(model=LLAMA, calib_batches=5)
    batches, heldout = calibration_data(config, loaded.example_inputs, ["input_ids", "cache_position"],
                                        loaded.calibration)
    assert [int(b[1]) for b in batches] == [0, 1, 2, 3, 4]
    assert [int(b[1]) for b in heldout] == list(range(8))   # 8 samples held aside, from position 0
    assert len({int(b[0]) for b in batches}) > 1             # not one token over and over


def test_a_calibration_call_that_does_not_fit_is_one_sentence(tmp_path):
    model = tmp_path / "bad_steps.py"
    model.write_text(open(LLAMA).read() + "\n\ndef calibration_inputs(n, seed):\n"
                     "    return [(torch.tensor([[1, 2]]), torch.tensor([i])) for i in range(n)]\n")
    code, out, err = run_check(str(model), "--calib-batches", "2")
    assert code == 2
    assert "calibration_inputs: call 0, input 0 is int64 (1, 2), the model takes int64 (1, 1)" in err
    assert "internal error" not in err


def test_a_qwen2_decode_step_is_quantized_and_partitioned(check_json):
    code, data, err = check_json(QWEN2)
    assert code == 1 and data["violations"] == [], err
    ops = [n["op"] for n in data["graph"]["nodes"]]
    assert ops.count("index_copy_.default") == 4
    assert data["partition"]["subgraphs"] and data["summary"]["macs_total"] > 0
    assert data["sqnr_db"] is not None and math.isfinite(data["sqnr_db"])
    blocks = data["repeated_blocks"]
    assert [(b["template"], b["folded"], len(b["members"])) for b in blocks] == [
        ("step.model.model.layers.* (Qwen2DecoderLayer)", 2, 2)]


def test_the_ethos_u_quantizer_refuses_a_kv_cache_in_one_sentence():
    code, out, err = run_check(LLAMA, "--quantizer", "ethos-u", "--calib-batches", "1")
    assert code == 2
    line = [x for x in err.splitlines() if x.startswith("vpu-inspector: error:")]
    assert len(line) == 1 and "aten.index_copy_ into" in line[0] and "KV cache" in line[0]


@pytest.mark.slow
def test_xnnpack_runs_the_decode_step_and_ethos_u85_takes_its_blocks(check_json):
    code, data, err = check_json(LLAMA, "--quantizer", "xnnpack", "--target", "xnnpack",
                                 "--target", "ethos-u85-256", "--run", "--calib-batches", "2")
    assert code == 1, err                                  # int64 position arithmetic on the CPU
    run = data["runtime"]
    assert run["latency_ms"]["median"] > 0 and run["sqnr_vs_float_db"] > 10
    u85 = data["targets"]["ethos-u85-256"]
    assert u85["subgraphs"] > 0 and u85["estimate"]["unit"] == "cycles" and u85["estimate"]["total"] > 0
    lowered = data["targets"]["xnnpack"]
    assert lowered["subgraphs"] > 0


@pytest.mark.slow
def test_thirty_blocks_fold_into_one_template_whose_figures_add_up():
    from vpu_core.config import RunConfig
    from vpu_core.reports.json_report import inspection_to_json
    from vpu_core.session import default_session

    # `check`'s JSON without its op-list what-if (one re-partition per candidate op: minutes on 30
    # blocks, and nothing the fold reads)
    data = inspection_to_json(default_session().inspect(RunConfig(BLOCKS_30), view=None))
    assert not data["summary"]["ok"] and data["violations"] == []
    [blocks] = data["repeated_blocks"]
    assert blocks["template"] == "step.model.model.layers.* (LlamaDecoderLayer)"
    assert len(blocks["members"]) == 30 and blocks["folded"] >= 28
    assert blocks["folded"] == 30 - len(blocks["deviating"])
    members = {g["path"]: set(g["nodes"]) for g in data["groups"] if g["path"] in
               {m["module"] for m in blocks["members"]}}
    inside = set().union(*members.values())
    cpu = [c["node"] for c in data["partition"]["cpu_nodes"]]
    for m in blocks["members"]:                         # each member's figures from the unfolded graph
        assert m["cpu_ops"] == sum(1 for c in cpu if c in members[m["module"]])
    starts = _subgraph_starts(data)
    assert sum(m["partitions"] for m in blocks["members"]) == sum(1 for n in starts.values() if n in inside)
    assert sum(m["cpu_ops"] for m in blocks["members"]) + sum(1 for c in cpu if c not in inside) == len(cpu)
    # MACs: every block's linears and attention, the rest is the lm_head (hidden 16 × vocab 64)
    assert sum(m["macs"] for m in blocks["members"]) + 16 * 64 == data["summary"]["macs_total"]
    assert len({m["macs"] for m in blocks["members"]}) == 1


def test_a_deviating_block_is_named_with_what_deviates(check_json):
    """One block of the 2-block Llama kept in float: the fold lists it with its CPU ops."""
    code, data, err = check_json(LLAMA, "--keep-float", "linear_7")
    assert code == 1, err
    [blocks] = data["repeated_blocks"]
    assert blocks["folded"] + len(blocks["deviating"]) == 2
    differs = [s for d in blocks["deviating"] for s in d["differs"]]
    assert any(s.startswith("CPU op linear_7 (linear.default)") or "linear_7" in s for s in differs), differs


def test_the_text_report_has_the_repeated_blocks_section():
    code, out, err = run_check(QWEN2)
    assert code == 1, err
    assert "Repeated blocks:\n  step.model.model.layers.* (Qwen2DecoderLayer) ×2 of 2" in out

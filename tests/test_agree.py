"""`vpu-inspector agree`: the VPU under a profile held to a real target on one converted graph
(slow: a real Arm lowering with Vela, 10-80 s on the shared machine)."""
import json
from pathlib import Path

import pytest

from conftest import run_main

PROBE = str(Path(__file__).parent / "models" / "arm_probe.py")


@pytest.fixture(scope="module")
def probe_agreement():
    # both profiles in one process: the target lowers once, each profile is held to its verdict
    code, out, err = run_main(["agree", PROBE, "--profile", "edge_npu", "--profile", "vpu_default", "--format", "json"])
    assert code == 0, err
    return json.loads(out)


@pytest.mark.slow
def test_edge_npu_against_the_u55_on_arms_graph_op_by_op(probe_agreement):
    a = probe_agreement["agreements"][0]
    assert (a["profile"], a["target"], a["quantizer"]) == ("edge-npu", "Ethos-U55-128", "ethos-u")
    [m] = a["models"]
    assert m["model"] == "arm_probe" and m["subgraphs"][1] == 2       # the U55's two partitions
    diff = {d["node"]: d for d in m["differences"]}
    # the stride-4 max pool: the profile's limit says CPU, the U55 decomposes it and delegates it
    pool = diff["max_pool2d"]
    assert (pool["direction"], pool["profile_cause"], pool["profile_limit"]) == ("target_only", "limit", "max_pool2d.stride_max")
    assert pool["target_cause"] == "" and "stride 4×4 > 3×3" in pool["profile_reason"]
    # the 16×16 average pool: both refuse it (each for its own limit), so it is no difference
    assert "avg_pool2d" not in diff and "atan2" not in diff
    assert m["ops"] == m["agreed"] + sum(d["quantized"] for d in m["differences"])
    assert a["share"] == pytest.approx(m["agreed"] / m["ops"]) and 0 < a["share"] < 1
    assert a["by_cause"]["target_only"]["limit: max_pool2d.stride_max"] == 1
    group = next(g for g in a["groups"] if g["op"] == "max_pool2d.default")
    assert group["count"] == 1 and group["models"] == ["arm_probe"] and "stride 4×4" in group["example"]


@pytest.mark.slow
def test_a_second_profile_is_held_to_the_same_verdict(probe_agreement):
    edge, default = probe_agreement["agreements"]
    assert default["profile"] == "vpu-default"
    # the default profile has no limits: the max pool is on the VPU there, as on the U55
    assert "max_pool2d" not in {d["node"] for d in default["models"][0]["differences"]}
    assert default["models"][0]["ops"] == edge["models"][0]["ops"]      # the same graph

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
    # the 16×16 / 16 average pool: both refuse it, each for its own stride bound; the stride-4 max
    # pool: both take it (the U55 by its large-stride decomposition); atan2: neither computes it
    assert not {"avg_pool2d", "max_pool2d", "atan2"} & set(diff)
    # the profile lists the pieces Arm's quantizer leaves of mean / amax, as the U55 runs them;
    # the U55 also computes a zeros_like, which the profile does not list
    assert not {"amax", "mean"} & set(diff)
    zeros = diff["zeros_like"]
    assert (zeros["direction"], zeros["profile_cause"], zeros["target_cause"]) == ("target_only", "op_list", "")
    assert zeros["profile_reason"] == "zeros_like.default is not in the VPU op list (profile edge-npu)"
    assert m["ops"] == m["agreed"] + sum(d["quantized"] for d in m["differences"])
    assert a["share"] == pytest.approx(m["agreed"] / m["ops"]) and 0 < a["share"] < 1
    assert a["by_cause"]["target_only"]["op_list"] >= 1 and a["by_cause"]["profile_only"] == {}
    group = next(g for g in a["groups"] if g["op"] == "zeros_like.default")
    assert group["count"] == 1 and group["models"] == ["arm_probe"] and group["profile_says"] == "op_list"


@pytest.mark.slow
def test_a_profile_without_limits_is_too_optimistic_where_the_u55_checks_one(probe_agreement):
    edge, default = probe_agreement["agreements"]
    assert default["profile"] == "vpu-default"
    assert default["models"][0]["ops"] == edge["models"][0]["ops"]      # the same graph, the same verdict
    pool = {d["node"]: d for d in default["models"][0]["differences"]}["avg_pool2d"]
    assert (pool["direction"], pool["target_cause"], pool["target_check"]) == ("profile_only", "limit", "AvgPool2dSupported")
    assert pool["target_reason"] == "Avgpool2d needs stride <= 3, got [16, 16]"
    assert default["by_cause"]["profile_only"] == {"limit: AvgPool2dSupported": 1}

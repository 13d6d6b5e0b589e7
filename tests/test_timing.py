"""The timing model (profile [timing] + measured CPU times): parsed, worked by hand on a graph small
enough to partition by hand, and fed by a real run."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from vpu_core.config import RunConfig
from vpu_core.errors import ProfileError
from vpu_core.profile import load_profile, parse_profile
from vpu_core.reports.timing import assumptions_text, timing_lines, verdict
from vpu_core.targets.results import Latency, OpTime, RuntimeReport
from vpu_core.session import Session
from vpu_core.timing import TimingAssumptions, split_timing

CHAIN = str(Path(__file__).parent / "models" / "whatif_chain.py")
# 1 024 MAC take 1 µs, 1 024 bytes take 1 µs on the link: the arithmetic stays readable.
HAND_TIMING = """
[timing]
vpu_macs_per_s = 1.024e9
link_bytes_per_s = 1.024e9
launch_overhead_us = 10
transfer_latency_us = 2
"""


def _hand_profile_text() -> str:
    """The shipped profile with its [timing] section replaced by HAND_TIMING."""
    from resources import DEFAULT_PROFILE

    shipped = DEFAULT_PROFILE.read_text(encoding="utf-8")
    return shipped.split("[timing]")[0] + "[economics]" + shipped.split("[economics]")[1] + HAND_TIMING


def test_timing_section_parses_defaults_and_rejects_nonsense(profiles):
    shipped = load_profile(None).timing
    assert shipped == TimingAssumptions(1.0e12, 2.0e9, 20.0, 5.0) == TimingAssumptions()
    hand = load_profile(profiles.write("hand_timing", _hand_profile_text())).timing
    assert (hand.compute_us(1024), hand.transfer_us(1024), hand.transfer_us(256)) == (1.0, 3.0, 2.25)
    assert parse_profile('[ops]\nvpu = ["conv2d"]\n', "old.toml").timing == TimingAssumptions()  # no section
    for bad, message in (("vpu_macs_per_s = 0", "timing.vpu_macs_per_s must be a positive number"),
                         ("launch_overhead_us = -1", "timing.launch_overhead_us must be a number ≥ 0"),
                         ("link_bytes_per_s = true", "timing.link_bytes_per_s must be a positive number"),
                         ("dma_engines = 2", "unknown key timing.dma_engines")):
        with pytest.raises(ProfileError, match=message):
            parse_profile(f'[ops]\nvpu = ["conv2d"]\n[timing]\n{bad}\n', "p.toml")
    assert "VPU 1 TMAC/s, 20.0 µs launch per subgraph; link 2 GB/s + 5.0 µs per transfer" in \
        assumptions_text(shipped)


@pytest.fixture(scope="module")
def chain(profiles_module):
    """x → conv1 → sigmoid → conv2 → softmax at batch 1, VPU quantizer, the hand [timing]."""
    config = RunConfig(model=CHAIN, batch_size=1, calib_batches=2, profile=profiles_module)
    return config, Session().inspect(config, view=None, whatif=True)


@pytest.fixture(scope="module")
def profiles_module(tmp_path_factory):
    path = tmp_path_factory.mktemp("timing") / "hand_timing.toml"
    path.write_text(_hand_profile_text(), encoding="utf-8")
    return str(path)


# Worked by hand (the partition is tests/test_whatif.py's): two VPU subgraphs, one 1x1 conv each,
# 4 → 4 channels on 8x8 = 1 024 MAC; each takes x-sized fp32 in (1 024 B) and sends int8 out (256 B).
#   VPU:        10 µs launch + 1 024 MAC / 1.024e9 MAC/s = 10 + 1    = 11 µs
#   transfers:  (2 + 1 024 B / 1.024e9 B/s) + (2 + 256 B / …)  = 3 + 2.25 = 5.25 µs
#   offloaded:  16.25 µs per subgraph
# Measured on the CPU (given here): subgraph 0 = its input quantize 0.25 µs + conv 3 µs + 0.5 µs
# delegate overhead share = 3.75 µs → costs 12.5 µs; subgraph 1 = conv 30 µs → pays, saves 13.75 µs.
# CPU fallback: sigmoid 4 µs + softmax 6 µs = 10 µs. Split: 16.25 + 16.25 + 10 = 42.5 µs against
# 3.75 + 30 + 10 = 43.75 µs all on the CPU (per op; 50 µs wall-clock).
def test_timing_model_on_a_graph_worked_by_hand(chain):
    config, inspection = chain
    a, subgraphs = inspection.analysis, inspection.attached.economics.subgraphs
    sg0, sg1 = (set(s.nodes) for s in a.partition.subgraphs)
    q_in = next(n for n in sg0 if n.startswith("quantize_per_tensor"))
    assert "conv2d" in sg0 and "conv2d_1" in sg1
    runtime = RuntimeReport("xnnpack", latency=Latency(0.05, 0.04, 0.06, 5, 3), ops=(
        OpTime(q_in, 0.25, ("Convert (NC) #1",), 0), OpTime("conv2d", 3.0, ("Convolution #1",), 0, 0.5),
        OpTime("sigmoid", 4.0, ("native_call_sigmoid.out",)), OpTime("conv2d_1", 30.0, ("Convolution #1",), 1),
        OpTime("softmax", 6.0, ("native_call__softmax.out",))), profiled_runs=5, threads=2, runtime="et")
    t = split_timing(a, runtime, load_profile(config.profile).timing, subgraphs=subgraphs)
    rows = [(s.subgraph, s.ops, s.macs, s.transfers, s.transfer_bytes, s.launch_us, s.compute_us, s.transfer_us,
             s.total_us, s.cpu_us, s.saves_us, s.pays) for s in t.subgraphs]
    assert rows == [(0, 1, 1024, 2, 1280, 10.0, 1.0, 5.25, 16.25, 3.75, -12.5, False),
                    (1, 1, 1024, 2, 1280, 10.0, 1.0, 5.25, 16.25, 30.0, 13.75, True)]
    assert (t.cpu_fallback_us, t.cpu_fallback_ops, t.split_us, t.all_cpu_ops_us, t.all_cpu_latency_us) == \
        (10.0, 2, 42.5, 43.75, 50.0)
    assert [verdict(s) for s in t.subgraphs] == ["costs 12.5 µs", "pays (saves 13.8 µs)"]
    lines = timing_lines(t)
    assert lines[0] == "Partition economics in time (1 of 2 VPU subgraph(s) do not pay):"
    assert "VPU 1.02 GMAC/s, 10.0 µs launch per subgraph; link 1.02 GB/s + 2.0 µs per transfer" in lines[1]
    assert lines[2] == ("  ! subgraph 0 (a one-op island): VPU 11.0 µs + 2 transfers 5.2 µs (1.2 KiB) = 16.2 µs "
                        "vs CPU 3.8 µs measured: costs 12.5 µs")
    assert lines[-1].startswith("  End to end: VPU + CPU split 42.5 µs") and "all on the CPU 43.8 µs" in lines[-1]
    assert split_timing(a, RuntimeReport("xnnpack", refused="no kernel"), t.assumptions) is None


@pytest.mark.slow
def test_timing_with_a_real_run_uses_the_measured_node_times(chain, run_cli):
    config, _ = chain
    code, out, err = run_cli("check", CHAIN, "--batch-size", "1", "--calib-batches", "2", "--profile",
                             config.profile, "--run", "--runs", "3", "--format", "json")
    data = json.loads(out)
    assert code == 1 and err == ""       # its sigmoid falls back to the CPU (docs/spec.md, section 9.0)
    timing, run = data["timing"], data["runtime"]
    assert timing["assumptions"]["vpu_macs_per_s"] == 1.024e9 and "XNNPACK" in timing["assumptions"]["cpu"]
    measured = {o["node"]: o["us"] + o["overhead_us"] for o in run["ops"]}
    for row, sub in zip(timing["subgraphs"], data["partition"]["subgraphs"]):
        assert (row["vpu_us"], row["transfer_us"], row["total_us"]) == (11.0, 5.25, 16.25)   # by hand
        assert row["cpu_us"] == pytest.approx(sum(measured.get(n, 0.0) for n in sub["nodes"]))
        assert row["verdict"] == verdict_of(row)
    fallback = [c["node"] for c in data["partition"]["cpu_nodes"]]
    assert {"sigmoid", "softmax"} <= set(fallback) and set(fallback) & set(measured)
    assert timing["split_us"] == pytest.approx(sum(r["total_us"] for r in timing["subgraphs"])
                                               + timing["cpu_fallback_us"])
    assert timing["all_cpu_latency_us"] == pytest.approx(run["latency_ms"]["median"] * 1e3)


def verdict_of(row: dict) -> str:
    from vpu_core.formatting import time_text

    return f"pays (saves {time_text(row['saves_us'])})" if row["pays"] else f"costs {time_text(-row['saves_us'])}"

"""Per-op limits ([op.NAME], [memory]) and kernel aliases: every limit key passes at its bound and
fails one past it, on tiny probes (tests/models/limit_probes.py), read the way the partition reads
them — from the exported float graph (`verdict.predict`, no quantization) and from the real
converted Q/DQ graph (one `check` run shared by the tests that need it)."""
import functools
import os

import pytest

from conftest import run_check
from vpu_core.errors import ProfileError
from vpu_core.hardware.limits import LIMITS
from vpu_core.profile import load_profile, parse_profile

PROBES = os.path.join(os.path.dirname(__file__), "models", "limit_probes.py")
DEFAULT_OPS = load_profile().vpu_ops

LIMITED = """
[profile]
name = "probe-limits"
[ops]
vpu = {ops}
[op.conv2d]
kernel_max = [3, 3]
stride_max = [2, 2]
dilation_max = [1, 1]
groups = "one_or_depthwise"
in_channels_multiple = 8
out_channels_multiple = 8
[op.linear]
in_features_max = 16
out_features_max = 16
[op.max_pool2d]
kernel_max = [2, 2]
stride_max = [2, 2]
[op.avg_pool2d]
kernel_max = [2, 2]
stride_max = 2
"""


def profile_text(extra: str = "", base: str = LIMITED) -> str:
    return base.format(ops=list(DEFAULT_OPS)) + extra


@functools.lru_cache(maxsize=None)
def float_graph():
    from vpu_core.pipeline.loading import load_model
    from vpu_core.pipeline.tracing import export_module

    loaded = load_model(PROBES)
    return export_module(loaded.module, loaded.example_inputs)


def branch(node) -> str:
    stack = node.meta.get("nn_module_stack") or {}
    paths = [path for path, _ in stack.values() if path.startswith("branches.")]
    return paths[0].split(".")[1] if paths else ""


def verdicts(text: str) -> dict[str, list]:
    """probe name -> verdicts of its compute ops (relu excluded), from the float graph."""
    from vpu_core.analysis.verdict import predict

    gm = float_graph()
    profile = parse_profile(text, "probe.toml")
    by_name = {n.name: n for n in gm.graph.nodes}
    out: dict[str, list] = {}
    for name, v in predict(gm, profile).items():
        node = by_name[name]
        if branch(node) and not name.startswith("relu") and v.kernel.op.split(".")[0] not in (
                "view", "transpose"):
            out.setdefault(branch(node), []).append(v)
    return out


def only(found: dict, probe: str):
    assert len(found[probe]) == 1, found[probe]
    return found[probe][0]


# -- every key at its bound and one past it ------------------------------------------------------

PASSING = ["k3x3", "s2", "d1", "dw", "dw_x2", "in16", "conv1d_k3", "lin16", "addmm16", "matmul16",
           "max_k2", "avg_k2"]
FAILING = {                                   # probe -> (first failing limit, value, bound)
    "k3x4": ("conv2d.kernel_max", (3, 4), (3, 3)),
    "k4x3": ("conv2d.kernel_max", (4, 3), (3, 3)),
    "s3": ("conv2d.stride_max", (1, 3), (2, 2)),
    "d2": ("conv2d.dilation_max", (2, 1), (1, 1)),
    "grouped": ("conv2d.groups", 2, "one_or_depthwise"),
    "dw_ch9": ("conv2d.in_channels_multiple", 9, 8),
    "in9": ("conv2d.in_channels_multiple", 9, 8),
    "in7": ("conv2d.in_channels_multiple", 7, 8),
    "out9": ("conv2d.out_channels_multiple", 9, 8),
    "conv1d_k4": ("conv2d.kernel_max", (1, 4), (3, 3)),
    "conv1d_s3": ("conv2d.stride_max", (1, 3), (2, 2)),
    "lin_in17": ("linear.in_features_max", 17, 16),
    "lin_out17": ("linear.out_features_max", 17, 16),
    "addmm_in17": ("linear.in_features_max", 17, 16),
    "mm_out17": ("linear.out_features_max", 17, 16),
    "matmul_in17": ("linear.in_features_max", 17, 16),
    "max_k3": ("max_pool2d.kernel_max", (3, 3), (2, 2)),
    "max_s3": ("max_pool2d.stride_max", (3, 3), (2, 2)),
    "avg_k2x3": ("avg_pool2d.kernel_max", (2, 3), (2, 2)),
    "avg_s3": ("avg_pool2d.stride_max", (2, 3), (2, 2)),          # stride_max = 2 is [2, 2]
}


def test_every_limit_key_is_probed():
    assert {key for key, _, _ in FAILING.values()} == {k.id for k in LIMITS if k.table != "memory"}


@pytest.mark.parametrize("probe", PASSING)
def test_at_the_bound_the_op_runs_on_the_vpu(probe):
    v = only(verdicts(profile_text()), probe)
    assert v.on_vpu and not v.limits, v.reason


@pytest.mark.parametrize("probe", sorted(FAILING))
def test_one_past_the_bound_the_op_falls_back_with_the_limit(probe):
    limit, value, bound = FAILING[probe]
    v = only(verdicts(profile_text()), probe)
    assert not v.on_vpu and v.cause == "limit"
    first = v.limits[0]
    assert (first.limit, first.value, first.bound) == (limit, value, bound)
    assert f"({limit})" in v.reason


def test_the_sentence_names_value_bound_and_key():
    v = only(verdicts(profile_text()), "k4x3")
    assert v.limits[0].sentence == "kernel 4×3 > 3×3 (conv2d.kernel_max)"
    assert only(verdicts(profile_text()), "in9").limits[0].text == "input channels 9 not a multiple of 8"
    assert only(verdicts(profile_text()), "grouped").limits[0].text == "grouped conv (groups=2) unsupported"


def test_several_failing_limits_are_all_reported_in_the_fixed_order():
    text = profile_text().replace("kernel_max = [3, 3]", "kernel_max = [3, 2]", 1)
    v = only(verdicts(text), "k3x4")                          # kernel 3×4 > 3×2 …
    assert [f.limit for f in v.limits] == ["conv2d.kernel_max"]
    text = profile_text().replace("stride_max = [2, 2]", "stride_max = [1, 1]", 1)
    v = only(verdicts(text), "s3")                            # stride only: 1×3 > 1×1
    assert [f.limit for f in v.limits] == ["conv2d.stride_max"]
    v = only(verdicts(profile_text().replace('groups = "one_or_depthwise"', 'groups = "one"')), "dw")
    assert [f.limit for f in v.limits] == ["conv2d.groups"] and "depthwise conv (groups=8)" in v.reason
    # a depthwise conv checks its channels once; a grouped one both in and out
    v = only(verdicts(profile_text().replace("multiple = 8", "multiple = 3")), "grouped")
    assert [f.limit for f in v.limits] == ["conv2d.groups", "conv2d.in_channels_multiple",
                                           "conv2d.out_channels_multiple"]
    assert v.reason.index("groups=2") < v.reason.index("input channels") < v.reason.index("output channels")


def test_groups_any_and_multiples_of_one_constrain_nothing():
    text = profile_text().replace('groups = "one_or_depthwise"', 'groups = "any"').replace(
        "multiple = 8", "multiple = 1")
    found = verdicts(text)
    for probe in ("grouped", "dw_ch9", "in9", "in7", "out9"):
        assert only(found, probe).on_vpu, probe


# -- SRAM ----------------------------------------------------------------------------------------

def memory(n: int) -> str:
    return f"\n[memory]\nsram_bytes = {n}\n"


def sram_profile(n: int) -> str:
    return f'[profile]\nname = "sram"\n[ops]\nvpu = {list(DEFAULT_OPS)}\n' + memory(n)


def test_sram_counts_int8_inputs_output_and_weights_but_not_the_bias():
    # addmm16: x 4×16 + weight 16×16 + output 4×16 = 384 bytes (its bias of 16 is not counted)
    assert only(verdicts(sram_profile(384)), "addmm16").on_vpu
    v = only(verdicts(sram_profile(383)), "addmm16")
    assert not v.on_vpu and v.cause == "memory"
    assert (v.limits[0].limit, v.limits[0].value, v.limits[0].bound) == ("memory.sram_bytes", 384, 383)
    # conv k3x3: input 8×8×8 + weight 8×8×3×3 + output 8×8×8; its relu (a fused activation) is not checked
    assert only(verdicts(sram_profile(512 + 576 + 512)), "k3x3").on_vpu
    assert not only(verdicts(sram_profile(512 + 576 + 511)), "k3x3").on_vpu


def test_a_limit_comes_before_memory_and_both_are_listed():
    v = only(verdicts(profile_text(memory(100))), "lin_in17")
    assert v.cause == "limit" and [f.limit for f in v.limits] == ["linear.in_features_max", "memory.sram_bytes"]


# -- aliases -------------------------------------------------------------------------------------

def test_aliases_run_as_the_kernel_they_are():
    found = verdicts(profile_text())
    conv1d = only(found, "conv1d_k3").kernel
    assert (conv1d.op, conv1d.name, conv1d.weight_axis) == ("conv1d.default", "conv2d.default", 0)
    for probe, op in (("addmm16", "addmm"), ("matmul16", "matmul")):
        k = only(found, probe).kernel
        assert (k.name, k.weight_axis) == ("linear.default", 1)
        assert k.runs_as == f"runs as the VPU's linear kernel ({op} with a constant weight)"
    act = only(found, "act_matmul")
    assert not act.on_vpu and act.cause == "op_list" and not act.kernel.alias
    assert "matmul.default is not in the VPU op list" in act.reason


def test_a_profile_without_op_tables_has_no_limits():
    assert load_profile().limits == {}
    found = verdicts(profile_text(base='[profile]\nname = "plain"\n[ops]\nvpu = {ops}\n'))
    assert all(only(found, p).on_vpu for p in [*PASSING, *FAILING])


# -- reading the profile -------------------------------------------------------------------------

@pytest.mark.parametrize("bad, message", [
    ("[op.softmax]\nkernel_max = [3, 3]\n", "unknown op table [op.softmax]"),
    ("[op.conv2d]\nkernel_size = [3, 3]\n", "unknown key op.conv2d.kernel_size"),
    ("[op.conv2d]\nkernel_max = [3, 0]\n", "op.conv2d.kernel_max must be two positive integers"),
    ("[op.conv2d]\ngroups = \"some\"\n", "op.conv2d.groups must be one of any, one, one_or_depthwise"),
    ("[op.linear]\nin_features_max = -4\n", "op.linear.in_features_max must be a positive integer"),
    ("[memory]\nsram = 1\n", "unknown key memory.sram"),
    ("[op]\nconv2d = 3\n", "[op.conv2d] must be a table"),
])
def test_bad_limit_tables_are_refused_with_a_clear_message(bad, message):
    with pytest.raises(ProfileError) as err:
        parse_profile(f'[ops]\nvpu = ["conv2d"]\n{bad}', "bad.toml")
    assert message in str(err.value)


def test_the_edge_profile_loads_by_name_and_round_trips(tmp_path):
    from vpu_core.whatif.profile_edit import profile_to_toml, same_profile

    edge = load_profile("edge_npu")
    assert edge.name == "edge-npu" and load_profile("edge-npu").path == edge.path
    assert edge.limit("conv2d.kernel_max") == (64, 64) and edge.limit("memory.sram_bytes") == 393216
    again = parse_profile(profile_to_toml(edge), tmp_path / "again.toml")
    assert same_profile(edge, again) and again.limits == edge.limits


# -- the converted Q/DQ graph: what the partition, the rules and the integer simulation say ------

@functools.lru_cache(maxsize=None)
def checked(tmp_dir: str):
    import json

    path = os.path.join(tmp_dir, "limits.toml")
    with open(path, "w") as f:
        f.write(profile_text(memory(100_000)))
    program = os.path.join(tmp_dir, "p.pt2")
    code, out, err = run_check(PROBES, "--profile", path, "--calib-batches", "1", "--int-sim",
                               "--format", "json", "--save-program", program)
    assert code in (0, 1), err
    data = json.loads(out)
    code, out, err = run_check(program, "--profile", path, "--format", "json")   # the saved program
    assert code in (0, 1), err
    data["saved"] = json.loads(out)
    return data


@pytest.fixture(scope="module")
def probe_run(tmp_path_factory):
    return checked(str(tmp_path_factory.mktemp("limit_probes")))


@pytest.mark.slow
def test_the_partition_of_the_qdq_graph_agrees_with_the_float_prediction(probe_run):
    by_name = {n.name: n for n in float_graph().graph.nodes}
    cpu = {c["node"]: c for c in probe_run["partition"]["cpu_nodes"]}
    for probe, (limit, value, bound) in FAILING.items():
        nodes = [n for n in cpu.values() if branch(by_name[n["node"]]) == probe and n["cause"] == "limit"]
        assert len(nodes) == 1, probe
        c = nodes[0]
        assert (c["limit"], c["value"], c["bound"]) == (limit, list(value) if isinstance(value, tuple)
                                                        else value, list(bound) if isinstance(bound, tuple)
                                                        else bound)
    on_vpu = {n for s in probe_run["partition"]["subgraphs"] for n in s["nodes"]}
    for probe in PASSING:
        ops = [n for n in on_vpu if n in by_name and branch(by_name[n]) == probe]
        assert ops, probe
    act = [c for c in cpu.values() if branch(by_name[c["node"]]) == "act_matmul" and c["op"] == "matmul.default"]
    assert [(c["cause"], c["runs_as"]) for c in act] == [("op_list", None)]


@pytest.mark.slow
def test_the_saved_program_gives_the_same_cpu_nodes_and_limits(probe_run):
    """Read back from the .pt2 (torch.export renames nodes: compare by op and value), every CPU
    node keeps its cause, its first limit, its offending value and bound."""
    def cpu(data):
        return sorted((c["op"], c["cause"], c["limit"], str(c["value"]), str(c["bound"]))
                      for c in data["partition"]["cpu_nodes"])

    assert cpu(probe_run["saved"]) == cpu(probe_run)
    assert probe_run["saved"]["summary"] == probe_run["summary"]


@pytest.mark.slow
def test_alias_weights_are_quantized_per_channel_on_their_output_axis(probe_run, run_cli):
    assert probe_run["violations"] == []                       # the VPU quantizer meets its rules
    weights = {t["consumer"]: t for t in probe_run["tensors"] if t["kind"] == "weight"}
    for op, channels in (("addmm", 16), ("mm", 17), ("matmul", 16)):
        w = weights[op]
        assert len(w["scales"]) == channels and set(w["zero_points"]) == {0}, op
    aliases = {a["node"]: a["runs_as"] for a in probe_run["partition"]["aliases"]}
    assert aliases["addmm"] == "runs as the VPU's linear kernel (addmm with a constant weight)"
    assert aliases["conv1d"] == "runs as the VPU's conv2d kernel (conv1d as a 1×k conv2d)"
    layers = {l["node"]: l for l in probe_run["int_sim"]["layers"]}
    for op in ("addmm", "matmul", "conv1d"):                    # on the VPU under this profile
        assert layers[op]["max_abs_lsb"] <= 1, layers[op]         # run in integers, exactly
    assert not set(probe_run["int_sim"]["float_ops"]) & {"addmm", "matmul", "conv1d"}
    summary = probe_run["summary"]
    assert summary["weights_quantized"] == summary["weights_total"]
    assert 0 < summary["vpu_mac_share"] < 1


# -- what-if over limits -------------------------------------------------------------------------

@pytest.mark.slow
def test_limit_relaxations_are_ranked_with_the_op_candidates(probe_run):
    relaxed = {(c["limit"], str(c["to"])): c for c in probe_run["op_candidates"] if c["kind"] == "limit"}
    # kernel_max 3×3: the probes over it are 3×4, 4×3, 1×4 → the smallest step admits one (3×4 or 4×3
    # has the smaller area tie broken by value: 3×4), the whole relaxation 4×4 admits all three
    whole = relaxed[("conv2d.kernel_max", "[4, 4]")]
    assert whole["op"] == "conv2d" and whole["from"] == [3, 3] and whole["nodes_moved"] == 3
    assert relaxed[("conv2d.kernel_max", "[3, 4]")]["nodes_moved"] == 2          # 3×4 and 1×4
    groups = relaxed[("conv2d.groups", "any")]
    assert groups["from"] == "one_or_depthwise" and groups["nodes_moved"] == 1
    channels = relaxed[("conv2d.in_channels_multiple", "1")]
    assert channels["nodes_moved"] == 3                      # 9, 7 and the depthwise 9
    assert all(c["nodes_moved"] > 0 for c in relaxed.values())
    # what a candidate moves, in MACs: the nodes it admits, not every node failing the limit;
    # 3×4 admits the 3×4 and the 1×4 conv, 4×4 the 4×3 conv too
    kernel = {tuple(c["value"]): c["macs"] for c in probe_run["partition"]["cpu_nodes"]
              if c["limit"] == "conv2d.kernel_max"}
    assert set(kernel) == {(3, 4), (4, 3), (1, 4)} and min(kernel.values()) > 0
    assert relaxed[("conv2d.kernel_max", "[3, 4]")]["macs_moved"] == kernel[3, 4] + kernel[1, 4]
    assert whole["macs_moved"] == sum(kernel.values())
    act = next(c for c in probe_run["op_candidates"] if c["op"] == "matmul.default")     # two activations
    assert act["kind"] == "op_list" and act["macs_moved"] == 2 * 4 * 4 * 16


def test_a_relaxation_reads_as_one_sentence():
    from vpu_core.reports.whatif_text import candidate_name, candidate_sentence
    from vpu_core.whatif.results import OpCandidate

    c = OpCandidate("conv2d", 4, 310 * 1024, 7, nodes_moved=12, kind="limit", limit="conv2d.kernel_max",
                    bound_from=(3, 3), bound_to=(5, 5))
    assert candidate_name(c) == "conv2d kernel_max 3×3→5×5"
    assert candidate_sentence(c) == "conv2d kernel_max 3×3→5×5 moves 12 ops, merges 4 subgraphs, saves 310.0 KiB"


FLOAT_WEIGHT_MODEL = '''
import torch
from torch import nn


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.w = nn.Parameter(torch.randn(64, 8) * 0.1)      # [in, out]: addmm / mm with a constant weight
        self.b = nn.Parameter(torch.randn(8) * 0.1)

    def forward(self, x):
        v = self.conv(x).flatten(1)                          # XNNPACK quantizes the conv's output
        return torch.addmm(self.b, v, self.w) + torch.mm(v, self.w)


def get_model():
    torch.manual_seed(0)
    return M().eval(), (torch.randn(2, 2, 4, 4),)
'''


@pytest.mark.slow
def test_an_alias_whose_weight_xnnpack_left_in_float_is_a_float_cpu_node(tmp_path):
    """XNNPACK annotates no addmm / mm: their input is int8 (a dequantize of the conv's output), the
    constant weight is fp32 — they were on the VPU (limits QA), the VPU computes int8 only."""
    import json

    model = tmp_path / "float_weight.py"
    model.write_text(FLOAT_WEIGHT_MODEL)
    code, out, err = run_check(str(model), "--quantizer", "xnnpack", "--calib-batches", "1",
                               "--no-cache", "--format", "json")
    assert code in (0, 1), err
    cpu = {c["op"]: c for c in json.loads(out)["partition"]["cpu_nodes"]}
    for op in ("addmm.default", "mm.default"):
        assert cpu[op]["cause"] == "float", cpu.get(op)
        assert "its weight" in cpu[op]["reason"] and "is not quantized" in cpu[op]["reason"]
    assert "conv2d.default" not in cpu                      # its weight is dequantized, its bias fp32

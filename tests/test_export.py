"""`vpu-inspector export`: the .pte runs in a fresh process with only ExecuTorch and gives the bytes
`--run` reported; the VPU hand-off reloads and every shift follows from its stored scales (slow:
real lowering, shared with tests/test_runtime.py through the session-wide check_json run)."""
from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.slow

RESNET8_XNN = ("resnet8", "--quantizer", "xnnpack", "--calib-batches", "2")

# Runs in a fresh interpreter: nothing of this project, only ExecuTorch's runtime (and numpy to
# read the inputs). Prints the SHA-256 of every output's bytes.
FRESH = """
import hashlib, sys
import numpy as np
from executorch.runtime import Runtime
import torch
assert not any(m.startswith(("vpu_core", "app")) for m in sys.modules)
program = Runtime.get().load_program(sys.argv[1])
data = np.load(sys.argv[2])
inputs = tuple(torch.from_numpy(data[k]) for k in sorted(data.files))
for out in program.load_method("forward").execute(inputs):
    print(hashlib.sha256(out.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()).hexdigest())
"""


@pytest.fixture(scope="module")
def exported_pte(tmp_path_factory, cli):
    path = tmp_path_factory.mktemp("pte") / "resnet8.pte"
    code, out, err = cli("export", *RESNET8_XNN, "-o", str(path))
    assert code == 0, err
    return path, out


def test_pte_runs_in_a_fresh_process_and_gives_the_outputs_run_reported(exported_pte, check_json, tmp_path):
    from vpu_core.config import RunConfig
    from vpu_core.session import default_session

    path, out = exported_pte
    assert out.startswith(f"wrote {path} (ExecuTorch program, ") and "inputs: x float32[1, 3, 32, 32]" in out
    code, data, _err = check_json(*RESNET8_XNN, "--run", "--runs", "3")
    reported = [o["sha256"] for o in data["runtime"]["outputs"]]
    # the held-aside batch --run used, handed over as plain arrays
    heldout = default_session().quantized(RunConfig(model="resnet8", quantizer="xnnpack", calib_batches=2)).heldout
    inputs = tmp_path / "inputs.npz"
    np.savez(inputs, **{f"i{k:03d}": t.numpy() for k, t in enumerate(heldout)})
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run([sys.executable, "-c", FRESH, str(path), str(inputs)], capture_output=True,
                            text=True, cwd=tmp_path, env=env, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == reported


def test_export_checks_the_file_name_before_any_work(run_cli, tmp_path):
    code, _out, err = run_cli("export", "conv_relu", "--quantizer", "xnnpack", "-o", str(tmp_path / "m.bin"))
    assert code == 2 and "must end in .pte" in err and not (tmp_path / "m.bin").exists()
    code, _out, err = run_cli("export", "conv_relu", "-o", str(tmp_path / "m.pte"))     # VPU: a folder
    assert code == 2 and "add --quantizer xnnpack" in err and not (tmp_path / "m.pte").exists()


@pytest.fixture(scope="module")
def handoff(tmp_path_factory, cli, check_json):
    folder = tmp_path_factory.mktemp("handoff") / "resnet8_vpu"
    code, out, err = cli("export", "resnet8", "--calib-batches", "2", "-o", str(folder))
    assert code == 0, err
    manifest = json.loads((folder / "manifest.json").read_text())
    with np.load(folder / manifest["weights_file"], allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    _code, data, _err = check_json("resnet8", "--calib-batches", "2")
    return manifest, arrays, data


def test_handoff_manifest_reloads_and_every_shift_follows_from_its_scales(handoff):
    manifest, arrays, data = handoff
    assert (manifest["format"], manifest["version"], manifest["model"]) == ("vpu-inspector-handoff", 1, "resnet8")
    (sub,) = manifest["subgraphs"]
    tensors = {t["id"]: t for t in sub["tensors"]}
    for t in tensors.values():
        assert t["dtype"] == "int8" and t["zero_point"] == 0 and t["scale"] == 2.0 ** t["scale_log2"]
        assert t["frac_bits"] == -t["scale_log2"] and t["bytes"] == math.prod(t["shape"])
    checked = 0
    for op in sub["ops"]:
        k_in = [tensors[i]["scale_log2"] for i in op["inputs"]]
        k_out = tensors[op["output"]]["scale_log2"]
        if "weight" in op:
            w, b = op["weight"], op.get("bias")
            assert arrays[w["npz"]].dtype == np.int8 and list(arrays[w["npz"]].shape) == w["shape"]
            assert np.abs(arrays[w["npz"]]).max() <= 127 and w["axis"] == 0
            assert op["requant_shift"] == [k_out - (k_in[0] + k) for k in w["scale_log2"]]
            if b is not None:                                  # int32 at s_in · s_w[c]
                assert arrays[b["npz"]].dtype == np.int32 and b["scale_log2"] == [k_in[0] + k for k in w["scale_log2"]]
            checked += 1
        else:
            assert op["input_shifts"] == [k_out - k for k in k_in]
        if "window" in op:                                     # average pool: 1/K folded into the shift
            assert op["requant_shift"] == [k_out - k_in[0] + int(math.log2(op["window"]))]
    assert checked == 10                                       # 9 convs and the linear
    # the same shifts the check reports for those layers
    requant = {r["node"]: r["shifts"] for r in data["requant"]}
    assert all(op["requant_shift"] == requant[op["node"]] for op in sub["ops"] if "weight" in op)
    kernels = [op["kernel"] for op in sub["ops"]]
    assert kernels[:4] == ["conv2d_s8_relu", "conv2d_s8_relu", "conv2d_s8", "add_s8_relu"]
    assert kernels[-3:] == ["avgpool2d_s8_shift", "reshape", "fc_s8"]
    assert sub["boundaries"] == [dict(b) for b in data["partition"]["boundaries"]]
    assert sub["inputs"] == ["quantize_per_tensor_default"] and len(sub["outputs"]) == 1


def test_handoff_conv_computed_from_the_manifest_alone_matches_the_qdq_graph(handoff):
    """What a VPU compiler team would do: run the first conv from the manifest's numbers only
    (int8 × int8 + int32 bias, right shift with the profile's rounding, relu, saturate)."""
    import torch
    import torch.nn.functional as F

    from vpu_core.config import RunConfig
    from vpu_core.session import default_session

    manifest, arrays, _data = handoff
    op = manifest["subgraphs"][0]["ops"][0]
    tensors = {t["id"]: t for t in manifest["subgraphs"][0]["tensors"]}
    qm = default_session().quantized(RunConfig(model="resnet8", calib_batches=2))
    x = qm.heldout[0]
    k_x = tensors[op["inputs"][0]]["scale_log2"]
    q_x = torch.clamp(torch.round(x / 2.0 ** k_x), -128, 127).to(torch.int64)
    w = torch.from_numpy(arrays[op["weight"]["npz"]].astype(np.int64))
    b = torch.from_numpy(arrays[op["bias"]["npz"]].astype(np.int64))
    acc = F.conv2d(q_x.double(), w.double(), None, op["args"]["stride"], op["args"]["padding"]).round().long()
    acc = acc + b.view(1, -1, 1, 1)
    n = torch.tensor(op["requant_shift"]).view(1, -1, 1, 1)
    assert manifest["requant"]["rounding"] == "round_half_up"
    q_out = torch.clamp((acc + (1 << (n - 1))) >> n, 0, 127)            # relu, int8
    with torch.no_grad():
        expected = _int8_at(qm.converted, x, op["output"])
    assert (q_out - expected).abs().max() <= 1                          # .5 LSB ties round up here


def _int8_at(gm, x, node_name):
    from torch.fx import Interpreter

    values = {}

    class Keep(Interpreter):
        def run_node(self, n):
            out = super().run_node(n)
            if n.name == node_name:
                values["v"] = out
            return out

    Keep(gm).run(x)
    return values["v"].to(__import__("torch").int64)


def test_handoff_is_refused_when_a_shift_cannot_express_a_scale(run_cli, profiles, tmp_path):
    profile = profiles.with_rule_off("pow2_scale")
    code, _out, err = run_cli("export", "conv_relu", "--calib-batches", "2", "--profile", profile,
                              "-o", str(tmp_path / "out"))
    assert code == 2 and err.startswith("vpu-inspector: error: A VPU hand-off needs every scale to be a "
                                        "power of two") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "out" / "manifest.json").exists()


_ADDMM = '''
import torch
from torch import nn


class AddmmHead(nn.Module):
    """GPT-2's Conv1D: addmm(bias, x, W) with an [in, out] weight, then a relu."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.w = nn.Parameter(torch.randn(16, 8) * 0.2)
        self.b = nn.Parameter(torch.randn(8) * 0.1)

    def forward(self, x):
        return torch.relu(torch.addmm(self.b, x, self.w))


def get_model():
    return AddmmHead().eval(), (torch.randn(4, 16),)
'''


def test_handoff_of_an_addmm_reads_its_operands_where_its_kernel_spec_says(tmp_path):
    """addmm(bias, x, W) runs as linear (vpu_core.hardware.kernels.linear): the manifest's input
    is x (argument 1), its weight W (argument 2, [in, out], channels on axis 1), its bias argument
    0, its kernel fc_s8_relu; the int8 result computed from the manifest alone is the Q/DQ graph's."""
    import torch

    from vpu_core.analysis import analyze
    from vpu_core.pipeline import RunConfig, run_pipeline
    from vpu_core.targets.vpu.manifest import build_manifest

    path = tmp_path / "addmm_head.py"
    path.write_text(_ADDMM)
    qm = run_pipeline(RunConfig(model=str(path)))
    addmm = next(n for n in qm.converted.graph.nodes if n.name == "addmm")
    bias_dq, x_dq, w_dq = addmm.args
    manifest, arrays = build_manifest(qm, analyze(qm))
    (sub,) = manifest["subgraphs"]
    (op,) = sub["ops"]
    assert (op["op"], op["kernel"], op["activation"]) == ("addmm.default", "fc_s8_relu", "relu")
    assert op["inputs"] == [x_dq.args[0].name]                               # x's quantize, not the bias
    assert op["weight"]["shape"] == [16, 8] and op["weight"]["axis"] == 1 and op["bias"]["shape"] == [8]
    w, b = (getattr(qm.converted, dq.args[0].target) for dq in (w_dq, bias_dq))     # the int8 / int32 constants
    assert np.array_equal(arrays[op["weight"]["npz"]], w.detach().numpy())
    assert np.array_equal(arrays[op["bias"]["npz"]], b.detach().numpy())
    tensors = {t["id"]: t for t in sub["tensors"]}
    x = qm.heldout[0]
    q_x = torch.clamp(torch.round(x / 2.0 ** tensors[op["inputs"][0]]["scale_log2"]), -128, 127).long()
    acc = q_x @ torch.from_numpy(arrays[op["weight"]["npz"]].astype(np.int64)) \
        + torch.from_numpy(arrays[op["bias"]["npz"]].astype(np.int64))
    n = torch.tensor(op["requant_shift"])
    assert manifest["requant"]["rounding"] == "round_half_up" and bool((n > 0).all())
    q_out = torch.clamp((acc + (1 << (n - 1))) >> n, 0, 127)
    with torch.no_grad():
        expected = _int8_at(qm.converted, x, op["output"])
    assert (q_out - expected).abs().max() <= 1

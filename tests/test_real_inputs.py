"""What real models bring: integer token ids, bool masks, several inputs, their own batch, dict and
dataclass outputs, all-zero outputs. Small user model files, real export, PT2E and CLI runs."""
import json
import textwrap

import numpy as np
import re

import pytest
import torch

from conftest import CORPUS_DIR, run_check
from vpu_core.analysis import analyze
from vpu_core.analysis.sqnr import sqnr
from vpu_core.errors import CalibrationError
from vpu_core.pipeline import RunConfig, run_pipeline
from vpu_core.pipeline.calibration import load_calibration_file, synthetic_batches
from vpu_core.qdq import is_quantize

TOKENS = '''
import torch
from torch import nn


class Tagger(nn.Module):
    """Token ids + a bool padding mask in; a dict out: float scores and int64 predictions."""

    def __init__(self):
        super().__init__()
        self.emb, self.pos = nn.Embedding(64, 16), nn.Embedding(32, 16)
        self.fc1, self.fc2 = nn.Linear(16, 16), nn.Linear(16, 4)

    def forward(self, ids, mask):
        positions = torch.arange(ids.shape[1]) + 1            # int64 index arithmetic
        h = self.emb(ids) + self.pos(positions)
        h = h * mask.unsqueeze(-1)                            # bool mask
        scores = self.fc2(torch.relu(self.fc1(h)))
        return {"scores": scores, "labels": scores.argmax(-1)}


def get_model():
    torch.manual_seed(0)
    ids = torch.randint(5, 60, (3, 7))
    mask = torch.ones(3, 7, dtype=torch.bool)
    mask[2, 5:] = False
    return Tagger().eval(), (ids, mask)
'''

DATACLASS_OUT = '''
import torch
from torch import nn
from transformers.modeling_outputs import BaseModelOutputWithPooling


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv, self.fc = nn.Conv2d(3, 8, 3), nn.Linear(8, 8)

    def forward(self, x):
        h = torch.relu(self.conv(x))
        return BaseModelOutputWithPooling(last_hidden_state=h, pooler_output=self.fc(h.mean((2, 3))))


def get_model():
    torch.manual_seed(0)
    return Encoder().eval(), (torch.randn(2, 3, 10, 10),)
'''

ZERO_OUT = '''
import torch
from torch import nn


class Dead(nn.Module):
    """A conv whose float output is exactly zero (every unit dead after the relu) or constant."""

    def __init__(self, constant=0.0):
        super().__init__()
        self.conv, self.constant = nn.Conv2d(3, 4, 3), constant
        nn.init.constant_(self.conv.weight, 0.0)
        nn.init.constant_(self.conv.bias, -1.0)

    def forward(self, x):
        return torch.relu(self.conv(x)) + self.constant


def get_model():
    return Dead().eval(), (torch.randn(1, 3, 8, 8),)


def get_constant_model():
    return Dead(0.5).eval(), (torch.randn(1, 3, 8, 8),)
'''

OPS = '''
import torch
from torch import nn
import torch.nn.functional as F


class Ops(nn.Module):
    """One of each op real models need: conv1d, depthwise conv2d, batch norm,
    layer_norm, gelu, silu, embedding, matmul, bmm, sdpa, softmax, interpolate, slicing,
    indexing, expand, to, contiguous, clone."""

    def __init__(self):
        super().__init__()
        self.conv1d = nn.Conv1d(4, 8, 3, padding=1)
        self.conv = nn.Conv2d(8, 8, 3, padding=1)
        self.dw, self.bn = nn.Conv2d(8, 8, 3, padding=1, groups=8), nn.BatchNorm2d(8)
        self.emb, self.ln, self.fc = nn.Embedding(16, 8), nn.LayerNorm(8), nn.Linear(8, 8)

    def forward(self, audio, ids):
        a = F.gelu(self.conv1d(audio))                         # [B, 8, 16]
        img = a.reshape(a.shape[0], 8, 4, 4).contiguous()
        img = F.silu(self.bn(self.dw(torch.relu(self.conv(img)))))
        img = F.interpolate(img, scale_factor=2.0, mode="nearest")[:, :, ::2, ::2]
        tokens = img.flatten(2).transpose(1, 2)                # [B, 16, 8]
        tokens = self.ln(tokens + self.emb(ids))
        q = self.fc(tokens)
        attn = torch.softmax(q @ tokens.transpose(1, 2), dim=-1)
        mixed = torch.bmm(attn, tokens) + F.scaled_dot_product_attention(q, tokens, tokens)
        first = mixed[:, 0:1, :].expand(-1, 16, -1).clone()
        picked = mixed[:, ids[0, :4]]                          # advanced indexing
        return (mixed + first).to(torch.float32), picked


def get_model():
    torch.manual_seed(0)
    return Ops().eval(), (torch.randn(2, 4, 16), torch.randint(0, 16, (2, 16)))
'''


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("real_inputs")
    paths = {}
    for name, source in (("tagger", TOKENS), ("dataclass_out", DATACLASS_OUT), ("dead", ZERO_OUT),
                         ("ops", OPS)):
        paths[name] = folder / f"{name}.py"
        paths[name].write_text(textwrap.dedent(source))
    return paths


def check_json(*argv):
    code, out, err = run_check(*argv, "--format", "json", "--calib-batches", "2")
    assert code in (0, 1), err
    return code, json.loads(out)


# -- calibration -----------------------------------------------------------------------------------

def test_synthetic_batches_keep_dtype_shape_and_value_range():
    ids = torch.randint(5, 60, (3, 7))
    mask = torch.rand(3, 7) > 0.3
    image = torch.rand(3, 3, 8, 8)                 # pixels in [0, 1]
    scale = torch.full((3, 1), 0.25)               # a constant float input
    (batch,) = synthetic_batches((ids, mask, image, scale), 1, seed=3)
    got_ids, got_mask, got_image, got_scale = batch
    assert [t.dtype for t in batch] == [torch.int64, torch.bool, torch.float32, torch.float32]
    assert [t.shape for t in batch] == [ids.shape, mask.shape, image.shape, scale.shape]
    assert ids.min() <= got_ids.min() and got_ids.max() <= ids.max() and not torch.equal(got_ids, ids)
    assert torch.equal(got_mask, mask) and torch.equal(got_scale, scale)
    assert 0.0 <= got_image.min() and got_image.max() <= 1.0 and not torch.equal(got_image, image)
    assert synthetic_batches((ids,), 2, seed=3)[1][0].equal(synthetic_batches((ids,), 2, seed=3)[1][0])


def test_calibration_files_with_several_inputs(tmp_path):
    ids, mask = torch.randint(0, 64, (3, 7)), torch.ones(3, 7, dtype=torch.bool)
    example, names = (ids, mask), ["ids", "mask"]
    samples = [(torch.randint(0, 64, (7,)), torch.rand(7) > 0.5) for _ in range(7)]
    layouts = {
        "per_sample_tuples.pt": samples,
        "per_sample_dicts.pt": [{"mask": m, "ids": i} for i, m in samples],   # keys by input name
        "per_input_dict.pt": {"mask": torch.stack([m for _, m in samples]),
                              "ids": torch.stack([i for i, _ in samples])},
    }
    for name, obj in layouts.items():
        torch.save(obj, tmp_path / name)
    np.savez(tmp_path / "named.npz", mask=np.stack([m.numpy() for _, m in samples]),
             ids=np.stack([i.numpy() for i, _ in samples]))
    for name in [*layouts, "named.npz"]:
        batches = load_calibration_file(tmp_path / name, example, names=names)
        assert len(batches) == 2, name                       # 7 samples at the model's batch 3
        b_ids, b_mask = batches[1]
        assert b_ids.dtype == torch.int64 and b_mask.dtype == torch.bool, name
        assert torch.equal(b_ids, torch.stack([i for i, _ in samples[3:6]])), name
        assert torch.equal(b_mask, torch.stack([m for _, m in samples[3:6]])), name
    torch.save([(i.float(), m) for i, m in samples], tmp_path / "float_ids.pt")
    with pytest.raises(CalibrationError, match="holds floating-point values but the model takes int64"):
        load_calibration_file(tmp_path / "float_ids.pt", example, names=names)
    torch.save({"ids": ids, "attention": mask, "extra": mask}, tmp_path / "wrong_keys.pt")
    torch.save([ids, mask, mask], tmp_path / "three.pt")
    for bad, needle in (("wrong_keys.pt", r"its keys \{'ids', 'attention', 'extra'\} are not the "
                                          r"model's input names \{'ids', 'mask'\} \(missing 'mask'\)"),
                        ("three.pt", "holds 3 tensor")):
        with pytest.raises(CalibrationError, match=needle):
            load_calibration_file(tmp_path / bad, example, names=names)


# -- integer inputs, bool masks, several inputs --------------------------------------------------

@pytest.mark.parametrize("quantizer", ["vpu", "xnnpack"])
def test_integer_ids_and_bool_masks_are_never_quantized(files, tmp_path, quantizer):
    qm = run_pipeline(RunConfig(model=str(files["tagger"]), quantizer=quantizer, calib_batches=2))
    for q in (n for n in qm.converted.graph.nodes if is_quantize(n)):
        assert q.args[0].meta["val"].dtype.is_floating_point, q.args[0].name
    a = analyze(qm)
    assert [(i.name, i.shape, i.dtype) for i in a.inputs] == [("ids", (3, 7), "int64"),
                                                               ("mask", (3, 7), "bool")]
    reasons = {c.node: c.reason for c in a.partition.cpu_nodes}
    assert reasons["arange"].startswith("integer tensor op: arange.default produces int64")
    assert reasons["add"].startswith("integer tensor op: add.Tensor produces int64")   # listed op
    assert reasons["argmax"].startswith("integer tensor op")
    assert reasons["unsqueeze"].startswith("bool tensor op: unsqueeze.default produces bool")
    assert {"linear", "relu"} <= {n for s in a.partition.subgraphs for n in s.nodes}
    assert isinstance(a.sqnr_db, float) and a.sqnr_db > 10     # the float "scores" output only


def test_several_inputs_calibrate_from_a_file_through_the_cli(files, tmp_path):
    samples = [{"ids": torch.randint(5, 60, (7,)), "mask": torch.rand(7) > 0.2} for _ in range(9)]
    torch.save(samples, tmp_path / "calib.pt")
    code, data = check_json(str(files["tagger"]), "--calib-data", str(tmp_path / "calib.pt"))
    assert code == 1 and [i["shape"] for i in data["inputs"]] == [[3, 7], [3, 7]]   # its int / bool ops: CPU
    assert isinstance(data["sqnr_db"], float)


# -- the model's own batch -------------------------------------------------------------------------

def test_the_models_own_batch_is_kept_and_changed_only_when_asked(files):
    _, data = check_json(str(files["tagger"]))
    assert [i["shape"] for i in data["inputs"]] == [[3, 7], [3, 7]]
    _, zoo = check_json("conv_relu")
    assert zoo["inputs"][0]["shape"] == [1, 3, 16, 16]              # the zoo's own batch is 1
    to_vpu = [b for b in zoo["partition"]["boundaries"] if b["direction"] == "cpu->vpu"]
    assert [b["bytes"] for b in to_vpu] == [1 * 3 * 16 * 16 * 4]    # one float32 image
    _, five = check_json("conv_relu", "--batch-size", "5")
    assert five["inputs"][0]["shape"] == [5, 3, 16, 16]
    assert five["partition"]["transfer_bytes"] == 5 * zoo["partition"]["transfer_bytes"]


def test_a_batch_change_that_breaks_export_says_from_what_to_what():
    model = f"{CORPUS_DIR}/batch1_reshape.py"
    code, _, err = run_check(model, "--batch-size", "16", "--calib-batches", "1")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert "at batch 16 (the batch was changed from 1, the batch of its own example inputs, to 16" \
        in lines[0] and "batch1_reshape.py" in lines[0]


def test_a_dynamic_batch_program_of_a_batch_1_model_saves_and_loads(tmp_path):
    pt2 = tmp_path / "dyn.pt2"          # the zoo's own batch is 1: traced at 2, as export does
    code, _, err = run_check("conv_relu", "--quantizer", "xnnpack", "--dynamic-batch",
                             "--calib-batches", "1", "--save-program", str(pt2))
    assert code == 1, err
    _, data = check_json(str(pt2), "--quantizer", "xnnpack")
    assert data["dynamic_batch"] and data["inputs"][0]["dynamic_dims"] == [0]


# -- outputs -----------------------------------------------------------------------------------------

def test_dataclass_outputs_are_measured_and_saved_flat(files, tmp_path):
    pt2 = tmp_path / "out.pt2"
    code, data = check_json(str(files["dataclass_out"]), "--save-program", str(pt2))
    assert code in (0, 1) and data["summary"]["ok"] == (code == 0) and isinstance(data["sqnr_db"], float) and data["sqnr_reason"] is None
    program = torch.export.load(str(pt2))
    (x,) = program.example_inputs[0]
    outputs = program.module()(x)
    assert isinstance(outputs, tuple) and [tuple(o.shape) for o in outputs] == [(2, 8, 8, 8), (2, 8)]
    code, saved = check_json(str(pt2))
    assert code == (0 if saved["summary"]["ok"] else 1) and saved["partition"]["transfer_bytes"] == data["partition"]["transfer_bytes"]
    code, _, err = run_check(str(pt2), "--batch-size", "4")      # its shapes are fixed
    assert code == 2 and "Cannot change the batch of the saved program 'out' from 2 to 4" in err


def test_sqnr_of_a_zero_or_constant_output_is_not_a_number(files):
    code, out, err = run_check(str(files["dead"]), "--calib-batches", "1")
    assert code == 0, err
    assert re.search(r"SQNR \(float vs quantized, \d+ samples? held aside\): not meaningful "
                     r"\(the float reference is numerically zero", out) and "200" not in out
    _, data = check_json(str(files["dead"]))
    assert data["sqnr_db"] is None and "numerically zero" in data["sqnr_reason"]
    _, data = check_json(f"{files['dead']}:get_constant_model")
    assert data["sqnr_db"] is None and "constant (0.5 everywhere)" in data["sqnr_reason"]


def test_sqnr_is_never_capped():
    x = torch.linspace(-1, 1, 101)
    expected = 10 * np.log10(float((x * x).sum()) / (101 * 1e-6))
    assert sqnr(x, x + 1e-3).db == pytest.approx(expected, abs=0.01)      # float32 sums
    assert sqnr(x, x + 1e-12).db > 200                           # a real number, however large
    assert sqnr(x, x).db is None and "exactly" in sqnr(x, x).reason
    assert sqnr(torch.zeros(5), torch.ones(5)).db is None
    assert sqnr(torch.full((5,), 3.0), torch.ones(5)).db is None
    assert sqnr(torch.empty(0), torch.empty(0)).db is None


def test_sqnr_of_huge_values_is_a_number_and_of_non_finite_ones_a_reason():
    # Σx² of values ~1e30 overflows float32 (~1.8e19 squared is its max): float64 then.
    x = torch.linspace(-1, 1, 101) * 1e30
    expected = 10 * np.log10(float((x.double() ** 2).sum()) / (101 * 1e54))
    assert sqnr(x, x + 1e27).db == pytest.approx(expected, abs=0.01)
    inf = sqnr(x, x * torch.tensor(float("inf")))
    assert inf.db is None and "101 non-finite value(s)" in inf.reason
    held = sqnr(torch.tensor([1.0, float("-inf"), 2.0]), torch.zeros(3))
    assert held.db is None and "float reference holds 1 non-finite" in held.reason


# -- op coverage -----------------------------------------------------------------------------------

@pytest.mark.parametrize("quantizer", ["vpu", "xnnpack"])
def test_every_op_real_models_need_runs_on_the_vpu_or_says_why_not(files, quantizer):
    code, data = check_json(str(files["ops"]), "--quantizer", quantizer)
    part = data["partition"]
    on_vpu = {n for s in part["subgraphs"] for n in s["nodes"]}
    cpu = {c["node"]: c for c in part["cpu_nodes"]}
    ops = {n["name"]: n["op"] for n in data["graph"]["nodes"]}
    for name, op in ops.items():
        if op.startswith("quantized_decomposed") or name.startswith("_guards") \
                or op in ("placeholder", "output", "get_attr", "getitem"):
            continue                                               # Q/DQ, I/O, constants, guard
        assert (name in on_vpu) != (name in cpu), name
        assert name in on_vpu or cpu[name]["reason"], name
    seen = {op.split(".")[0] for op in ops.values()}
    assert {"conv1d", "conv2d", "layer_norm", "gelu", "silu", "embedding", "matmul", "bmm",
            "scaled_dot_product_attention", "softmax", "upsample_nearest2d", "slice", "index",
            "expand", "clone"} <= seen, seen
    assert "batch_norm" not in " ".join(seen)                      # folded into its conv
    by_op = {ops[n].split(".")[0] for n in on_vpu if n in ops}
    assert {"conv2d", "relu", "linear", "view"} & by_op >= {"conv2d", "relu"}
    assert isinstance(data["sqnr_db"], float)

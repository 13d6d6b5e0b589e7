"""Calibration files that used to be accepted silently: a dict keyed by other names than
the model's inputs, fewer samples than one batch, all-zero data. Real CLI runs of small models."""
import json
import textwrap

import pytest
import torch

from conftest import run_check
from vpu_core.errors import CalibrationError
from vpu_core.pipeline.calibration import load_calibration_file

TWO_INPUTS = '''
import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, ids, mask):
        return self.fc(ids.float() * mask)


def get_model():
    torch.manual_seed(0)
    return Gate().eval(), (torch.randint(0, 9, (2, 8)), torch.ones(2, 8, dtype=torch.bool))
'''


@pytest.fixture(scope="module")
def gate(tmp_path_factory):
    path = tmp_path_factory.mktemp("calib") / "gate.py"
    path.write_text(textwrap.dedent(TWO_INPUTS))
    return path


def _last_line(err: str) -> tuple[str, int]:
    lines = err.strip().splitlines()
    return (lines[-1] if lines else ""), len(lines)


def test_a_dict_keyed_by_other_names_is_refused(gate, tmp_path):
    # the model's inputs are `ids` and `mask`: the same tensors under other names (QA's
    # {'mask': …, 'ids': …} for input_ids / attention_mask) were taken in order, a mask fed as ids
    ids, mask = torch.randint(0, 9, (4, 8)), torch.ones(4, 8, dtype=torch.bool)
    torch.save({"attention_mask": mask, "input_ids": ids}, tmp_path / "renamed.pt")
    code, out, err = run_check(str(gate), "--calib-data", str(tmp_path / "renamed.pt"))
    line, n_lines = _last_line(err)
    assert code == 2 and n_lines == 1 and out == "" and "Traceback" not in err
    assert line.endswith(f"Calibration file {tmp_path / 'renamed.pt'}: its keys {{'attention_mask', "
                         "'input_ids'} are not the model's input names {'ids', 'mask'} (missing "
                         "'ids', 'mask'); key each tensor by its input's name.")
    torch.save({"mask": mask, "ids": ids}, tmp_path / "swapped.pt")      # right names, any order
    batches = load_calibration_file(tmp_path / "swapped.pt", (ids[:2], mask[:2]), names=["ids", "mask"])
    assert [b[0].dtype for b in batches] == [torch.int64] * 2 and torch.equal(batches[1][0], ids[2:])


def test_one_key_for_a_one_input_model_may_have_any_name(tmp_path):
    data = torch.randn(6, 3)
    torch.save({"arr_0": data}, tmp_path / "one.pt")
    batches = load_calibration_file(tmp_path / "one.pt", (torch.zeros(3, 3),), names=["x"])
    assert len(batches) == 2 and torch.equal(batches[1][0], data[3:])


def test_fewer_samples_than_one_batch_is_one_sentence(tmp_path):
    torch.save(torch.randn(1, 3, 16, 16), tmp_path / "one_sample.pt")
    code, _, err = run_check("conv_relu", "--batch-size", "2", "--calib-data", str(tmp_path / "one_sample.pt"))
    line, n_lines = _last_line(err)
    assert code == 2 and n_lines == 1
    assert line.endswith("one_sample.pt holds 1 sample, the batch is 2: give at least 2 samples "
                         "(one batch) or a smaller --batch-size.")
    torch.save(torch.randn(3, 3, 16, 16), tmp_path / "three.pt")
    with pytest.raises(CalibrationError, match="holds 3 samples, the batch is 4"):
        load_calibration_file(tmp_path / "three.pt", (torch.zeros(4, 3, 16, 16),), batch_size=4)


def test_all_zero_calibration_is_a_note_not_an_error(tmp_path):
    torch.save(torch.zeros(3, 3, 16, 16), tmp_path / "zeros.pt")
    code, out, err = run_check("conv_relu", "--calib-data", str(tmp_path / "zeros.pt"),
                               "--format", "json", "--no-cache")
    assert code == 0
    data = json.loads(out)
    (name,) = [i["name"] for i in data["inputs"]]
    (note,) = [n for n in data["notes"] if n["kind"] == "calibration"]
    # 3 samples at batch 1: the last is held out for SQNR, the observers saw 2
    assert note["node"] == name and note["values"]["samples"] == 2 and note["values"]["input"] == name
    input_q = next(t for t in data["tensors"] if t["kind"] == "activation" and t["consumer"] == name)
    assert note["values"]["scale"] == input_q["scales"][0]
    assert note["message"].startswith(f"calibration input {name} is zero in all 2 calibration sample(s)")
    assert [ln for ln in err.splitlines() if "note:" in ln] == [f"vpu-inspector: note: {note['message']}"]
    code, text, _ = run_check("conv_relu", "--calib-data", str(tmp_path / "zeros.pt"))
    assert code == 0 and f"  ! {note['message']}" in text

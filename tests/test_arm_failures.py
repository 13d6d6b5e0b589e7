"""A backend's failure in one sentence, root cause first; GPT-2 under the Arm flow (real ExecuTorch, no mocks)."""
import json
import runpy
from pathlib import Path

import pytest

from vpu_core.errors import failing_node, root_cause, short_reason

GPT2 = str(Path(__file__).parent / "models" / "gpt2_tiny.py")


def _arm_quantizer_failure() -> Exception:
    """ExecuTorch's own flow, none of our code: EthosUQuantizer's prepare on GPT-2, whose Conv1D
    addmm its DecomposeAddmmPass turns into mul.Scalar(bias parameter, 1.0), which the next pass
    cannot read (ExecuTorch 1.5.1). graph_prep.addmm_as_mm_add is our way round it."""
    import torch
    from executorch.backends.arm.ethosu import EthosUCompileSpec
    from executorch.backends.arm.quantizer import EthosUQuantizer, get_symmetric_quantization_config
    from torchao.quantization.pt2e.quantize_pt2e import prepare_pt2e

    model, inputs = runpy.run_path(GPT2)["get_model"]()
    quantizer = EthosUQuantizer(EthosUCompileSpec("ethos-u55-128")).set_global(get_symmetric_quantization_config())
    gm = torch.export.export(model, inputs, strict=False).module(check_guards=False)
    with pytest.raises(Exception) as failed:
        prepare_pt2e(gm, quantizer)
    return failed.value


def test_a_failed_pass_is_told_by_its_innermost_error_the_op_and_the_models_line():
    exc = _arm_quantizer_failure()
    assert str(exc).startswith("An error occurred when running the 'ReplaceScalarWithTensorByProfilePass' pass")
    expected = ("AttributeError: 'Parameter' object has no attribute 'to_tensor' in aten.mul.Scalar("
                "_param_constant5, 1.0), from pytorch_utils.py:119 "
                "`x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)`")
    assert root_cause(exc) == expected
    assert short_reason(exc) == expected        # not the wrapper and its list of passes
    assert failing_node(exc) == "mul_7"


@pytest.mark.slow
def test_gpt2_runs_under_the_arm_flow_with_its_projections_on_the_npu(capfd):
    from app.cli import main

    code = main(["check", GPT2, "--quantizer", "ethos-u", "--target", "ethos-u85-256", "--format", "json"])
    out, err = capfd.readouterr()
    assert code in (0, 1), err
    target = json.loads(out)["targets"]["ethos-u85-256"]
    cpu = {c["node"] for c in target["cpu_nodes"]}
    assert target["subgraphs"] >= 1
    # the four Conv1D projections (addmm: q/k/v, attention out, MLP in and out) are delegated
    assert not {"addmm", "addmm_1", "addmm_2", "addmm_3"} & cpu
    assert "WARNING" not in err and "executorch" not in err     # the Arm passes' warnings stay off stderr

"""`export` after a `check` of the same model, each in a fresh process sharing one disk cache (no mocks).

The warm cache converts from stored qparams and never imports the quantizer, so whatever the
quantizer's import registered (the portable quantize / dequantize out variants ExecuTorch needs to
emit the ops left between delegates) is missing unless the export path registers it itself. Only
fresh processes show this: in a test process some other test has long imported the quantizer.
The written program is read back with ExecuTorch's own reader: one delegate per partition of the
verdict `check` printed.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _cli(cache: Path, *argv: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "VPU_INSPECTOR_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "app.cli", *argv], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=900)


def _delegates(pte: Path) -> list[str]:
    """The backend id of every delegate of the program's forward method, as ExecuTorch reads the file."""
    from executorch.exir._serialize._program import deserialize_pte_binary

    program = deserialize_pte_binary(pte.read_bytes()).program
    (plan,) = [p for p in program.execution_plan if p.name == "forward"]
    return [d.id for d in plan.delegates]


@pytest.mark.slow
@pytest.mark.parametrize(("model", "quantizer", "target", "backend"), [
    ("resnet8", "ethos-u", "ethos-u55-128", "EthosUBackend"),  # quantize / dequantize left on the CPU
    ("resnet8", "xnnpack", "xnnpack", "XnnpackBackend"),
])
def test_export_after_check_writes_one_delegate_per_partition(tmp_path, model, quantizer, target, backend):
    cache = tmp_path / "cache"
    checked = _cli(cache, "check", model, "--quantizer", quantizer, "--target", target, "--format", "json")
    assert checked.returncode in (0, 1), checked.stderr
    partitions = json.loads(checked.stdout)["targets"][target]["subgraphs"]
    assert partitions >= 1
    output = tmp_path / "model.pte"
    exported = _cli(cache, "export", model, "--quantizer", quantizer, "--target", target, "-o", str(output))
    assert exported.returncode == 0, exported.stderr
    assert _delegates(output) == [backend] * partitions

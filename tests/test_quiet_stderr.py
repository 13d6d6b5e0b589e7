"""Library start-up chatter never reaches the user's stderr: torchao's "Failed to load …so" for its
CUDA extensions is silenced by importing the core, whatever imports torchao first (transformers in
a model file, ExecuTorch's quantizer, a job or sweep worker)."""
import subprocess
import sys

import pytest


@pytest.mark.slow                  # a fresh interpreter importing torch: ~15 s
def test_importing_the_core_silences_torchao_in_any_later_import():
    code = "import vpu_core, torchao"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "Failed to load" not in done.stderr, done.stderr

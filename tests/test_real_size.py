"""The real-size corpus (benchmarks/real_size) is what it says: full-size transformers configs with
random weights, built in code (no download), each a model file as a user brings one. Only built
here — quantizing them takes minutes: their time and memory are `python -m tools.bench --real-size`
figures."""
from pathlib import Path

import pytest

FOLDER = Path(__file__).resolve().parent.parent / "benchmarks" / "real_size"


@pytest.mark.slow
@pytest.mark.parametrize("name, millions, inputs", [
    ("bert_base", 109.5, [(1, 128), (1, 128)]),                 # token ids and attention mask
    ("resnet50", 23.5, [(1, 3, 224, 224)]),
    ("vit_b16", 85.8, [(1, 3, 224, 224)]),
    ("gpt2_small", 124.4, [(1, 128)]),
    ("whisper_base_encoder", 20.6, [(1, 80, 3000)]),            # 30 s of log-mel frames
])
def test_a_real_size_model_has_its_published_size(name, millions, inputs):
    from vpu_core.pipeline.loading import load_model

    loaded = load_model(str(FOLDER / f"{name}.py"))
    parameters = sum(p.numel() for p in loaded.module.parameters())
    assert round(parameters / 1e6, 1) == millions
    assert [tuple(t.shape) for t in loaded.example_inputs] == inputs

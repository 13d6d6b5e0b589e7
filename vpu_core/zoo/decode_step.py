"""A decoder LLM as one decode step, for a model file (docs/spec.md, "Command line"):

    from vpu_core.zoo.decode_step import decode_step, decode_calls

    def get_model():
        return decode_step(LlamaForCausalLM(config).eval(), max_cache=256, token=1, position=0)

    def calibration_inputs(n, seed):
        return decode_calls(n, seed, vocab=config.vocab_size, max_cache=256)

What ExecuTorch's LLM runner calls: one token id and its position in, logits out, the KV cache held
as buffers the step writes in place (transformers' TorchExportableModuleWithStaticCache). Imports
transformers only when called (an optional dependency: the corpus and the benchmarks use it).
"""
from __future__ import annotations

from typing import Any


def decode_step(model: Any, max_cache: int, token: int = 1, position: int = 0) -> tuple[Any, tuple]:
    """(module, example inputs) of `model` (a transformers causal LM) as one decode step with a
    static cache of `max_cache` positions: positional (token ids [1, 1], cache position [1])."""
    import torch
    from transformers import GenerationConfig
    from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

    model.generation_config = GenerationConfig(use_cache=True, cache_implementation="static")

    class DecodeStep(torch.nn.Module):
        """The runner's call: positional (token ids, cache position) → logits."""

        def __init__(self) -> None:
            super().__init__()
            self.step = TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=max_cache)

        def forward(self, input_ids: Any, cache_position: Any) -> Any:
            return self.step(input_ids=input_ids, cache_position=cache_position)

    return DecodeStep(), (torch.tensor([[token]]), torch.tensor([position]))


def decode_calls(n: int, seed: int, vocab: int, max_cache: int) -> list[tuple]:
    """`n` decode steps of one random prompt at positions 0..n-1, as a user calibrates a decoder
    (the cache fills as it would)."""
    import torch

    gen = torch.Generator().manual_seed(seed)
    tokens = torch.randint(1, vocab, (n,), generator=gen)
    return [(tokens[i].view(1, 1), torch.tensor([i % max_cache])) for i in range(n)]

"""Qwen2.5-0.5B (24 blocks, hidden 896, 14 heads, 2 key/value heads, intermediate 4864,
vocabulary 151,936, q/k/v with bias, tied embeddings; 494M parameters, 2 GB in float) as one
decode step with a static KV cache of 256 positions, batch 1, random weights (built in code from
its configuration; nothing downloaded).

What ExecuTorch's LLM runner calls: one token id and its position in, logits out; the cache is
held as buffers that the step writes in place (transformers' TorchExportableModuleWithStaticCache).
`calibration_inputs` calibrates as a user calibrates a decoder: decode steps of one prompt at
positions 0, 1, 2, … (docs/spec.md, "Command line").
"""
import torch
from transformers import GenerationConfig, Qwen2Config, Qwen2ForCausalLM
from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

MAX_CACHE = 256
VOCAB = 151936


class DecodeStep(torch.nn.Module):
    """The runner's call: positional (token ids, cache position) → logits."""

    def __init__(self, model):
        super().__init__()
        self.step = TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=MAX_CACHE)

    def forward(self, input_ids, cache_position):
        return self.step(input_ids=input_ids, cache_position=cache_position)


def get_model():
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=VOCAB, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                         num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768,
                         rope_theta=1000000.0, rms_norm_eps=1e-6, tie_word_embeddings=True,
                         bos_token_id=0, eos_token_id=0, pad_token_id=0)
    model = Qwen2ForCausalLM(config).eval()
    model.generation_config = GenerationConfig(use_cache=True, cache_implementation="static")
    return DecodeStep(model), (torch.tensor([[1]]), torch.tensor([0]))


def calibration_inputs(n, seed):
    """n decode steps of one random prompt, at positions 0..n-1 (the cache fills as it would)."""
    gen = torch.Generator().manual_seed(seed)
    tokens = torch.randint(1, VOCAB, (n,), generator=gen)
    return [(tokens[i].view(1, 1), torch.tensor([i % MAX_CACHE])) for i in range(n)]

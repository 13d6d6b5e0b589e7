"""SmolLM2-135M (Llama family: 30 blocks, hidden 576, 9 heads, 3 key/value heads, intermediate
1536, vocabulary 49,152, tied embeddings) as one decode step with a static KV cache of 256
positions, batch 1, random weights (built in code from its configuration; nothing downloaded).

What ExecuTorch's LLM runner calls: one token id and its position in, logits out; the cache is
held as buffers that the step writes in place (transformers' TorchExportableModuleWithStaticCache).
`calibration_inputs` calibrates as a user calibrates a decoder: decode steps of one prompt at
positions 0, 1, 2, … (docs/spec.md, "Command line").
"""
import torch
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM
from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

MAX_CACHE = 256
VOCAB = 49152


class DecodeStep(torch.nn.Module):
    """The runner's call: positional (token ids, cache position) → logits."""

    def __init__(self, model):
        super().__init__()
        self.step = TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=MAX_CACHE)

    def forward(self, input_ids, cache_position):
        return self.step(input_ids=input_ids, cache_position=cache_position)


def get_model():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=VOCAB, hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
                         num_attention_heads=9, num_key_value_heads=3, max_position_embeddings=8192,
                         rope_theta=100000.0, rms_norm_eps=1e-5, tie_word_embeddings=True,
                         bos_token_id=0, eos_token_id=0, pad_token_id=0)
    model = LlamaForCausalLM(config).eval()
    model.generation_config = GenerationConfig(use_cache=True, cache_implementation="static")
    return DecodeStep(model), (torch.tensor([[1]]), torch.tensor([0]))


def calibration_inputs(n, seed):
    """n decode steps of one random prompt, at positions 0..n-1 (the cache fills as it would)."""
    gen = torch.Generator().manual_seed(seed)
    tokens = torch.randint(1, VOCAB, (n,), generator=gen)
    return [(tokens[i].view(1, 1), torch.tensor([i % MAX_CACHE])) for i in range(n)]

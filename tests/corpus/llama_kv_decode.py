"""One decode step of a Llama-style decoder with a static KV cache, as ExecuTorch's LLM runner
calls it: one token id and its position in, logits out; the cache is held as buffers that each
step writes in place (transformers' TorchExportableModuleWithStaticCache)."""
import torch
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM
from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

MAX_CACHE = 32


class DecodeStep(torch.nn.Module):
    """The runner's call: positional (token ids, cache position) → logits."""

    def __init__(self, model):
        super().__init__()
        self.step = TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=MAX_CACHE)

    def forward(self, input_ids, cache_position):
        return self.step(input_ids=input_ids, cache_position=cache_position)


def get_model():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=500, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                         bos_token_id=0, eos_token_id=0, pad_token_id=0)
    model = LlamaForCausalLM(config).eval()
    model.generation_config = GenerationConfig(use_cache=True, cache_implementation="static")
    return DecodeStep(model), (torch.tensor([[7]]), torch.tensor([3]))


def calibration_inputs(n, seed):
    """n decode steps of one random prompt, at positions 0..n-1 (the cache fills as it would)."""
    gen = torch.Generator().manual_seed(seed)
    tokens = torch.randint(1, 500, (n,), generator=gen)
    return [(tokens[i].view(1, 1), torch.tensor([i % MAX_CACHE])) for i in range(n)]

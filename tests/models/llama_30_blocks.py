"""A decode step of a Llama-style decoder with 30 tiny blocks (hidden 16) and a static KV cache
of 8 positions: the block count of SmolLM2-135M at a size the tests can afford, for the fold of
repeated blocks (vpu_core.analysis.repeated)."""
import torch
from transformers import GenerationConfig, LlamaConfig, LlamaForCausalLM
from transformers.integrations.executorch import TorchExportableModuleWithStaticCache

MAX_CACHE = 8
VOCAB = 64
HIDDEN = 16


class DecodeStep(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.step = TorchExportableModuleWithStaticCache(model, batch_size=1, max_cache_len=MAX_CACHE)

    def forward(self, input_ids, cache_position):
        return self.step(input_ids=input_ids, cache_position=cache_position)


def get_model():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=32, num_hidden_layers=30,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=32,
                         tie_word_embeddings=True, bos_token_id=0, eos_token_id=0, pad_token_id=0)
    model = LlamaForCausalLM(config).eval()
    model.generation_config = GenerationConfig(use_cache=True, cache_implementation="static")
    return DecodeStep(model), (torch.tensor([[5]]), torch.tensor([1]))


def calibration_inputs(n, seed):
    gen = torch.Generator().manual_seed(seed)
    tokens = torch.randint(1, VOCAB, (n,), generator=gen)
    return [(tokens[i].view(1, 1), torch.tensor([i % MAX_CACHE])) for i in range(n)]

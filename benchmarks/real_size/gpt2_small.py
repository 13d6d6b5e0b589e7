"""GPT-2 small (12 layers, hidden 768, 124M parameters) at 128 tokens, batch 1, random weights:
GPT2Config's defaults are gpt2's shape (built in code; no key/value cache)."""
import torch
from transformers import GPT2Config, GPT2Model

TOKENS = 128


def get_model():
    torch.manual_seed(0)
    model = GPT2Model(GPT2Config(use_cache=False)).eval()
    return model, (torch.randint(0, model.config.vocab_size, (1, TOKENS)),)

"""Decoder text model: GPT-2 (causal attention, token ids only; batch 1, 24 tokens)."""
import torch
from transformers import GPT2Config, GPT2Model


def get_model():
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=500, n_positions=64, n_embd=64, n_layer=2, n_head=4,
                        use_cache=False, bos_token_id=0, eos_token_id=0)
    model = GPT2Model(config).eval()
    return model, (torch.randint(0, 500, (1, 24)),)

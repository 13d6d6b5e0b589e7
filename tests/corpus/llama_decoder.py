"""Decoder text model, Llama style: RMSNorm, rotary position embeddings, SiLU-gated MLP, grouped
query attention (token ids and an attention mask; batch 2, 16 tokens)."""
import torch
from transformers import LlamaConfig, LlamaModel


def get_model():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=500, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                         use_cache=False, bos_token_id=0, eos_token_id=0, pad_token_id=0)
    model = LlamaModel(config).eval()
    ids = torch.randint(1, 500, (2, 16))
    mask = torch.ones(2, 16, dtype=torch.int64)
    mask[1, :4] = 0                                # the second prompt is left-padded
    return model, (ids, mask)

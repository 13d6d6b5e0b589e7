"""Encoder text model: BERT with int64 token ids and an attention mask (batch 2, 16 tokens)."""
import torch
from transformers import BertConfig, BertModel


def get_model():
    torch.manual_seed(0)
    config = BertConfig(vocab_size=500, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=128, max_position_embeddings=64)
    model = BertModel(config).eval()
    ids = torch.randint(0, 500, (2, 16))
    mask = torch.ones(2, 16, dtype=torch.int64)
    mask[1, 12:] = 0                               # the second sentence is padded
    return model, (ids, mask)

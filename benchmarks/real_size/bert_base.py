"""BERT-base (12 layers, hidden 768, 110M parameters) at 128 tokens, batch 1, random weights.

Real size for the time and memory rows of `python -m tools.bench --real-size`: BertConfig's own
defaults are bert-base-uncased's shape (built in code from the config, nothing downloaded).
"""
import torch
from transformers import BertConfig, BertModel

TOKENS = 128


def get_model():
    torch.manual_seed(0)
    model = BertModel(BertConfig()).eval()
    ids = torch.randint(0, model.config.vocab_size, (1, TOKENS))
    mask = torch.ones(1, TOKENS, dtype=torch.int64)
    mask[0, 100:] = 0                              # a padded sentence: the mask does something
    return model, (ids, mask)

"""GPT-2 at its smallest (one block, 16 wide, 8 tokens; random weights, built in code): Hugging Face's
Conv1D projections are `addmm(bias, x, weight)` with the bias a parameter (tests/test_arm_failures.py)."""
import torch
from transformers import GPT2Config, GPT2Model


def get_model():
    torch.manual_seed(0)
    config = GPT2Config(vocab_size=50, n_positions=16, n_embd=16, n_layer=1, n_head=2, use_cache=False,
                        bos_token_id=0, eos_token_id=0)
    return GPT2Model(config).eval(), (torch.randint(0, 50, (1, 8)),)

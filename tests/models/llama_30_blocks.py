"""A decode step of a Llama-style decoder with 30 tiny blocks (hidden 16) and a static KV cache
of 8 positions: the block count of SmolLM2-135M at a size the tests can afford, for the fold of
repeated blocks (vpu_core.analysis.repeated)."""
import torch
from transformers import LlamaConfig, LlamaForCausalLM
from vpu_core.zoo.decode_step import decode_calls, decode_step

MAX_CACHE = 8
VOCAB = 64
HIDDEN = 16


def get_model():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=VOCAB, hidden_size=HIDDEN, intermediate_size=32, num_hidden_layers=30,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=32,
                         tie_word_embeddings=True, bos_token_id=0, eos_token_id=0, pad_token_id=0)
    model = LlamaForCausalLM(config).eval()
    return decode_step(model, MAX_CACHE, token=5, position=1)


def calibration_inputs(n, seed):
    """n decode steps of one random prompt, at positions 0..n-1 (the cache fills as it would)."""
    return decode_calls(n, seed, vocab=VOCAB, max_cache=MAX_CACHE)

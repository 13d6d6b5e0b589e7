"""One decode step of a Qwen2 decoder with a static KV cache (bias on q/k/v, tied embeddings,
grouped-query attention), as ExecuTorch's LLM runner calls it: one token id and its position in,
logits out; the cache is held as buffers that each step writes in place (transformers'
TorchExportableModuleWithStaticCache)."""
import torch
from transformers import Qwen2Config, Qwen2ForCausalLM
from vpu_core.zoo.decode_step import decode_calls, decode_step

MAX_CACHE = 32
VOCAB = 600


def get_model():
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=VOCAB, hidden_size=64, intermediate_size=160, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                         tie_word_embeddings=True, bos_token_id=0, eos_token_id=0, pad_token_id=0)
    model = Qwen2ForCausalLM(config).eval()
    return decode_step(model, MAX_CACHE, token=11, position=2)


def calibration_inputs(n, seed):
    """n decode steps of one random prompt, at positions 0..n-1 (the cache fills as it would)."""
    return decode_calls(n, seed, vocab=VOCAB, max_cache=MAX_CACHE)

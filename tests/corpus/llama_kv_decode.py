"""One decode step of a Llama-style decoder with a static KV cache, as ExecuTorch's LLM runner
calls it: one token id and its position in, logits out; the cache is held as buffers that each
step writes in place (transformers' TorchExportableModuleWithStaticCache)."""
import torch
from transformers import LlamaConfig, LlamaForCausalLM
from vpu_core.zoo.decode_step import decode_calls, decode_step

MAX_CACHE = 32


def get_model():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=500, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64,
                         bos_token_id=0, eos_token_id=0, pad_token_id=0)
    model = LlamaForCausalLM(config).eval()
    return decode_step(model, MAX_CACHE, token=7, position=3)


def calibration_inputs(n, seed):
    """n decode steps of one random prompt, at positions 0..n-1 (the cache fills as it would)."""
    return decode_calls(n, seed, vocab=500, max_cache=MAX_CACHE)

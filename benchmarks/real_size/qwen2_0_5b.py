"""Qwen2.5-0.5B (24 blocks, hidden 896, 14 heads, 2 key/value heads, intermediate 4864,
vocabulary 151,936, q/k/v with bias, tied embeddings; 494M parameters, 2 GB in float) as one
decode step with a static KV cache of 256 positions, batch 1, random weights (built in code from
its configuration; nothing downloaded).

What ExecuTorch's LLM runner calls: one token id and its position in, logits out; the cache is
held as buffers that the step writes in place (transformers' TorchExportableModuleWithStaticCache).
`calibration_inputs` calibrates as a user calibrates a decoder: decode steps of one prompt at
positions 0, 1, 2, … (docs/spec.md, "Command line").
"""
import torch
from transformers import Qwen2Config, Qwen2ForCausalLM
from vpu_core.zoo.decode_step import decode_calls, decode_step

MAX_CACHE = 256
VOCAB = 151936


def get_model():
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=VOCAB, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                         num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=32768,
                         rope_theta=1000000.0, rms_norm_eps=1e-6, tie_word_embeddings=True,
                         bos_token_id=0, eos_token_id=0, pad_token_id=0)
    model = Qwen2ForCausalLM(config).eval()
    return decode_step(model, MAX_CACHE, token=1, position=0)


def calibration_inputs(n, seed):
    """n decode steps of one random prompt, at positions 0..n-1 (the cache fills as it would)."""
    return decode_calls(n, seed, vocab=VOCAB, max_cache=MAX_CACHE)

"""SmolLM2-135M (Llama family: 30 blocks, hidden 576, 9 heads, 3 key/value heads, intermediate
1536, vocabulary 49,152, tied embeddings) as one decode step with a static KV cache of 256
positions, batch 1, random weights (built in code from its configuration; nothing downloaded).

What ExecuTorch's LLM runner calls: one token id and its position in, logits out; the cache is
held as buffers that the step writes in place (transformers' TorchExportableModuleWithStaticCache).
`calibration_inputs` calibrates as a user calibrates a decoder: decode steps of one prompt at
positions 0, 1, 2, … (docs/spec.md, "Command line").
"""
import torch
from transformers import LlamaConfig, LlamaForCausalLM
from vpu_core.zoo.decode_step import decode_calls, decode_step

MAX_CACHE = 256
VOCAB = 49152


def get_model():
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=VOCAB, hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
                         num_attention_heads=9, num_key_value_heads=3, max_position_embeddings=8192,
                         rope_theta=100000.0, rms_norm_eps=1e-5, tie_word_embeddings=True,
                         bos_token_id=0, eos_token_id=0, pad_token_id=0)
    model = LlamaForCausalLM(config).eval()
    return decode_step(model, MAX_CACHE, token=1, position=0)


def calibration_inputs(n, seed):
    """n decode steps of one random prompt, at positions 0..n-1 (the cache fills as it would)."""
    return decode_calls(n, seed, vocab=VOCAB, max_cache=MAX_CACHE)

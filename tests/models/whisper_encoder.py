"""Whisper's audio encoder (tiny config, random weights): its forward applies gelu to conv1 and
conv2 itself, so the two gelus belong to WhisperEncoder, not to either conv."""
import torch
from transformers import WhisperConfig
from transformers.models.whisper.modeling_whisper import WhisperEncoder


def get_model():
    torch.manual_seed(0)
    config = WhisperConfig(num_mel_bins=8, d_model=32, encoder_layers=1, encoder_attention_heads=2,
                           encoder_ffn_dim=64, max_source_positions=16)
    model = WhisperEncoder(config).eval()
    return model, (torch.randn(1, 8, 32),)

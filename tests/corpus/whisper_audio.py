"""Speech encoder: Whisper's encoder (two conv1d over log-mel frames, GELU, then a transformer;
batch 1, 16 mel bins × 64 frames)."""
import torch
from transformers import WhisperConfig
from transformers.models.whisper.modeling_whisper import WhisperEncoder


def get_model():
    torch.manual_seed(0)
    config = WhisperConfig(num_mel_bins=16, d_model=32, encoder_layers=2, encoder_attention_heads=2,
                           encoder_ffn_dim=64, max_source_positions=32, decoder_layers=1,
                           decoder_attention_heads=2, decoder_ffn_dim=64, vocab_size=100,
                           pad_token_id=0, bos_token_id=1, eos_token_id=2, decoder_start_token_id=1)
    model = WhisperEncoder(config).eval()
    return model, (torch.randn(1, 16, 64),)

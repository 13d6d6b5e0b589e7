"""The encoder of Whisper-base (6 layers, d_model 512, 80 mel bins, 20M parameters) on 30 s of audio
(3,000 log-mel frames → 1,500 positions), batch 1, random weights (openai/whisper-base's shape,
built in code)."""
import torch
from transformers import WhisperConfig
from transformers.models.whisper.modeling_whisper import WhisperEncoder


def get_model():
    torch.manual_seed(0)
    config = WhisperConfig(num_mel_bins=80, d_model=512, encoder_layers=6, encoder_attention_heads=8,
                           encoder_ffn_dim=2048, max_source_positions=1500, decoder_layers=6,
                           decoder_attention_heads=8, decoder_ffn_dim=2048)
    model = WhisperEncoder(config).eval()
    return model, (torch.randn(1, 80, 3000),)

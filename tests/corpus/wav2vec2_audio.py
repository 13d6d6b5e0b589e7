"""Audio front end: wav2vec 2.0's conv1d feature encoder + a small transformer (batch 1, 0.1 s)."""
import torch
from transformers import Wav2Vec2Config, Wav2Vec2Model


def get_model():
    torch.manual_seed(0)
    config = Wav2Vec2Config(hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                            intermediate_size=64, conv_dim=(16, 16, 16), conv_stride=(5, 2, 2),
                            conv_kernel=(10, 3, 3), num_conv_pos_embeddings=16,
                            num_conv_pos_embedding_groups=4)
    model = Wav2Vec2Model(config).eval()
    return model, (torch.randn(1, 1600),)

"""CNN with batch norm: a small transformers ResNet (bottleneck blocks; batch 2)."""
import torch
from transformers import ResNetConfig, ResNetModel


def get_model():
    torch.manual_seed(0)
    config = ResNetConfig(embedding_size=16, hidden_sizes=[16, 32, 64], depths=[1, 1, 1],
                          layer_type="bottleneck")
    model = ResNetModel(config).eval()
    return model, (torch.randn(2, 3, 64, 64),)

"""ResNet-50-shaped CNN: transformers ResNet with the [3, 4, 6, 3] bottleneck stages (narrow; batch 1)."""
import torch
from transformers import ResNetConfig, ResNetModel


def get_model():
    torch.manual_seed(0)
    config = ResNetConfig(embedding_size=16, hidden_sizes=[32, 64, 128, 256], depths=[3, 4, 6, 3],
                          layer_type="bottleneck")
    model = ResNetModel(config).eval()
    return model, (torch.randn(1, 3, 64, 64),)

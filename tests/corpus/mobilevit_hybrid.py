"""Hybrid CNN/transformer: MobileViT (MobileNetV2 blocks, unfold → attention → fold; batch 1)."""
import torch
from transformers import MobileViTConfig, MobileViTModel


def get_model():
    torch.manual_seed(0)
    config = MobileViTConfig(image_size=64, hidden_sizes=[32, 48, 64], neck_hidden_sizes=[8, 16, 24, 32, 40, 48, 96],
                             num_attention_heads=2)
    model = MobileViTModel(config).eval()
    return model, (torch.randn(1, 3, 64, 64),)

"""Windowed-attention vision model: Swin (shifted windows, relative position index tensors; batch 1)."""
import torch
from transformers import SwinConfig, SwinModel


def get_model():
    torch.manual_seed(0)
    config = SwinConfig(image_size=32, patch_size=2, embed_dim=16, depths=[2, 2], num_heads=[2, 4],
                        window_size=4)
    model = SwinModel(config).eval()
    return model, (torch.randn(1, 3, 32, 32),)

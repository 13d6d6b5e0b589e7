"""Vision transformer: ViT on 32×32 images, patch 8 (batch 2)."""
import torch
from transformers import ViTConfig, ViTModel


def get_model():
    torch.manual_seed(0)
    config = ViTConfig(image_size=32, patch_size=8, hidden_size=64, num_hidden_layers=2,
                       num_attention_heads=4, intermediate_size=128)
    model = ViTModel(config).eval()
    return model, (torch.randn(2, 3, 32, 32),)

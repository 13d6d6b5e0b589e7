"""ViT-B/16 (12 layers, hidden 768, 86M parameters) at 224×224 (196 patches + [CLS]), batch 1, random
weights: ViTConfig's defaults are google/vit-base-patch16-224's shape (built in code)."""
import torch
from transformers import ViTConfig, ViTModel


def get_model():
    torch.manual_seed(0)
    model = ViTModel(ViTConfig(), add_pooling_layer=False).eval()
    return model, (torch.randn(1, 3, 224, 224),)

"""Hybrid CNN/transformer: MobileViT (MobileNetV2 blocks, unfold → attention → fold; batch 1)."""
import torch
from torch import nn
from transformers import MobileViTConfig, MobileViTModel


def trained_scale(model: nn.Module) -> nn.Module:
    """transformers draws conv and batch-norm weights with std 0.02 whatever their fan-in, so
    every layer shrinks the activations ~30× and the output is exactly 0 after twenty layers.
    He init for convs and batch norms with the per-channel spread of a trained network keep the
    activations at a real model's scale."""
    for m in model.modules():
        if isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, nonlinearity="relu")
        elif isinstance(m, nn.BatchNorm2d):
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 2.0)
    return model


def get_model():
    torch.manual_seed(0)
    config = MobileViTConfig(image_size=64, hidden_sizes=[32, 48, 64],
                             neck_hidden_sizes=[8, 16, 24, 32, 40, 48, 96], num_attention_heads=2)
    model = trained_scale(MobileViTModel(config)).eval()
    return model, (torch.randn(1, 3, 64, 64),)

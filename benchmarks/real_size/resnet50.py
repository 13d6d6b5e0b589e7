"""ResNet-50 (stages [3, 4, 6, 3] of bottleneck blocks, widths 256-2048, 25M parameters) at 224×224,
batch 1, random weights: ResNetConfig's defaults are microsoft/resnet-50's shape (built in code;
torchvision is not needed)."""
import torch
from transformers import ResNetConfig, ResNetModel


def get_model():
    torch.manual_seed(0)
    model = ResNetModel(ResNetConfig()).eval()
    return model, (torch.randn(1, 3, 224, 224),)

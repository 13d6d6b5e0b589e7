"""Mobile CNN with SiLU and squeeze-excite: a narrow EfficientNet (depthwise convs; batch 1)."""
import torch
from transformers import EfficientNetConfig, EfficientNetModel


def get_model():
    torch.manual_seed(0)
    config = EfficientNetConfig(image_size=64, width_coefficient=0.25, depth_coefficient=0.25,
                                hidden_dim=320)
    model = EfficientNetModel(config).eval()
    return model, (torch.randn(1, 3, 64, 64),)

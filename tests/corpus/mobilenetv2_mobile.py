"""Mobile CNN with inverted residuals: a narrow MobileNetV2 (depthwise convs, ReLU6; batch 1)."""
import importlib.util
from pathlib import Path

import torch
from transformers import MobileNetV2Config, MobileNetV2Model


def _trained_scale():
    """The EfficientNet file's re-initialisation at a trained network's scale (transformers'
    std-0.02 init shrinks the activations ~30× per layer here too)."""
    path = Path(__file__).with_name("efficientnet_mobile.py")
    spec = importlib.util.spec_from_file_location("_corpus_efficientnet_mobile", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.trained_scale


def get_model():
    torch.manual_seed(0)
    config = MobileNetV2Config(image_size=64, depth_multiplier=0.35, min_depth=4)
    model = _trained_scale()(MobileNetV2Model(config)).eval()
    return model, (torch.randn(1, 3, 64, 64),)

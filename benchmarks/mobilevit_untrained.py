"""An untrained MobileViT straight from its transformers config (random init, batch 1).

The observer benchmark model: MobileViTConfig's own defaults (MobileViT-S widths) at 64x64, whose
random-init activations collapse towards zero — the case where torchao's HistogramObserver
search used to take many minutes under the XNNPACK quantizer. Used by `python -m tools.bench --loop`
and the closing measurements; not a test model (it takes tens of seconds).

    vpu-inspector check benchmarks/mobilevit_untrained.py --quantizer xnnpack --format json
"""
import torch
from transformers import MobileViTConfig, MobileViTModel


def get_model():
    torch.manual_seed(0)
    config = MobileViTConfig(image_size=64)
    model = MobileViTModel(config).eval()
    return model, (torch.randn(1, 3, 64, 64),)

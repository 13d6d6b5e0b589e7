"""The built-in model zoo: every model defined in code, random weights from a fixed seed.

The registry itself imports no torch, so the GUI can list the zoo before torch is loaded.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from torch import nn


@dataclass(frozen=True)
class ZooEntry:
    name: str
    description: str
    factory: Callable[[], nn.Module]
    input_shape: tuple[int, ...]  # one sample, without the batch dimension
    # The model's own batch: these are edge models, deployed one sample at a time (MLPerf Tiny
    # measures single-stream latency), so transfer bytes and shapes are those of one inference.
    batch: int = 1


def _mlperf(cls_name: str) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        from executorch.examples.models import mlperf_tiny

        return getattr(mlperf_tiny, cls_name)()

    return build


def _ours(cls_name: str) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        from vpu_core.zoo import models

        return getattr(models, cls_name)()

    return build


ZOO: dict[str, ZooEntry] = {e.name: e for e in (
    ZooEntry("conv_relu", "Minimal conv + relu from the seed chapter (one fused VPU unit)",
             _ours("ConvReLU"), (3, 16, 16)),
    ZooEntry("resnet8", "MLPerf Tiny ResNet-8, CIFAR-10 32x32 (residual adds)",
             _mlperf("ResNet8"), (3, 32, 32)),
    ZooEntry("ds_cnn", "MLPerf Tiny DS-CNN keyword spotting, 49x10 MFCC (depthwise convs, avg pool)",
             _mlperf("DSCNNKWS"), (1, 49, 10)),
    ZooEntry("mobilenet_v1_025", "MLPerf Tiny MobileNetV1-0.25 visual wake words, 96x96",
             _mlperf("MobileNetV1025"), (3, 96, 96)),
    ZooEntry("deep_autoencoder", "MLPerf Tiny deep autoencoder for anomaly detection (linear + batchnorm)",
             _mlperf("DeepAutoEncoder"), (640,)),
    ZooEntry("mobilenet_v2", "Small MobileNetV2: inverted residuals, ReLU6, residual adds",
             _ours("MobileNetV2Tiny"), (3, 64, 64)),
    ZooEntry("inception_lite", "Inception-style branches joined by cat, max/avg pooling, sigmoid gate (CPU)",
             _ours("InceptionLite"), (3, 32, 32)),
    ZooEntry("transformer", "Two-layer transformer encoder: layer_norm, softmax, gelu, matmul fall back to CPU",
             _ours("TinyTransformer"), (16, 8)),
)}

DEFAULT_MODEL = "resnet8"


def build_zoo_model(name: str, seed: int = 0) -> nn.Module:
    """Instantiate a zoo model in eval mode with weights from a fixed seed."""
    import torch

    entry = ZOO[name]
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = entry.factory().eval()
        _randomize_batchnorm(model)
    return model


def _randomize_batchnorm(model: nn.Module) -> None:
    from torch import nn

    # Fresh BatchNorm stats (mean 0, var 1) make every model the same scale; random running
    # stats give per-channel ranges like a trained net, which is what the scale plots are for.
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm) and m.running_mean is not None:
            m.running_mean.uniform_(-0.2, 0.2)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)

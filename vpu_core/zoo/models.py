"""Models of our own, defined in code, that exercise every VPU rule and realistic CPU fallback."""
from __future__ import annotations

import torch
from torch import nn


class ConvReLU(nn.Module):
    """The seed chapter's minimal conv + relu: one fused VPU unit."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.relu = nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.relu(self.conv(x))


class InvertedResidual(nn.Module):
    """MobileNetV2 block: 1x1 expand, 3x3 depthwise, 1x1 project, residual add when shapes match."""

    def __init__(self, c_in: int, c_out: int, stride: int, expand: int) -> None:
        super().__init__()
        hidden = c_in * expand
        self.use_res = stride == 1 and c_in == c_out
        self.block = nn.Sequential(
            nn.Conv2d(c_in, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False),
            nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, c_out, 1, bias=False), nn.BatchNorm2d(c_out),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.block(x)
        return x + y if self.use_res else y


class MobileNetV2Tiny(nn.Module):
    """A small MobileNetV2 (width 0.35, 64x64 input): inverted residuals, ReLU6, residual adds."""

    def __init__(self, n_classes: int = 10) -> None:
        super().__init__()
        cfg = [(16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (64, 2, 6), (64, 1, 6)]
        layers: list[nn.Module] = [nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU6()]
        c_in = 16
        for c_out, stride, expand in cfg:
            layers.append(InvertedResidual(c_in, c_out, stride, expand))
            c_in = c_out
        layers += [nn.Conv2d(c_in, 128, 1, bias=False), nn.BatchNorm2d(128), nn.ReLU6()]
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(128, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.features(x))
        return self.classifier(torch.flatten(x, 1))


class InceptionLite(nn.Module):
    """Inception-style branches joined by cat, max/avg pooling, and a sigmoid gate on the CPU."""

    def __init__(self, n_classes: int = 10) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU())
        self.pool1 = nn.MaxPool2d(2)
        self.b1 = nn.Sequential(nn.Conv2d(16, 8, 1), nn.ReLU())
        self.b3 = nn.Sequential(nn.Conv2d(16, 8, 3, padding=1), nn.ReLU())
        self.bp = nn.Sequential(nn.AvgPool2d(3, 1, 1), nn.Conv2d(16, 8, 1), nn.ReLU())
        self.mix = nn.Sequential(nn.Conv2d(24, 32, 3, padding=1), nn.ReLU())
        self.gate = nn.Sigmoid()
        self.pool2 = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(32, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool1(self.stem(x))
        x = torch.cat([self.b1(x), self.b3(x), self.bp(x)], dim=1)
        x = self.mix(x)
        x = x * self.gate(x)
        return self.fc(torch.flatten(self.pool2(x), 1))


class EncoderLayer(nn.Module):
    """Pre-norm transformer encoder layer written with explicit matmul / softmax / gelu."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(2 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).reshape(b, t, 3, h, d // h).permute(2, 0, 3, 1, 4)
        att = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * (d // h) ** -0.5, dim=-1)
        y = torch.matmul(att, v).transpose(1, 2).reshape(b, t, d)
        x = x + self.proj(y)
        return x + self.fc2(self.act(self.fc1(self.ln2(x))))


class TinyTransformer(nn.Module):
    """Two-layer transformer encoder over 16 tokens: layer_norm, softmax, gelu, matmul on the CPU."""

    def __init__(self, dim: int = 32, heads: int = 4, layers: int = 2, n_classes: int = 10) -> None:
        super().__init__()
        self.embed = nn.Linear(8, dim)
        self.layers = nn.Sequential(*[EncoderLayer(dim, heads) for _ in range(layers)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.norm(self.layers(self.embed(x)))
        return self.head(x.mean(dim=1))

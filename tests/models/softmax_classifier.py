"""A tiny conv → linear → softmax classifier: breaks VPU rules under XNNPACK (the sweep tests)."""
import torch
from torch import nn


def get_model():
    torch.manual_seed(0)
    m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 8 * 8, 4),
                      nn.Softmax(dim=-1))
    return m, (torch.randn(1, 3, 8, 8),)

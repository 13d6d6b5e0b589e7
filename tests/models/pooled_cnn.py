"""conv 3×3 + ReLU → global average pool → linear: the CNN head every image model has
(tests/test_arm_targets.py judges the VPU's and XNNPACK's graphs of it with the Arm targets)."""
import torch
from torch import nn


class PooledCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv(x))
        return self.fc(nn.functional.adaptive_avg_pool2d(y, 1).flatten(1))


def get_model():
    torch.manual_seed(0)
    return PooledCNN().eval(), (torch.randn(1, 3, 16, 16),)

"""A graph small enough to partition by hand (tests/test_whatif.py has the worked answer).

x [1, 4, 8, 8] → conv1 (1x1) → sigmoid → conv2 (1x1) → softmax(dim=1) → output
"""
import torch
from torch import nn


class SigmoidChain(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(4, 4, 1)
        self.conv2 = nn.Conv2d(4, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.conv2(torch.sigmoid(self.conv1(x))), dim=1)


def get_model():
    torch.manual_seed(0)
    return SigmoidChain().eval(), (torch.randn(1, 4, 8, 8),)

"""A ranking head whose scores are sorted: aten.sort, which ExecuTorch's runtime (this build) has
no kernel for. tests/test_runtime.py checks that `--run` refuses it in one sentence naming it.

x [2, 16] → linear (16 → 8) → sort(descending) → output
"""
import torch
from torch import nn


class RankedScores(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.score = nn.Linear(16, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sort(self.score(x), dim=-1, descending=True).values


def get_model():
    torch.manual_seed(0)
    return RankedScores().eval(), (torch.randn(2, 16),)

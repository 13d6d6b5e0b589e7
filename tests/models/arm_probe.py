"""A tiny graph with one op of each kind the Arm backend refuses on an Ethos-U55 (tests/test_arm_targets.py).

x [1, 8, 16, 16] → conv 3×3 + relu ─┬→ avg_pool2d 16×16 (stride 16: the U55 takes strides ≤ 3) → flatten → linear
                                    └→ max_pool2d 4×4 / 4 (stride 4: refused by the max-pool check, then
                                       taken by the U55's large-stride decomposition) → flatten → linear
x.mean(1) > 0 (a bool tensor: the U55 takes none) → where(mask, x.mean(1), 0)
atan2(x.mean(1), x.amax(1)) (no TOSA operator for it: refused on every Arm target)
ids [1, 4] int64 → ids + 1 (an int64 tensor: neither the U55 nor the TOSA INT profile computes int64)
"""
import torch
from torch import nn


class ArmProbe(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(8, 8, 3, padding=1)
        self.avg = nn.AvgPool2d(16)
        self.max = nn.MaxPool2d(4, stride=4)
        self.fc = nn.Linear(8, 4)
        self.fc_max = nn.Linear(128, 4)

    def forward(self, x: torch.Tensor, ids: torch.Tensor):
        y = torch.relu(self.conv(x))
        pooled = self.fc(self.avg(y).flatten(1))
        tiled = self.fc_max(self.max(y).flatten(1))
        m = x.mean(1)
        masked = torch.where(m > 0, m, torch.zeros_like(m))
        angle = torch.atan2(m, x.amax(1))
        return pooled + tiled, masked + angle, ids + 1


def get_model():
    torch.manual_seed(0)
    return ArmProbe().eval(), (torch.randn(1, 8, 16, 16), torch.randint(0, 9, (1, 4)))

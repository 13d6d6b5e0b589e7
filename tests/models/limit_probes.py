"""Tiny ops, one per branch, each at a limit of the profile in tests/test_limits.py or one past it.

Every branch is its own submodule, so a test names an op by its module path (nn_module_stack).
The kernel aliases are here too: conv1d, addmm / mm / matmul with a constant 2-D weight, and a
matmul of two activations (not an alias: it stays a matmul).
"""
import torch
from torch import nn


class Addmm(nn.Module):
    def __init__(self, n_in: int, n_out: int) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_in, n_out) / n_in ** 0.5)   # [in, out], as GPT-2's Conv1D
        self.bias = nn.Parameter(torch.randn(n_out) * 0.1)

    def forward(self, x):
        return torch.addmm(self.bias, x.view(-1, x.shape[-1]), self.weight)


class Mm(Addmm):
    def forward(self, x):
        return torch.mm(x.view(-1, x.shape[-1]), self.weight)


class Matmul(Addmm):
    def forward(self, x):
        return torch.matmul(x, self.weight)


class ActMatmul(nn.Module):
    def forward(self, x):
        return torch.matmul(x, x.transpose(-1, -2))      # two activations: no weight


def conv(cin: int, cout: int, k, **kw) -> nn.Module:
    return nn.Sequential(nn.Conv2d(cin, cout, k, **kw), nn.ReLU())


# name -> (module, input shape). Bounds of the test profile: kernel 3×3, stride 2×2, dilation
# 1×1, groups one_or_depthwise, channels multiple of 8, linear features ≤ 16, pools 2×2 / 2×2.
PROBES = {
    "k3x3": (conv(8, 8, 3, padding=1), (1, 8, 8, 8)),
    "k3x4": (conv(8, 8, (3, 4)), (1, 8, 8, 8)),
    "k4x3": (conv(8, 8, (4, 3)), (1, 8, 8, 8)),
    "s2": (conv(8, 8, 1, stride=2), (1, 8, 8, 8)),
    "s3": (conv(8, 8, 1, stride=(1, 3)), (1, 8, 8, 8)),
    "d1": (conv(8, 8, 3, dilation=1), (1, 8, 8, 8)),
    "d2": (conv(8, 8, 3, dilation=(2, 1)), (1, 8, 8, 8)),
    "dw": (conv(8, 8, 3, groups=8, padding=1), (1, 8, 8, 8)),
    "dw_x2": (conv(8, 16, 3, groups=8, padding=1), (1, 8, 8, 8)),
    "grouped": (conv(8, 8, 3, groups=2, padding=1), (1, 8, 8, 8)),
    "dw_ch9": (conv(9, 9, 3, groups=9, padding=1), (1, 9, 8, 8)),
    "in16": (conv(16, 8, 1), (1, 16, 4, 4)),
    "in9": (conv(9, 8, 1), (1, 9, 4, 4)),
    "in7": (conv(7, 8, 1), (1, 7, 4, 4)),
    "out9": (conv(8, 9, 1), (1, 8, 4, 4)),
    "conv1d_k3": (nn.Conv1d(8, 8, 3), (1, 8, 16)),
    "conv1d_k4": (nn.Conv1d(8, 8, 4), (1, 8, 16)),
    "conv1d_s3": (nn.Conv1d(8, 8, 1, stride=3), (1, 8, 16)),
    "lin16": (nn.Linear(16, 16), (1, 16)),
    "lin_in17": (nn.Linear(17, 16), (1, 17)),
    "lin_out17": (nn.Linear(16, 17), (1, 16)),
    "addmm16": (Addmm(16, 16), (4, 16)),
    "addmm_in17": (Addmm(17, 8), (4, 17)),
    "mm_out17": (Mm(16, 17), (4, 16)),
    "matmul16": (Matmul(16, 16), (2, 4, 16)),
    "matmul_in17": (Matmul(17, 16), (2, 4, 17)),
    "act_matmul": (ActMatmul(), (2, 4, 16)),
    "max_k2": (nn.MaxPool2d(2), (1, 8, 8, 8)),
    "max_k3": (nn.MaxPool2d(3, stride=2), (1, 8, 8, 8)),
    "max_s3": (nn.MaxPool2d(2, stride=3), (1, 8, 8, 8)),
    "avg_k2": (nn.AvgPool2d(2), (1, 8, 8, 8)),
    "avg_k2x3": (nn.AvgPool2d((2, 3), stride=2), (1, 8, 8, 8)),
    "avg_s3": (nn.AvgPool2d(2, stride=(2, 3)), (1, 8, 8, 8)),
}


class Probes(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.branches = nn.ModuleDict({name: module for name, (module, _) in PROBES.items()})

    def forward(self, *inputs):
        return tuple(m(x) for m, x in zip(self.branches.values(), inputs))


def get_model():
    torch.manual_seed(0)
    inputs = tuple(torch.randn(shape) for _, shape in PROBES.values())
    return Probes().eval(), inputs

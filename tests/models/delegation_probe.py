"""A tiny graph for the real XNNPACK delegation under the VPU quantizer (tests/test_delegation.py).

x [2, 8, 4] → conv1d (int32 bias) → transpose → linear (3-D, int32 bias) → relu → layer_norm
ids [2, 4] (int64) → ids + 1

Under the VPU quantizer, before the delegation shared the runtime's lowering, the linear on a
transposed 3-D input crashed ExecuTorch's ConvertToLinearPass ("t() expects a tensor with <= 2
dimensions", like DistilBERT, DeiT and CLIP) and XNNPACK took no conv. XNNPACK has no kernel for
layer_norm, and its AddConfig rejects the int64 add.
"""
import torch
from torch import nn


class DelegationProbe(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(8, 8, 1)
        self.fc = nn.Linear(8, 8)
        self.ln = nn.LayerNorm(8)

    def forward(self, x: torch.Tensor, ids: torch.Tensor):
        y = self.ln(torch.relu(self.fc(self.conv(x).transpose(1, 2))))
        return y, ids + 1


def get_model():
    torch.manual_seed(0)
    return DelegationProbe().eval(), (torch.randn(2, 8, 4), torch.randint(0, 9, (2, 4)))

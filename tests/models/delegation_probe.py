"""A tiny graph with what real transformers carry, for the real XNNPACK delegation under the VPU
quantizer and the next-kernel candidates (tests/test_delegation.py, tests/test_gui_compare.py).

x [2, 8, 4] → conv1d (int32 bias) → transpose → linear (3-D, int32 bias) → relu ─┐
ids [2, 4] (int64) → embedding ──────────────────────────────────────────────────┴→ add → layer_norm
ids → ids + 1 (int64 arithmetic)

Under the VPU quantizer, before the delegation shared the runtime's lowering, the linear on a
transposed 3-D input crashed ExecuTorch's ConvertToLinearPass ("t() expects a tensor with <= 2
dimensions", like DistilBERT, DeiT and CLIP) and XNNPACK took no conv. XNNPACK has no kernel for
embedding or layer_norm, and its AddConfig rejects the int64 add. For the VPU, the embedding is
outside the op list but would stay on the CPU if added (it reads int64 token ids).
"""
import torch
from torch import nn


class DelegationProbe(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv1d(8, 8, 1)
        self.fc = nn.Linear(8, 8)
        self.embed = nn.Embedding(10, 8)
        self.ln = nn.LayerNorm(8)

    def forward(self, x: torch.Tensor, ids: torch.Tensor):
        y = torch.relu(self.fc(self.conv(x).transpose(1, 2)))
        return self.ln(y + self.embed(ids)), ids + 1


def get_model():
    torch.manual_seed(0)
    return DelegationProbe().eval(), (torch.randn(2, 8, 4), torch.randint(0, 9, (2, 4)))

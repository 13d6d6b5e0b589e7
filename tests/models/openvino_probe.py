"""A small CNN with one op OpenVINO cannot convert, for the OpenVINO target's per-op reasons
(tests/test_openvino.py).

x [1, 3, 16, 16] → conv → relu → atan2(first half, second half of the channels) → conv → output

OpenVINO's PyTorch frontend has no conversion for aten.atan2, so OpenvinoPartitioner leaves it
to ExecuTorch's portable kernel: two OpenVINO partitions, the atan2 between them on the CPU.
"""
import torch
from torch import nn


class OpenvinoProbe(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.first = nn.Conv2d(3, 8, 3, padding=1)
        self.second = nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.first(x))
        return self.second(torch.atan2(h[:, :4], h[:, 4:] + 1.0))


def get_model():
    torch.manual_seed(0)
    return OpenvinoProbe().eval(), (torch.randn(1, 3, 16, 16),)

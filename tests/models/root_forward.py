"""Ops in the model's own forward between ops in (nested) modules: `gelu(conv1(x))`,
`gelu(conv2(x))` as Whisper's encoder writes them, a permute, a block whose own forward
multiplies, and `norm(x.mean(...))` as ConvNeXt pools. Module membership must follow each op's own
nn_module_stack: the gelus and the mean belong to Model, not to the conv / norm that consumes them."""
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.act = nn.ReLU()

    def forward(self, x):
        return self.act(self.lin(x)) * 2.0          # the mul: Block's own forward


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(4, 8, 3, padding=1)
        self.conv2 = nn.Conv1d(8, 8, 3, padding=1)
        self.block = Block()
        self.norm = nn.LayerNorm(8)

    def forward(self, x):
        x = nn.functional.gelu(self.conv1(x))       # root-level gelu, consumed by conv2
        x = nn.functional.gelu(self.conv2(x))       # root-level gelu, consumed by permute
        x = x.permute(0, 2, 1)
        return self.norm(self.block(x).mean(dim=1))  # root-level mean, consumed by the norm


def get_model():
    torch.manual_seed(0)
    return Model().eval(), (torch.randn(2, 4, 16),)

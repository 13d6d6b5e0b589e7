"""Three things real models do that a quantizer must get right, in one tiny model:

- a layer called twice (ALBERT's shared layers): `fc` runs on x and on relu(fc(x)), one bias
  parameter, two call sites with different input scales;
- an attention-style mask at float32's limit, `where(cond, 0, finfo.min)`, added to activations
  (GPT-Neo's attention bias);
- a GRU (recurrent ops do matmul work: T·B × the weights' rows·cols).

x [B, 6, 8] → fc → relu → fc → + mask → softmax → GRU(8 → 4) → output [B, 6, 4]
"""
import torch
from torch import nn


class SharedMaskGru(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.gru = nn.GRU(8, 4, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(torch.relu(self.fc(x)))
        mask = torch.where(x[..., :1] > 0, 0.0, torch.finfo(torch.float32).min)
        out, _ = self.gru(torch.softmax(h + mask, dim=-1))
        return out


def get_model():
    torch.manual_seed(0)
    return SharedMaskGru().eval(), (torch.randn(2, 6, 8),)

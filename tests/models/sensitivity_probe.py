"""Small models whose quantization errors sit where they are put (the sensitivity tests).

get_model (the chain) — P → Z → W → C, four convs, fixed weights:
  P  channel 0 carries a bias of 60: the one scale of P's output (per tensor, 2^-1) is coarse for
     its other channels, of order 1;
  Z  a 1×1 conv that never reads channel 0 and writes 0 there: exact inputs, it is fine (high
     local SQNR of its own), but it reads P's coarse output: its *activation* error is large, its
     weight error small;
  W  every output channel has weights of 10 on input channel 0, which is always 0: they add
     nothing, but set each channel's weight scale, so its real weights (of order 0.1) quantize
     coarsely: its *weight* error is large, its activation error small;
  C  a clean 3×3 conv: low local error, but the cumulative error it inherits from Z is large; its
     output channel 0 has weights 20× the others and is dropped from the model's output, so
     per-tensor weights (XNNPACK --per-tensor) cost the other channels, per-channel ones do not.

get_spike — S → add of a constant with one element of 130 in row 0 → slice row 0 away → T:
the add's inputs and output share one scale (constraint 6), set by the spike: 130/127 is just
above 2^0, so min/max rounds the scale up to 2^1; clipping the spike to 127 costs little (and its
row is dropped before T), so the histogram observer takes 2^0, a step half as coarse for
everything else. Keeping the add in float frees S's output from the spike's scale altogether.
"""
import torch
from torch import nn


def _conv(cin: int, cout: int, k: int, generator: torch.Generator) -> nn.Conv2d:
    conv = nn.Conv2d(cin, cout, k, padding=k // 2)
    with torch.no_grad():
        conv.weight.copy_(torch.randn(conv.weight.shape, generator=generator) / (cin * k * k) ** 0.5)
        conv.bias.zero_()
    return conv


class Chain(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.p, self.z, self.w, self.c = _conv(4, 8, 3, g), _conv(8, 8, 1, g), _conv(8, 8, 3, g), _conv(8, 8, 3, g)
        with torch.no_grad():
            self.p.bias[0] = 60.0
            self.z.weight[:, 0] = 0.0
            self.z.weight[0] = 0.0
            self.w.weight[:, 0] = 10.0
            self.c.weight[0] *= 20.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c(self.w(self.z(self.p(x))))[:, 1:]     # C's loud channel 0 is no output


class Spike(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(1)
        self.s, self.t = _conv(4, 8, 3, g), _conv(8, 8, 3, g)
        spike = torch.zeros(1, 8, 8, 8)
        spike[0, 1, 0, 0] = 130.0
        self.register_buffer("spike", spike)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.s(x) + self.spike
        return self.t(y[:, :, 1:, :])


def get_model():
    return Chain().eval(), (torch.randn(1, 4, 8, 8, generator=torch.Generator().manual_seed(2)),)


def get_spike():
    return Spike().eval(), (torch.randn(1, 4, 8, 8, generator=torch.Generator().manual_seed(3)),)

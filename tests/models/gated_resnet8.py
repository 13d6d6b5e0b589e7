"""The zoo's resnet8 whose output passes through a gate: a custom op (torch.library) that waits,
when it really runs, until the file named by $VPU_TEST_GATE exists. torch.export traces it with
its fake implementation, so the run goes as far as the exported graph and its predicted partition,
then waits in calibration (the first real execution) for as long as a test looks at the
prediction. The gate is an op outside the VPU op list: a CPU node, predicted and final alike."""
import os
import time

import torch
from torch import nn

from vpu_core.zoo import build_zoo_model

if not hasattr(torch.ops, "vpu_test") or not hasattr(torch.ops.vpu_test, "gate"):
    @torch.library.custom_op("vpu_test::gate", mutates_args=())
    def gate(x: torch.Tensor) -> torch.Tensor:
        while not os.path.exists(os.environ["VPU_TEST_GATE"]):
            time.sleep(0.02)
        return x.clone()

    @gate.register_fake
    def _(x):
        return torch.empty_like(x)


class Gated(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.net = build_zoo_model("resnet8")

    def forward(self, x):
        return torch.ops.vpu_test.gate(self.net(x))


def get_model():
    return Gated(), (torch.randn(1, 3, 32, 32, generator=torch.Generator().manual_seed(0)),)

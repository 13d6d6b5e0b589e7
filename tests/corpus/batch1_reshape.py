"""A model written for batch 1: a keyword-spotting CNN whose head flattens with a hard-coded
`reshape(1, -1)`, as deployment code often does. It traces at its own batch 1 only; asking for
another batch must say that the batch was changed, and from what to what."""
import torch
from torch import nn


class KeywordCNN(nn.Module):
    def __init__(self, n_mels: int = 20, frames: int = 32, classes: int = 8) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AvgPool2d(2),
        )
        self.head = nn.Linear(32 * (n_mels // 4) * (frames // 4), classes)

    def forward(self, mfcc: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(mfcc).reshape(1, -1))


def get_model():
    torch.manual_seed(0)
    return KeywordCNN().eval(), (torch.randn(1, 1, 20, 32),)

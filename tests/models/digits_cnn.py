"""A small CNN trained in seconds on scikit-learn's digits (1,797 8×8 images, shipped with the
package: nothing is downloaded), so that a metric of it is a real accuracy.

The first 1,257 images train it (seeded, one thread: the same weights on every run), the other
540 are the test split `digits_eval.top1` scores. The trained weights are kept in the file
$DIGITS_CNN_WEIGHTS names, when set (the test session sets it: one training per session); without
it every load trains again (a few seconds). The example inputs, a batch of 16 training
images, are what synthetic calibration follows (their range, mean and spread).
"""
import os

import torch
from torch import nn

TRAIN = 1257
BATCH = 16


def digits() -> tuple[torch.Tensor, torch.Tensor]:
    """All 1,797 images as 1×8×8 float tensors in [0, 1], and their labels."""
    from sklearn.datasets import load_digits

    data = load_digits()
    x = torch.tensor(data.images, dtype=torch.float32).unsqueeze(1) / 16.0
    return x, torch.tensor(data.target, dtype=torch.int64)


def network() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))


def train(model: nn.Module, x: torch.Tensor, y: torch.Tensor, epochs: int = 15) -> nn.Module:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)                 # one thread: sums in one order, the same weights each time
    try:
        gen = torch.Generator().manual_seed(0)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
        model.train()
        for _ in range(epochs):
            order = torch.randperm(len(x), generator=gen)
            for start in range(0, len(x), 128):
                idx = order[start:start + 128]
                optimizer.zero_grad()
                nn.functional.cross_entropy(model(x[idx]), y[idx]).backward()
                optimizer.step()
    finally:
        torch.set_num_threads(threads)
    return model.eval()


def trained() -> nn.Module:
    model = network()
    path = os.environ.get("DIGITS_CNN_WEIGHTS")
    if path and os.path.exists(path):
        model.load_state_dict(torch.load(path, weights_only=True))
        return model.eval()
    x, y = digits()
    train(model, x[:TRAIN], y[:TRAIN])
    if path:
        torch.save(model.state_dict(), path)
    return model


def get_model():
    x, _ = digits()
    return trained(), (x[:BATCH],)

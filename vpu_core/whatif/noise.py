"""How precise is an SQNR change measured on one held-out batch? A jackknife over its samples.

The change between two quantized graphs against the same float outputs f is
    ΔSQNR = 10·log10(N_a / N_b),  N = Σ (f − q)²   (the signal Σ f² cancels),
and leaving one sample out at a time gives its jackknife standard error. A model whose output is
a few logits per sample makes this noise a decibel or more: a change smaller than about twice
the standard error is rounding luck, not a property of the constraint.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import math

import torch
from torch.utils._pytree import tree_leaves

if TYPE_CHECKING:
    from torch.fx import GraphModule

MIN_SAMPLES = 4            # fewer samples give no useful spread


def run_outputs(gm: GraphModule, batch: tuple) -> object:
    with torch.no_grad():
        return gm(*batch)


def sample_noise(ref: object, test: object, n: int) -> torch.Tensor | None:
    """Σ (f − q)² per sample (dim 0) over the output tensors that carry the batch dimension."""
    pairs = [(r, t) for r, t in zip(tree_leaves(ref), tree_leaves(test))
             if isinstance(r, torch.Tensor) and isinstance(t, torch.Tensor) and r.is_floating_point()
             and r.shape == t.shape and r.dim() > 0 and r.shape[0] == n]
    if not pairs:
        return None
    return sum(((r.double() - t.double()) ** 2).reshape(n, -1).sum(1) for r, t in pairs)


def delta_se_db(noise_a: torch.Tensor | None, noise_b: torch.Tensor | None) -> float | None:
    """Jackknife standard error of 10·log10(Σ noise_a / Σ noise_b), in dB (None if not estimable)."""
    if noise_a is None or noise_b is None or noise_a.numel() < MIN_SAMPLES:
        return None
    n = noise_a.numel()
    rest_a, rest_b = noise_a.sum() - noise_a, noise_b.sum() - noise_b
    if bool((rest_a <= 0).any() or (rest_b <= 0).any()):
        return None
    loo = 10.0 * torch.log10(rest_a / rest_b)
    se = math.sqrt((n - 1) / n * float(((loo - loo.mean()) ** 2).sum()))
    return se if math.isfinite(se) else None

"""torchao's HistogramObserver with the same min/max search, minus its Python-level slowness.

`HistogramObserver._non_linear_param_search` (XNNPACK's static activation observer) walks two
quantile bounds alpha ↑ and beta ↓ in steps of 1e-5; at every step it scans the cumulative
histogram `cSum` with 0-d tensor indexing (`cSum[l] < next_alpha * total`), and whenever the
bounds cross a bin it calls `_compute_quantization_error` (~25 small tensor ops) for the new
(start_bin, end_bin). On untrained models (activations collapsed towards zero, long sparse
tails) both costs explode: ~10^5 loop steps and ~10^3 error evaluations per observer.

`FastHistogramObserver` runs the *same* algorithm and returns bit-identical min/max (hence
identical scale and zero point):

* Bounds: the alpha / beta sequences are the same Python-float additions (`alpha + 1e-5`),
  precomputed once: entry k is the double the stock loop holds after k moves of that bound.
* Comparisons: torch compares a float32 tensor with a Python float in float32 (the float is
  cast, round to nearest even); the thresholds `float32(next_alpha * total)` are the same double
  product with the same cast, compared in float32 by numpy.
* Scans: `cSum` is torch's own cumsum (copied, not recomputed) of a non-negative histogram, so
  it is non-decreasing and the bin-by-bin scans equal binary searches (`searchsorted`) clamped
  to the same [start_bin, end_bin] window.
* Idle steps: a step that moves neither bin (`l == start_bin`, `r == end_bin`) only advances
  beta; a run of them is skipped with one binary search (to the first step where the right
  scan moves, or where alpha >= beta ends the loop).
* Errors: the error of the next few candidate (start_bin, end_bin) pairs — the ones the loop
  reaches if it keeps accepting — is computed in one batch (histogram_error.py: torchao's
  `_compute_quantization_error` op for op, one row per candidate, bit-identical). The loop then
  takes the same `norm > norm_min` decisions in the same order; candidates past a break are
  discarded.

Guards: anything unusual (NaN / inf in the histogram, a non-monotone cumsum, more steps than
precomputed) falls back to the stock search; if the installed torchao's search or error code
differs from the version this was verified against (`verified_against_installed_torchao`),
the stock search runs. `calculate_qparams` is memoised until the observer sees new data:
convert_pt2e and the derived / shared specs that ask again get the same values at no cost.
"""
from __future__ import annotations

import functools
import hashlib
import math
from bisect import bisect_left, bisect_right

import numpy as np
import torch
from torchao.quantization.pt2e.observer import HistogramObserver

from vpu_core.quantizers.histogram_error import QuantizationErrors

_STEP = 1e-5            # HistogramObserver's granularity (a literal inside its search)
_MAX_STEPS = 100_010    # alpha and beta meet after ~10^5 moves in total
# Fingerprints of torchao 0.18.0's HistogramObserver code this module replicates (see _fingerprint).
VERIFIED_FINGERPRINT = "025b100f2ab6"


class FastHistogramObserver(HistogramObserver):
    """HistogramObserver whose qparams come from the fast, identical search."""

    def forward(self, x_orig: torch.Tensor) -> torch.Tensor:
        self._memo = None
        return super().forward(x_orig)

    def calculate_qparams(self) -> tuple[torch.Tensor, torch.Tensor]:
        memo = getattr(self, "_memo", None)
        if memo is None:
            memo = super().calculate_qparams()
            self._memo = memo
        return memo[0].clone(), memo[1].clone()

    def _non_linear_param_search(self) -> tuple[torch.Tensor, torch.Tensor]:
        bins = search_bins(self) if verified_against_installed_torchao() else None
        if bins is None:
            return super()._non_linear_param_search()
        start_bin, end_bin = bins
        bin_width = (self.max_val - self.min_val) / self.bins   # the stock tail, verbatim
        new_min = self.min_val + bin_width * start_bin
        new_max = self.min_val + bin_width * (end_bin + 1)
        return new_min, new_max


def _fingerprint() -> str:
    """Hash of the source of the stock methods this module replicates."""
    import inspect

    fns = (HistogramObserver._non_linear_param_search, HistogramObserver._compute_quantization_error,
           HistogramObserver._get_norm, HistogramObserver.calculate_qparams)
    return hashlib.sha256("\n".join(inspect.getsource(f) for f in fns).encode()).hexdigest()[:12]


@functools.lru_cache(maxsize=1)
def verified_against_installed_torchao() -> bool:
    try:
        return _fingerprint() == VERIFIED_FINGERPRINT
    except (OSError, TypeError):  # no source to compare: trust only the stock code
        return False


@functools.lru_cache(maxsize=1)
def _bounds() -> tuple[list[float], list[float], list[float], np.ndarray, np.ndarray]:
    """alpha after k moves, beta after k moves (the stock loop's exact doubles), -beta, and the
    next alpha / next beta of each step as arrays."""
    alphas, betas = [0.0], [1.0]
    a, b = 0.0, 1.0
    for _ in range(_MAX_STEPS):
        a = a + _STEP
        b = b - _STEP
        alphas.append(a)
        betas.append(b)
    return alphas, betas, [-b for b in betas], np.array(alphas[1:]), np.array(betas[1:])


class _Walk:
    """The stock loop's state machine, stepping from one bin move to the next.

    Float32 values are held as Python floats (exact: float32 ⊂ float64), so bisect on lists
    compares exactly what torch compares.
    """

    def __init__(self, csum: np.ndarray, total: float) -> None:
        self.alphas, self.betas, self.neg_betas, next_alphas, next_betas = _bounds()
        self.csum = csum.tolist()
        # The loop compares cSum[i] with next_alpha * total (next_alpha = alphas[k + 1]): a double
        # product, which torch casts to float32.
        self.thr_lo = (next_alphas * total).astype(np.float32).tolist()
        thr_hi = (next_betas * total).astype(np.float32)
        self.thr_hi = thr_hi.tolist()
        self.neg_thr_hi = (-thr_hi).tolist()                               # non-decreasing

    def next_move(self, start: int, end: int, ia: int, ib: int):
        """(next_start, next_end, ia, ib) of the next step that moves a bin; None when the loop ends."""
        csum, alphas, betas = self.csum, self.alphas, self.betas
        while alphas[ia] < betas[ib]:
            if ia >= _MAX_STEPS or ib >= _MAX_STEPS:
                raise _Unusual()
            l = min(max(bisect_left(csum, self.thr_lo[ia]), start), end)       # first cSum >= thr
            r = max(min(bisect_right(csum, self.thr_hi[ib]) - 1, end), start)  # last cSum <= thr
            if (l - start) > (end - r):
                return l, end, ia + 1, ib
            if r != end:
                return start, r, ia, ib + 1
            ib = self._skip_idle(ia, ib + 1, start, end)
        return None

    def _skip_idle(self, ia: int, ib: int, start: int, end: int) -> int:
        """The first beta step from `ib` on at which something happens again.

        In an idle step alpha stays and so does the left scan; steps stay idle while the right
        scan stays at `end` (cSum[end] <= threshold) and the loop goes on (alpha < beta); both
        conditions turn false once and stay false (beta and its thresholds only decrease).
        """
        stop = bisect_left(self.neg_betas, -self.alphas[ia])        # first beta <= alpha
        moves = len(self.neg_thr_hi)
        if end > start:                                              # first threshold < cSum[end]
            moves = bisect_right(self.neg_thr_hi, -self.csum[end])
        return max(ib, min(stop, moves))


class _Unusual(Exception):
    """Input the fast search does not handle: run the stock one."""


def search_bins(obs: HistogramObserver) -> tuple[int, int] | None:
    """(start_bin, end_bin) exactly as HistogramObserver's loop ends them; None: use the stock loop."""
    if obs.histogram.size()[0] != obs.bins or obs.histogram.dtype != torch.float32:
        return None
    total = torch.sum(obs.histogram).item()
    csum = torch.cumsum(obs.histogram, dim=0).detach().cpu().numpy()
    if not math.isfinite(total) or not np.isfinite(csum).all() or (np.diff(csum) < 0).any():
        return None
    walk, errors = _Walk(csum, total), QuantizationErrors(obs)
    start, end, ia, ib = 0, obs.bins - 1, 0, 0
    norm_min = float("inf")
    batch = 2
    try:
        while True:
            moves: list = []
            state = (start, end, ia, ib)
            while len(moves) < batch:          # the moves the loop makes if it keeps accepting
                move = walk.next_move(*state)
                if move is None:
                    break
                moves.append(move)
                state = move
            if not moves:
                return start, end
            norms = errors.of([m[0] for m in moves], [m[1] for m in moves])
            for (next_start, next_end, ia, ib), norm in zip(moves, norms):
                if norm > norm_min:
                    return start, end
                norm_min, start, end = norm, next_start, next_end
            batch = min(4 * batch, errors.max_batch)
    except _Unusual:
        return None

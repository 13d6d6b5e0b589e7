"""FastHistogramObserver gives exactly torchao's HistogramObserver qparams, on crafted histograms.

Each case sets an observer's histogram / min / max directly and compares the fast search with the
stock one (torchao's own method called on the same state), bit for bit.
"""
import math
import random

import pytest
import torch
from torchao.quantization.pt2e.observer import HistogramObserver

from vpu_core.quantizers import fast_observers as fo
from vpu_core.quantizers.histogram_error import batched_errors, rowwise_sum_is_row_sum


def observer(histogram, lo: float, hi: float) -> fo.FastHistogramObserver:
    obs = fo.FastHistogramObserver(dtype=torch.int8, quant_min=-128, quant_max=127, eps=2 ** -12)
    hist = torch.as_tensor(histogram, dtype=torch.float32)
    obs.histogram.resize_(hist.shape).copy_(hist)
    obs.min_val.copy_(torch.tensor(lo))
    obs.max_val.copy_(torch.tensor(hi))
    return obs


def spike(bins: dict[int, float]) -> torch.Tensor:
    hist = torch.zeros(2048)
    for i, count in bins.items():
        hist[i] = count
    return hist


def _fed(*tensors) -> fo.FastHistogramObserver:
    obs = fo.FastHistogramObserver(dtype=torch.int8, quant_min=-128, quant_max=127, eps=2 ** -12)
    for t in tensors:
        obs(t)
    return obs


gen = torch.Generator().manual_seed(0)
CASES = {
    # one bin holds everything (a constant activation): the stock loop runs all its ~10^5 steps
    "one_bin": lambda: observer(spike({1024: 4096.0}), -1.0, 1.0),
    "one_bin_at_edge": lambda: observer(spike({0: 100.0}), 3.0, 3.0 + 1e-3),
    "min_equals_max": lambda: observer(spike({0: 50.0}), 2.5, 2.5),
    "two_bins": lambda: observer(spike({0: 1000.0, 2047: 10.0}), 0.0, 1.0),
    # saturating ReLU6 / sigmoid: mass piled at both ends of the range
    "relu6_saturating": lambda: _fed(torch.clamp(torch.randn(20000, generator=gen) * 10, 0, 6)),
    "sigmoid_saturating": lambda: _fed(torch.sigmoid(torch.randn(8000, generator=gen) * 20)),
    "collapsed_with_outlier": lambda: _fed(torch.cat([torch.randn(20000, generator=gen) * 1e-3,
                                                     torch.tensor([40.0])])),
    "tiny_range": lambda: _fed(torch.randn(5000, generator=gen) * 1e-7),
    "gaussian": lambda: _fed(torch.randn(4000, generator=gen)),
    "several_batches": lambda: _fed(torch.randn(500, generator=gen), torch.rand(500, generator=gen) * 9 - 1,
                                    torch.randn(300, generator=gen) * 0.1),
    "sparse_counts": lambda: observer(torch.bernoulli(torch.full((2048,), 0.05), generator=gen)
                                      * torch.rand(2048, generator=gen) * 7, -3.0, 5.0),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_fast_search_gives_the_stock_min_max_and_qparams(case):
    obs = CASES[case]()
    stock_min, stock_max = HistogramObserver._non_linear_param_search(obs)
    fast_min, fast_max = obs._non_linear_param_search()
    assert fo.search_bins(obs) is not None  # the fast path ran (no fallback)
    assert torch.equal(fast_min, stock_min) and torch.equal(fast_max, stock_max)
    stock = HistogramObserver.calculate_qparams(obs)
    fast = obs.calculate_qparams()
    assert torch.equal(fast[0], stock[0]) and torch.equal(fast[1], stock[1])


def test_unusual_histograms_fall_back_to_the_stock_search():
    obs = observer(spike({3: float("nan")}), 0.0, 1.0)
    assert fo.search_bins(obs) is None
    negative = observer(spike({3: 5.0, 9: -2.0}), 0.0, 1.0)
    assert fo.search_bins(negative) is None  # cumsum not monotone: the scans are not searches


def test_batched_errors_equal_the_stock_error_function_bit_for_bit():
    rnd = random.Random(3)
    for case in ("gaussian", "sparse_counts", "collapsed_with_outlier", "two_bins", "min_equals_max"):
        obs = CASES[case]()
        pairs = [(0, 2047), (0, 0), (2047, 2047), (5, 5)]
        for _ in range(40):
            a = rnd.randrange(2048)
            pairs.append((a, rnd.randrange(a, 2048)))
        for chunk in (pairs[:1], pairs[1:16], pairs[16:]):
            got = batched_errors(obs, [p[0] for p in chunk], [p[1] for p in chunk])
            want = [obs._compute_quantization_error(a, b) for a, b in chunk]
            assert [g == w or (math.isnan(g) and math.isnan(w)) for g, w in zip(got, want)] == [True] * len(chunk), case


def test_guards_hold_for_the_installed_libraries():
    # A different torchao (search / error code) or a torch whose row-wise sums add in another
    # order must be re-verified: the observer would silently fall back / sum row by row.
    assert fo.verified_against_installed_torchao()
    assert rowwise_sum_is_row_sum()


def test_qparams_are_computed_once_until_new_data():
    obs = _fed(torch.randn(1000, generator=gen))
    calls = []
    search = obs._non_linear_param_search
    obs._non_linear_param_search = lambda: calls.append(1) or search()
    first, second = obs.calculate_qparams(), obs.calculate_qparams()
    assert len(calls) == 1 and torch.equal(first[0], second[0])
    obs(torch.randn(1000, generator=gen) * 3)
    obs.calculate_qparams()
    assert len(calls) == 2


def test_xnnpack_quantizer_uses_fast_observers_unless_reference_is_asked():
    from vpu_core.targets.xnnpack.quantizer import make_xnnpack_quantizer

    fast = make_xnnpack_quantizer().global_config
    stock = make_xnnpack_quantizer(reference_observers=True).global_config
    assert fast.input_activation.observer_or_fake_quant_ctr.p.func is fo.FastHistogramObserver
    assert fast.output_activation.observer_or_fake_quant_ctr.p.keywords == {"eps": 2 ** -12}
    assert stock.input_activation.observer_or_fake_quant_ctr.p.func is HistogramObserver
    assert fast.weight == stock.weight   # weights keep ExecuTorch's PerChannelMinMaxObserver

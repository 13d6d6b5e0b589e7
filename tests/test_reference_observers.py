"""The fast observers and torchao's stock ones (--reference-observers) give the same quantization.

End to end on zoo and corpus graphs (every scale and zero point, and the rest of the report), and
on real activation histograms of an untrained transformers MobileViT (tests/corpus/mobilevit_hybrid.py
calibrated under XNNPACK), the case where the stock search takes seconds per observer.
"""
import json
from pathlib import Path

import numpy as np
import pytest
import torch
from torchao.quantization.pt2e.observer import HistogramObserver

from vpu_core.config import RunConfig
from vpu_core.quantizers.fast_observers import FastHistogramObserver, search_bins
from vpu_core.reports.json_report import analysis_to_json
from vpu_core.session import Session

DATA = Path(__file__).parent / "data" / "mobilevit_hybrid_histograms.npz"


def test_check_resnet8_xnnpack_same_tensors_with_reference_observers(capsys):
    from app.cli import main

    outputs = []
    for extra in ([], ["--reference-observers"]):
        code = main(["check", "resnet8", "--quantizer", "xnnpack", "--calib-batches", "2",
                     "--format", "json", *extra])
        out, err = capsys.readouterr()
        assert code in (0, 1), err
        outputs.append(json.loads(out))
    fast, reference = outputs
    assert fast["tensors"] == reference["tensors"] and len(fast["tensors"]) > 20
    fast.pop("timings_s"), reference.pop("timings_s")
    for t in [*fast["targets"].values(), *reference["targets"].values()]:   # this run's times and cache hits
        t.pop("timings_s", None), t.pop("from_cache", None)
    assert fast == reference


def _report(model: str, reference: bool) -> dict:
    config = RunConfig(model=model, quantizer="xnnpack", calib_batches=2, batch_size=4,
                       reference_observers=reference)
    data = analysis_to_json(Session(disk_cache=False).inspect(config, view=None).analysis)
    data.pop("timings_s")
    return data


@pytest.mark.parametrize("model", [
    pytest.param("mobilenet_v2", marks=pytest.mark.slow),                # ReLU6: saturates at 6
    "transformer",                                    # softmax / gelu / layer_norm
    pytest.param("inception_lite", marks=pytest.mark.slow),              # sigmoid gate, cat
    pytest.param("tests/corpus/vit_vision.py", marks=pytest.mark.slow),  # real transformers graph
    pytest.param("tests/corpus/resnet_bn.py", marks=pytest.mark.slow),
])
def test_fast_and_reference_observers_quantize_identically(model):
    fast, reference = _report(model, False), _report(model, True)
    assert [(t["node"], t["scales"], t["zero_points"]) for t in fast["tensors"]] == \
           [(t["node"], t["scales"], t["zero_points"]) for t in reference["tensors"]]
    assert fast == reference


def _real_observers():
    with np.load(DATA, allow_pickle=False) as data:
        names = sorted({k.rsplit("_", 1)[0] for k in data.files})
        for name in names:
            obs = FastHistogramObserver(dtype=torch.int8, quant_min=-128, quant_max=127, eps=2 ** -12)
            obs.histogram.copy_(torch.from_numpy(data[f"{name}_histogram"]))
            lo, hi = data[f"{name}_range"].tolist()
            obs.min_val.copy_(torch.tensor(lo))
            obs.max_val.copy_(torch.tensor(hi))
            yield name, obs


def test_real_untrained_mobilevit_histograms_give_stock_qparams():
    seen = 0
    for name, obs in _real_observers():
        assert search_bins(obs) is not None, name
        stock = HistogramObserver.calculate_qparams(obs)
        fast = obs.calculate_qparams()
        assert torch.equal(fast[0], stock[0]) and torch.equal(fast[1], stock[1]), name
        seen += 1
    assert seen == 5

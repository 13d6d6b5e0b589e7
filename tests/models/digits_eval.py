"""`--eval` functions for tests/models/digits_cnn.py: a real metric, and each way of getting one wrong."""
import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("digits_cnn", Path(__file__).with_name("digits_cnn.py"))
_digits = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_digits)             # the model file beside this one: its data and split
TRAIN, digits = _digits.TRAIN, _digits.digits


def top1(model):
    """Top-1 accuracy in % on the 540 test images (never trained on)."""
    x, y = digits()
    logits = model(x[TRAIN:])
    return 100.0 * float((logits.argmax(dim=1) == y[TRAIN:]).float().mean())


def raises(model):
    raise RuntimeError("no data here")


def returns_text(model):
    return "ninety percent"


def two_arguments(model, data):
    return 0.0


not_a_function = 42

"""The user's own metric: `--eval FILE.py:fn`, fn(model) -> a number (e.g. top-1 on their data).

fn receives a callable model — `model(*inputs)` returns what the original model returns — and is
called for the float model, the quantized one and every fix. The graphs behind it were exported
at one batch size, so the callable cuts a larger (or smaller) batch into chunks of that size along
dim 0 (the last chunk padded by repeating its last sample, the padding dropped again) and
concatenates the outputs: fn can pass its whole evaluation set at once.

A function that cannot be used is refused with one sentence (an InspectorError: exit 2 on the
command line, a dialog in the window): a missing file or name, a name that is not a function of
one argument, a call that raises, a result that is not a finite real number.
"""
from __future__ import annotations

import importlib.util
import inspect
import math
import numbers
import sys
import traceback
from typing import Any, Callable

import torch
from torch.utils._pytree import tree_flatten, tree_unflatten

from vpu_core.errors import InspectorError, short_reason
from vpu_core.sensitivity.options import MetricError, check_spec, split_spec

def load_metric(spec: str) -> Callable[[Any], Any]:
    """The function `spec` names, checked to take one argument."""
    check_spec(spec)
    path, name = split_spec(spec)
    module_name = f"_vpu_user_metric_{abs(hash(str(path.resolve())))}"
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise MetricError(f"--eval {spec}: {path} is not a Python file Python can import.")
    module = importlib.util.module_from_spec(loader_spec)
    try:
        loader_spec.loader.exec_module(module)
    except Exception as exc:
        raise MetricError(f"--eval {spec}: importing {path.name} raised {type(exc).__name__}: "
                          f"{short_reason(exc)}.", traceback.format_exc()) from None
    finally:
        sys.modules.pop(module_name, None)
    fn = getattr(module, name, None)
    if fn is None:
        raise MetricError(f"--eval {spec}: {path.name} has no function '{name}'.")
    if not callable(fn):
        raise MetricError(f"--eval {spec}: '{name}' is a {type(fn).__name__}, not a function.")
    try:
        inspect.signature(fn).bind(object())
    except TypeError:
        raise MetricError(f"--eval {spec}: '{name}' must take one argument (the model), its signature "
                          f"is {name}{inspect.signature(fn)}.") from None
    except ValueError:          # a builtin without a signature: the call will tell
        pass
    return fn


class CallableModel:
    """A graph of one batch size as a model of any batch (see the module docstring). `structure`:
    the float model's output structure (a TreeSpec) — a converted program read back from the
    cache returns a flat tuple of tensors, given back to fn in the model's own shape."""

    def __init__(self, gm: Callable[..., Any], batch: int, structure: Any = None) -> None:
        self.gm, self.batch, self.structure = gm, batch, structure

    def eval(self) -> CallableModel:        # a user's fn may call model.eval(): nothing to change
        return self

    def __call__(self, *inputs: Any) -> Any:
        with torch.no_grad():
            n = _rows(inputs)
            if n is None or n == self.batch:
                return self._shaped(self.gm(*inputs))
            outs = [self._shaped(self.gm(*_chunk(inputs, start, self.batch))) for start in range(0, n, self.batch)]
            return _joined(outs, n, self.batch)

    def _shaped(self, out: Any) -> Any:
        if self.structure is None:
            return out
        leaves, spec = tree_flatten(out)
        if spec == self.structure or len(leaves) != self.structure.num_leaves:
            return out
        return tree_unflatten(leaves, self.structure)


def output_structure(float_gm: Callable[..., Any], example_inputs: tuple) -> Any:
    """The TreeSpec of the float model's output (one run on its example inputs)."""
    with torch.no_grad():
        return tree_flatten(float_gm(*example_inputs))[1]


def _rows(inputs: tuple) -> int | None:
    first = next((t for t in inputs if isinstance(t, torch.Tensor) and t.dim()), None)
    return int(first.shape[0]) if first is not None else None


def _chunk(inputs: tuple, start: int, size: int) -> tuple:
    def cut(t: Any) -> Any:
        if not isinstance(t, torch.Tensor) or not t.dim():
            return t
        part = t[start:start + size]
        if part.shape[0] < size:       # pad with the last sample, dropped from the outputs again
            part = torch.cat([part, part[-1:].expand(size - part.shape[0], *part.shape[1:])])
        return part
    return tuple(cut(t) for t in inputs)


def _joined(outs: list[Any], n: int, size: int) -> Any:
    flat = [tree_flatten(o) for o in outs]
    leaves, spec = flat[0]
    joined = []
    for i, leaf in enumerate(leaves):
        if isinstance(leaf, torch.Tensor) and leaf.dim() and leaf.shape[0] == size:
            joined.append(torch.cat([f[0][i] for f in flat])[:n])
        else:
            joined.append(leaf)
    return tree_unflatten(joined, spec)


def metric_of(fn: Callable[[Any], Any], spec: str, model: CallableModel, what: str) -> float:
    """fn(model) as a float; a MetricError when it raises or returns something else."""
    try:
        value = fn(model)
    except InspectorError:
        raise
    except Exception as exc:
        raise MetricError(f"--eval {spec}: calling it on the {what} model raised {type(exc).__name__}: "
                          f"{short_reason(exc)}.", traceback.format_exc()) from None
    number = _number(value)
    if number is None:
        raise MetricError(f"--eval {spec}: it must return a number, it returned {_shown(value)} "
                          f"for the {what} model.")
    return number


def _number(value: Any) -> float | None:
    if isinstance(value, torch.Tensor) and value.numel() == 1 and not value.dtype == torch.bool:
        value = value.item()
    elif hasattr(value, "item") and getattr(value, "shape", None) == ():   # a numpy scalar
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _shown(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:40] + '…' if len(text) > 40 else text}"


def batch_of(example_inputs: tuple) -> int:
    """The exported batch: dim 0 of the first input that has one (1 without any)."""
    return _rows(example_inputs) or 1


def graph_metric(fn: Callable[[Any], Any], spec: str, gm: Callable[..., Any], example_inputs: tuple,
                 what: str, structure: Any = None) -> float:
    """fn of a graph of the model exported with `example_inputs`, as a callable model of any batch
    whose outputs have `structure` (output_structure of the float model)."""
    return metric_of(fn, spec, CallableModel(gm, batch_of(example_inputs), structure), what)

"""Analysis ↔ JSON, exactly: decode(encode(a)) has the same types and the same values as `a`.

Plain JSON loses tuples, dict key types and non-finite floats, so values are tagged:

    {"$t": [...]}            tuple                 [...]   list
    {"$d": [[k, v], ...]}    dict (keys any type, order kept)
    {"$f": "nan"|"inf"|"-inf"}  non-finite float   1.5     float (repr round-trips exactly)
    {"$c": "RuleInfo", "v": {field: value}}   one of the frozen dataclasses of the result modules
                                              the caller names (analysis.results by default)

Decoding builds only those dataclasses (looked up by name in a fixed table) from plain values:
nothing is imported, evaluated or unpickled. Anything else in an Analysis (a numpy scalar, a
torch object, another dataclass) makes `encode` raise TypeError: such a result is not cached.
"""
from __future__ import annotations

from typing import Any, Sequence

import dataclasses
import functools
import importlib
import json
import math

_FLOAT_TAGS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
DEFAULT_MODULES = ("vpu_core.analysis.results",)


@functools.lru_cache(maxsize=16)
def _classes(modules: tuple[str, ...] = DEFAULT_MODULES) -> dict[str, type]:
    """The result dataclasses of `modules` by name (result modules import no torch)."""
    table = {}
    for module in map(importlib.import_module, modules):
        for name, cls in vars(module).items():
            if isinstance(cls, type) and dataclasses.is_dataclass(cls) and cls.__module__ == module.__name__:
                assert name not in table, f"two result classes named {name}"
                table[name] = cls
    return table


def _enc(x, classes: dict[str, type]):
    if x is None or isinstance(x, (bool, str)):
        return x
    if type(x) is int:
        return x
    if type(x) is float:
        if math.isfinite(x):
            return x
        return {"$f": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}
    if type(x) is tuple:
        return {"$t": [_enc(v, classes) for v in x]}
    if type(x) is list:
        return [_enc(v, classes) for v in x]
    if type(x) is dict:
        return {"$d": [[_enc(k, classes), _enc(v, classes)] for k, v in x.items()]}
    if dataclasses.is_dataclass(x) and classes.get(type(x).__name__) is type(x):
        return {"$c": type(x).__name__,
                "v": {f.name: _enc(getattr(x, f.name), classes) for f in dataclasses.fields(x)}}
    raise TypeError(f"cannot cache a value of type {type(x).__name__}")


def _object_hook(classes: dict[str, type]):
    """The decoder of one JSON object, called by json's parser innermost first (its values are
    decoded already): a tag becomes its value; a dataclass's field map stays a dict until its
    "$c" object builds the class. Why a hook: a second walk over every decoded value in Python
    (a million of them in BERT-base's 10 MB analysis) doubled its read, 0.55 s against 0.27 s."""

    def hook(x: dict[str, Any]) -> Any:
        if "$t" in x:
            return tuple(x["$t"])
        if "$d" in x:
            return {k: v for k, v in x["$d"]}
        if "$f" in x:
            return _FLOAT_TAGS[x["$f"]]
        if "$c" in x:
            return classes[x["$c"]](**x["v"])
        return x                     # a dataclass's field map ("v"): field names are never tags

    return hook


def encode(result: object, modules: Sequence[str] = DEFAULT_MODULES) -> bytes:
    """JSON bytes of a result made of the dataclasses of `modules`; raises TypeError if it holds
    a value this codec cannot keep."""
    text = json.dumps(_enc(result, _classes(tuple(modules))), separators=(",", ":"), allow_nan=False)
    return text.encode()


def decode(data: bytes, expected: str = "Analysis", modules: Sequence[str] = DEFAULT_MODULES) -> Any:
    """The result of `encode`, an instance of the class named `expected` of `modules`; raises
    ValueError (or KeyError / TypeError) on anything else."""
    classes = _classes(tuple(modules))
    value = json.loads(data.decode(), object_hook=_object_hook(classes))
    if type(value) is not classes[expected]:
        raise ValueError(f"not an {expected}")
    return value

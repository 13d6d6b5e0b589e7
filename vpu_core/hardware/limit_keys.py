"""One per-op limit key of a hardware profile as data — `LimitKey`: its table and key, what kind
of bound it is, which quantity of an op it bounds — with how a value is read from the TOML, how it
is checked, the sentence a failure reads as, and how the what-if relaxes it.

The keys themselves are declared by the kernels they limit (vpu_core.hardware.kernels: conv2d's
kernel_max, …); the [memory] key, which limits every op, is `SRAM` here. vpu_core.hardware.limits
gathers them in their fixed order.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Literal, get_args

from vpu_core.errors import ProfileError
from vpu_core.formatting import human_bytes

LimitKind = Literal["pair_max", "int_max", "multiple", "choice", "bytes_max"]
# The quantities a kernel's `quantities` reads from an op, which its limits bound.
Quantity = Literal["kernel", "stride", "dilation", "groups", "depthwise", "in_channels", "out_channels",
                   "in_features", "out_features", "sram_bytes"]

# [op.conv2d] groups: which grouped convolutions the kernel runs.
GroupsChoice = Literal["any", "one", "one_or_depthwise"]
GROUPS: tuple[GroupsChoice, ...] = get_args(GroupsChoice)


@dataclass(frozen=True)
class LimitKey:
    table: str                   # the kernel's [op.NAME] table ("conv2d", …) or "memory"
    key: str                     # "kernel_max"
    kind: LimitKind
    quantity: Quantity           # the quantity of an op it bounds
    doc: str                     # what it means, one line (docs/profile.md, profile editor tooltips)

    @property
    def id(self) -> str:
        return f"{self.table}.{self.key}"


SRAM = LimitKey("memory", "sram_bytes", "bytes_max", "sram_bytes",
                "one VPU op's int8 inputs + output + weights must fit (bytes; biases not counted)")
_LABEL = {"kernel": "kernel", "stride": "stride", "dilation": "dilation", "in_channels": "input channels",
          "out_channels": "output channels", "in_features": "in_features", "out_features": "out_features"}


def parse_value(limit: LimitKey, value: object, where: str) -> object:
    """The value of one key, normalised (pairs as tuples); ProfileError when it is not valid."""
    def positive(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool) and v >= 1

    if limit.kind == "pair_max":
        pair = [value, value] if positive(value) else value
        if isinstance(pair, list) and len(pair) == 2 and all(positive(v) for v in pair):
            return (pair[0], pair[1])
        raise ProfileError(f"{where} must be two positive integers [H, W] (got {value!r}).")
    if limit.kind == "choice":
        if value in GROUPS:
            return value
        raise ProfileError(f"{where} must be one of {', '.join(GROUPS)} (got {value!r}).")
    if positive(value):
        return value
    raise ProfileError(f"{where} must be a positive integer (got {value!r}).")


def toml_value(value: object) -> object:
    """A normalised value as TOML writes it (pairs as lists)."""
    return list(value) if isinstance(value, tuple) else value


# -- checking ------------------------------------------------------------------------------------

def failure_text(limit: LimitKey, quantities: dict, bound: Any) -> tuple[object, str] | None:
    """(offending value, "kernel 7×7 > 3×3") when `quantities` break `limit` at `bound`, else None.
    A quantity the op does not have (None, e.g. the output channels of a depthwise conv) passes."""
    value = quantities.get(limit.quantity)
    if value is None:
        return None
    return _CHECKS[limit.kind](limit, value, bound, quantities)


def _pair_max(limit, value, bound, quantities):
    if value[0] <= bound[0] and value[1] <= bound[1]:
        return None
    return value, f"{_LABEL[limit.quantity]} {pair_text(value)} > {pair_text(bound)}"


def _int_max(limit, value, bound, quantities):
    return None if value <= bound else (value, f"{_LABEL[limit.quantity]} {value} > {bound}")


def _bytes_max(limit, value, bound, quantities):
    if value <= bound:
        return None
    return value, f"int8 tensors {human_bytes(value)} do not fit {human_bytes(bound)} of SRAM"


def _multiple(limit, value, bound, quantities):
    if value % bound == 0:
        return None
    return value, f"{_LABEL[limit.quantity]} {value} not a multiple of {bound}"


def _choice(limit, value, bound, quantities):
    depthwise = bool(quantities.get("depthwise"))
    if bound == "any" or value == 1 or (bound == "one_or_depthwise" and depthwise):
        return None
    kind = "depthwise" if depthwise else "grouped"
    return value, f"{kind} conv (groups={value}) unsupported"


_CHECKS: dict[LimitKind, Callable] = {"pair_max": _pair_max, "int_max": _int_max, "bytes_max": _bytes_max,
                                "multiple": _multiple, "choice": _choice}


def pair_text(pair: tuple | list) -> str:
    return "×".join(str(v) for v in pair)


def value_text(limit: LimitKey, value: Any) -> str:
    """A bound or an offending value as users read it: "3×3", "512 KiB", "one_or_depthwise"."""
    if isinstance(value, (tuple, list)):
        return pair_text(value)
    if limit.kind == "bytes_max":
        return human_bytes(value)
    return str(value)


# -- relaxing (what-if) --------------------------------------------------------------------------

def relaxations(limit: LimitKey, bound: Any, failing: list) -> list:
    """Candidate new bounds for `limit` that admit some of the `failing` values: the smallest
    step that admits at least one, and the bound that admits all of them (one when they agree)."""
    if not failing:
        return []
    if limit.kind == "pair_max":
        steps = sorted({(max(bound[0], v[0]), max(bound[1], v[1])) for v in failing},
                       key=lambda p: (p[0] * p[1], p))
        whole = (max(p[0] for p in steps), max(p[1] for p in steps))
        return list(dict.fromkeys([steps[0], whole]))
    if limit.kind in ("int_max", "bytes_max"):
        return list(dict.fromkeys([min(failing), max(failing)]))
    if limit.kind == "multiple":
        admits_one = max(d for d in range(1, bound) if bound % d == 0 and any(v % d == 0 for v in failing))
        admits_all = math.gcd(bound, *failing)
        return list(dict.fromkeys([admits_one, admits_all]))
    if limit.kind == "choice":
        return ["one_or_depthwise", "any"] if bound == "one" else ["any"]
    return []

"""Per-op limits of a hardware profile: every key of the [op.NAME] tables and of [memory], with how
it is read from the TOML, how it is checked, the sentence a failure reads as, and how the what-if
relaxes it. Adding a limit is one entry in `LIMITS` (plus its measurement in
vpu_core.analysis.verdict when it bounds a new quantity) and its tests.

A node of a listed op runs on the VPU only when every limit of its kernel's table holds; the
quantities are read from the op's shapes and arguments (vpu_core.analysis.verdict.measure):

    conv2d (and conv1d as 1×k)  kernel (kH, kW), stride (sH, sW), dilation (dH, dW) — conv1d:
                                (1, k), (1, s), (1, d) — compared per dimension; groups;
                                in_channels / out_channels of the whole conv (a depthwise conv,
                                groups = in_channels > 1, checks its channels once: in_channels)
    linear (and its aliases)    in_features, out_features of the weight
    max_pool2d / avg_pool2d     kernel (kH, kW), stride (sH, sW) (stride defaults to the kernel)
    memory                      the op's int8 bytes: every tensor it reads (activations and
                                weights, each once) plus its output, 1 byte per element; a
                                conv / linear bias is not counted; layout-only ops and the
                                profile's fused activations (relu, hardtanh) are not checked

Failures are reported in the order of `LIMITS` (the order above); the first one is the node's
`limit`. A table or key the profile does not set does not constrain anything.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from vpu_core.errors import ProfileError
from vpu_core.formatting import human_bytes

GROUPS = ("any", "one", "one_or_depthwise")


@dataclass(frozen=True)
class LimitKey:
    table: str                   # "conv2d", "linear", "max_pool2d", "avg_pool2d", "memory"
    key: str                     # "kernel_max"
    kind: str                    # "pair_max" | "int_max" | "multiple" | "choice" | "bytes_max"
    measure: str                 # the measured quantity it bounds ("kernel", "in_channels", …)
    doc: str                     # what it means, one line (README, profile editor tooltips)

    @property
    def id(self) -> str:
        return f"{self.table}.{self.key}"


def _conv(key: str, kind: str, measure: str, doc: str) -> LimitKey:
    return LimitKey("conv2d", key, kind, measure, doc)


LIMITS: tuple[LimitKey, ...] = (
    _conv("kernel_max", "pair_max", "kernel", "largest kernel [kH, kW]; conv1d is 1×k"),
    _conv("stride_max", "pair_max", "stride", "largest stride [sH, sW]; conv1d is 1×s"),
    _conv("dilation_max", "pair_max", "dilation", "largest dilation [dH, dW]; conv1d is 1×d"),
    _conv("groups", "choice", "groups", '"any", "one" (no grouped conv) or "one_or_depthwise"'),
    _conv("in_channels_multiple", "multiple", "in_channels",
          "input channels must be a multiple of this (1: any); depthwise convs check channels once"),
    _conv("out_channels_multiple", "multiple", "out_channels",
          "output channels must be a multiple of this (1: any); not checked on a depthwise conv"),
    LimitKey("linear", "in_features_max", "int_max", "in_features", "largest input width"),
    LimitKey("linear", "out_features_max", "int_max", "out_features", "largest output width"),
    LimitKey("max_pool2d", "kernel_max", "pair_max", "kernel", "largest pooling window [kH, kW]"),
    LimitKey("max_pool2d", "stride_max", "pair_max", "stride", "largest pooling stride [sH, sW]"),
    LimitKey("avg_pool2d", "kernel_max", "pair_max", "kernel", "largest pooling window [kH, kW]"),
    LimitKey("avg_pool2d", "stride_max", "pair_max", "stride", "largest pooling stride [sH, sW]"),
    LimitKey("memory", "sram_bytes", "bytes_max", "sram_bytes",
             "one VPU op's int8 inputs + output + weights must fit (bytes; biases not counted)"),
)
BY_ID = {k.id: k for k in LIMITS}
OP_TABLES = tuple(dict.fromkeys(k.table for k in LIMITS if k.table != "memory"))
MEMORY_KEYS = tuple(k.key for k in LIMITS if k.table == "memory")
_LABEL = {"kernel": "kernel", "stride": "stride", "dilation": "dilation", "in_channels": "input channels",
          "out_channels": "output channels", "in_features": "in_features", "out_features": "out_features"}


# -- reading a profile ---------------------------------------------------------------------------

def parse_limits(path: object, op_tables: dict, memory: dict) -> dict[str, object]:
    """{"conv2d.kernel_max": (3, 3), "memory.sram_bytes": 524288, …} from the TOML's [op.*] and
    [memory] tables; ProfileError names the first unknown table or key, or a bad value."""
    out: dict[str, object] = {}
    for table, keys in op_tables.items():
        if table not in OP_TABLES:
            raise ProfileError(f"Hardware profile {path}: unknown op table [op.{table}] "
                               f"(known: {', '.join(f'op.{t}' for t in OP_TABLES)}).")
        if not isinstance(keys, dict):
            raise ProfileError(f"Hardware profile {path}: [op.{table}] must be a table.")
        out.update(_parse_table(path, table, keys))
    return {**out, **_parse_table(path, "memory", memory)}


def _parse_table(path, table: str, keys: dict) -> dict[str, object]:
    out = {}
    known = [k for k in LIMITS if k.table == table]
    names = {k.key: k for k in known}
    where = f"op.{table}" if table != "memory" else "memory"
    for key, value in keys.items():
        if key not in names:
            raise ProfileError(f"Hardware profile {path}: unknown key {where}.{key} "
                               f"(known: {', '.join(names)}).")
        out[names[key].id] = parse_value(names[key], value, f"Hardware profile {path}: {where}.{key}")
    return out


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

def failure_text(limit: LimitKey, measured: dict, bound: Any) -> tuple[object, str] | None:
    """(offending value, "kernel 7×7 > 3×3") when `measured` breaks `limit` at `bound`, else None.
    A quantity the op does not have (None, e.g. the output channels of a depthwise conv) passes."""
    value = measured.get(limit.measure)
    if value is None:
        return None
    return _CHECKS[limit.kind](limit, value, bound, measured)


def _pair_max(limit, value, bound, measured):
    if value[0] <= bound[0] and value[1] <= bound[1]:
        return None
    return value, f"{_LABEL[limit.measure]} {pair_text(value)} > {pair_text(bound)}"


def _int_max(limit, value, bound, measured):
    return None if value <= bound else (value, f"{_LABEL[limit.measure]} {value} > {bound}")


def _bytes_max(limit, value, bound, measured):
    if value <= bound:
        return None
    return value, f"int8 tensors {human_bytes(value)} do not fit {human_bytes(bound)} of SRAM"


def _multiple(limit, value, bound, measured):
    if value % bound == 0:
        return None
    return value, f"{_LABEL[limit.measure]} {value} not a multiple of {bound}"


def _choice(limit, value, bound, measured):
    depthwise = bool(measured.get("depthwise"))
    if bound == "any" or value == 1 or (bound == "one_or_depthwise" and depthwise):
        return None
    kind = "depthwise" if depthwise else "grouped"
    return value, f"{kind} conv (groups={value}) unsupported"


_CHECKS: dict[str, Callable] = {"pair_max": _pair_max, "int_max": _int_max, "bytes_max": _bytes_max,
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

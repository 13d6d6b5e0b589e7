"""Per-op limits of a hardware profile: every key of the [op.NAME] tables and of [memory], gathered
from the kernels that declare them (vpu_core.hardware.kernels: each kernel's `limits` and the
`quantities` that reads them from an op), and read from a profile's TOML here. A key's kind, check,
sentence and relaxation are vpu_core.hardware.limit_keys. Adding a limit to a kernel is one entry
in its module's `LIMITS` (and its quantity in that module's `quantities`) plus its tests.

A node of a listed op runs on the VPU only when every limit of its kernel's table holds; the
quantities are read from the op's shapes and arguments (each kernel's `quantities`):

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

from vpu_core.errors import ProfileError
from vpu_core.hardware.kernels import KERNELS
from vpu_core.hardware.limit_keys import (
    GROUPS, SRAM, LimitKey, failure_text, pair_text, parse_value, relaxations, toml_value, value_text,
)

LIMITS: tuple[LimitKey, ...] = (*(key for spec in KERNELS for key in spec.limits), SRAM)
BY_ID = {k.id: k for k in LIMITS}
OP_TABLES = tuple(dict.fromkeys(k.table for k in LIMITS if k.table != "memory"))
MEMORY_KEYS = tuple(k.key for k in LIMITS if k.table == "memory")


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


__all__ = ["BY_ID", "GROUPS", "LIMITS", "MEMORY_KEYS", "OP_TABLES", "LimitKey", "failure_text", "pair_text",
           "parse_limits", "parse_value", "relaxations", "toml_value", "value_text"]

"""Hardware profile: the VPU op list, constraint switches, shift range and per-op limits, from TOML.

One code path loads every profile (the shipped default and a user's --profile file), and
rejects unknown keys or op names with a clear message rather than silently ignoring them.
The sections are declared once, in `_SCHEMA` (flat key sets) and `_TABLE_SECTIONS` (sections
made of sub-tables, like [op.conv2d]); the per-op limit keys live in vpu_core.hardware.limits.
"""
from __future__ import annotations

import os
import tomllib
from pathlib import Path

from resources import DEFAULT_PROFILE, shipped_profile
from vpu_core.errors import ProfileError
from vpu_core.hardware.constraints import RULE_IDS
from vpu_core.hardware.limits import MEMORY_KEYS, OP_TABLES, parse_limits
from vpu_core.hardware.profile import DEFAULT_BREAK_EVEN_BYTES_PER_MAC, HardwareProfile
from vpu_core.hardware.timing import TIMING_KEYS, parse_timing

_SCHEMA = {
    "profile": {"name", "description"},
    "ops": {"vpu", "shared_scale", "fusable", "fused_activations"},
    "constraints": set(),          # every rule's switch: RULE_IDS
    "requant": {"min_shift", "max_shift", "rounding", "accumulator_bits", "avg_pool_divisor",
                "reciprocal_bits"},
    "economics": {"break_even_bytes_per_mac"},
    "timing": set(TIMING_KEYS),
    "memory": set(MEMORY_KEYS),
}
# Sections made of named sub-tables: [op.conv2d], [op.linear], … (keys: vpu_core.hardware.limits).
_TABLE_SECTIONS = {"op": set(OP_TABLES)}
# Integer simulation (vpu_core.intsim): how the VPU rounds a right shift, how wide its accumulator
# is, and how it divides an average-pool window of K != 2^k values.
ROUNDING_MODES = ("round_half_up", "round_half_even", "truncate")
AVG_POOL_DIVISORS = ("reciprocal", "nearest_shift")


def _known_aten_op(name: str) -> bool:
    import torch

    packet, _, overload = name.partition(".")
    ops = getattr(torch.ops.aten, packet, None)
    if ops is None or not hasattr(ops, "overloads"):
        return False
    return not overload or overload in ops.overloads()


def is_known_op(name: str) -> bool:
    """An ATen op packet ("softmax") or overload ("softmax.int") that a profile may name."""
    return _known_aten_op(name)


def rule_ids() -> tuple[str, ...]:
    """The rules a profile switches in [constraints], in constraint order (vpu_core.hardware.constraints)."""
    return RULE_IDS


def resolve_profile(spec: str | Path | None) -> Path:
    """The file of a profile: a path, or the name of a shipped profile ("edge_npu", "edge-npu")."""
    if not spec:
        return DEFAULT_PROFILE
    path = Path(spec)
    if not os.path.exists(path) and path.suffix == "" and len(path.parts) == 1:
        return shipped_profile(str(spec)) or path
    return path


def load_profile(path: str | Path | None = None) -> HardwareProfile:
    path = resolve_profile(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ProfileError(f"Hardware profile {path} does not exist.") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ProfileError(f"Hardware profile {path} is not valid TOML: {exc}.", repr(exc)) from None
    return parse_profile(text, path)


def parse_profile(text: str, path: str | Path) -> HardwareProfile:
    """The profile in TOML `text` (validated exactly as a file is; `path` names it in messages)."""
    path = Path(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"Hardware profile {path} is not valid TOML: {exc}.", repr(exc)) from None
    _check_keys(path, data)
    ops = data.get("ops", {})
    vpu_ops = _op_list(path, ops, "vpu", required=True)
    constraints = {rid: True for rid in rule_ids()}
    for key, value in data.get("constraints", {}).items():
        if not isinstance(value, bool):
            raise ProfileError(f"Hardware profile {path}: constraints.{key} must be true or false.")
        constraints[key] = value
    requant = data.get("requant", {})
    min_shift, max_shift = requant.get("min_shift", 0), requant.get("max_shift", 31)
    if not (isinstance(min_shift, int) and isinstance(max_shift, int) and min_shift <= max_shift):
        raise ProfileError(f"Hardware profile {path}: requant.min_shift/max_shift must be integers, min ≤ max.")
    meta = data.get("profile", {})
    int_sim = _int_sim_settings(path, requant)
    return HardwareProfile(
        name=str(meta.get("name", path.stem)), description=str(meta.get("description", "")),
        path=str(path), vpu_ops=vpu_ops,
        shared_scale_ops=_op_list(path, ops, "shared_scale"),
        fusable_ops=_op_list(path, ops, "fusable"),
        fused_activations=_op_list(path, ops, "fused_activations"),
        constraints=constraints, min_shift=min_shift, max_shift=max_shift, **int_sim,
        break_even_bytes_per_mac=_break_even(path, data.get("economics", {})),
        timing=parse_timing(path, data.get("timing", {})),
        limits=parse_limits(path, data.get("op", {}), data.get("memory", {})),
    )


def _int_sim_settings(path: Path, requant: dict) -> dict:
    """requant.rounding / accumulator_bits / avg_pool_divisor / reciprocal_bits, validated."""
    out = {"rounding": requant.get("rounding", "round_half_up"),
           "accumulator_bits": requant.get("accumulator_bits", 32),
           "avg_pool_divisor": requant.get("avg_pool_divisor", "reciprocal"),
           "reciprocal_bits": requant.get("reciprocal_bits", 16)}
    for key, allowed in (("rounding", ROUNDING_MODES), ("avg_pool_divisor", AVG_POOL_DIVISORS)):
        if out[key] not in allowed:
            raise ProfileError(f"Hardware profile {path}: requant.{key} must be one of "
                               f"{', '.join(allowed)} (got {out[key]!r}).")
    for key, lo, hi in (("accumulator_bits", 8, 64), ("reciprocal_bits", 1, 30)):
        value = out[key]
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            raise ProfileError(f"Hardware profile {path}: requant.{key} must be an integer "
                               f"from {lo} to {hi} (got {value!r}).")
    return out


def _break_even(path: Path, economics: dict) -> float:
    value = economics.get("break_even_bytes_per_mac", DEFAULT_BREAK_EVEN_BYTES_PER_MAC)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
        raise ProfileError(f"Hardware profile {path}: economics.break_even_bytes_per_mac must be a "
                           "positive number (bytes moved per MAC kept on the VPU).")
    return float(value)


def _check_keys(path: Path, data: dict) -> None:
    for section, value in data.items():
        if section not in _SCHEMA and section not in _TABLE_SECTIONS:
            known = [*_SCHEMA, *(f"{s}.NAME" for s in _TABLE_SECTIONS)]
            raise ProfileError(f"Hardware profile {path}: unknown section [{section}] "
                               f"(known: {', '.join(known)}).")
        if not isinstance(value, dict):
            raise ProfileError(f"Hardware profile {path}: [{section}] must be a table.")
        if section in _TABLE_SECTIONS:
            continue                      # its sub-tables and keys: vpu_core.hardware.limits
        keys: set[str] = set(rule_ids()) if section == "constraints" else set(_SCHEMA[section])
        unknown = sorted(set(value) - keys)
        if unknown:
            raise ProfileError(f"Hardware profile {path}: unknown key {section}.{unknown[0]} "
                               f"(known: {', '.join(sorted(keys))}).")


def _op_list(path: Path, ops: dict, key: str, required: bool = False) -> tuple[str, ...]:
    if key not in ops:
        if required:
            raise ProfileError(f"Hardware profile {path}: ops.{key} (the VPU op list) is missing.")
        return ()
    names = ops[key]
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ProfileError(f"Hardware profile {path}: ops.{key} must be a list of op names.")
    for name in names:
        if not _known_aten_op(name):
            raise ProfileError(f"Hardware profile {path}: ops.{key} names unknown ATen op '{name}'.")
    return tuple(names)

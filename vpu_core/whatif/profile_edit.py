"""The profile editor's core: a HardwareProfile as TOML, a diff of two profiles, and what a change needs.

    text = profile_to_toml(profile)               # the TOML a --profile file holds
    saved = save_profile(profile, "my_vpu.toml")  # validated exactly like --profile, then written
    profile_diff(shipped, edited)                 # (ProfileChange, …) key by key
    requantization_needed(old, new, "vpu", ops)   # keys whose change alters the quantized graph

Every key of the TOML schema maps to one HardwareProfile field (`TOML_KEYS`), so load → save →
load gives the same profile (the tests check that every field is covered).
"""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from vpu_core.hardware.limits import LIMITS
from vpu_core.hardware.ops import op_matches
from vpu_core.profile import HardwareProfile, load_profile, parse_profile, rule_ids
from vpu_core.hardware.timing import TIMING_KEYS
from vpu_core.whatif.results import ModelOp, OpListRow, ProfileChange

if TYPE_CHECKING:
    from vpu_core.analysis.results import Analysis

# (section, key, HardwareProfile field) in the order a saved file lists them.
TOML_KEYS: tuple[tuple[str, str, str], ...] = (
    ("profile", "name", "name"), ("profile", "description", "description"),
    ("ops", "vpu", "vpu_ops"), ("ops", "shared_scale", "shared_scale_ops"),
    ("ops", "fusable", "fusable_ops"), ("ops", "fused_activations", "fused_activations"),
    *(("constraints", rid, f"constraints.{rid}") for rid in rule_ids()),
    ("requant", "min_shift", "min_shift"), ("requant", "max_shift", "max_shift"),
    ("requant", "rounding", "rounding"), ("requant", "accumulator_bits", "accumulator_bits"),
    ("requant", "avg_pool_divisor", "avg_pool_divisor"), ("requant", "reciprocal_bits", "reciprocal_bits"),
    ("economics", "break_even_bytes_per_mac", "break_even_bytes_per_mac"),
    *(("timing", key, f"timing.{key}") for key in TIMING_KEYS),
    # per-op limits and SRAM: written only when set ("op.conv2d" is the TOML table [op.conv2d])
    *((k.table if k.table == "memory" else f"op.{k.table}", k.key, f"limits.{k.id}") for k in LIMITS),
)
# Keys whose change can alter what the VPU quantizer annotates (the rest only changes the analysis).
_OP_LISTS = ("vpu_ops", "shared_scale_ops", "fusable_ops", "fused_activations")
_SECTION_NOTES = {
    "ops": "Constraint 1: ops with a VPU kernel; shared-scale ops (6); ops fused with an activation (7).",
    "constraints": "Constraint switches: false stops requiring (and checking) a rule.",
    "requant": "Requantization: the right-shift range, and how the integer simulation rounds, "
               "accumulates and divides average pools.",
    "economics": "A VPU partition pays when it moves at most this many bytes per MAC it keeps on the VPU.",
    "timing": "The VPU side of the timing model (check --run measures the CPU side): MAC rate, link "
              "bandwidth, launch overhead per partition and latency per transfer.",
    "op.conv2d": "Per-op limits (a key left out does not constrain): conv2d, also conv1d as 1×k.",
    "op.linear": "linear, also addmm / mm / matmul with a constant 2-D weight.",
    "memory": "One VPU op's int8 inputs + output + weights must fit (biases not counted).",
}


def field_value(profile: HardwareProfile, field: str) -> Any:
    if field.startswith("constraints."):
        return profile.enabled(field.split(".", 1)[1])
    if field.startswith("timing."):
        return getattr(profile.timing, field.split(".", 1)[1])
    if field.startswith("limits."):
        return profile.limit(field.split(".", 1)[1])      # None: not set
    return getattr(profile, field)


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)     # a JSON string is a TOML basic string
    return "[" + ", ".join(_toml_value(v) for v in value) + "]"


def profile_to_toml(profile: HardwareProfile) -> str:
    """The profile as the TOML text of a --profile file (every key written explicitly)."""
    lines = ["# Hardware profile written by VPU Inspector. Load it with --profile FILE."]
    section = None
    for sec, key, field in TOML_KEYS:
        value = field_value(profile, field)
        if value is None:
            continue                                     # an unset limit: no key, no table
        if sec != section:
            section = sec
            lines += ["", *([f"# {_SECTION_NOTES[sec]}"] if sec in _SECTION_NOTES else []), f"[{sec}]"]
        lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


def validate_profile(profile: HardwareProfile, label: str = "(edited profile)") -> HardwareProfile:
    """The profile as a --profile file would load it; ProfileError with the same message otherwise."""
    return parse_profile(profile_to_toml(profile), label)


def save_profile(profile: HardwareProfile, path: str | Path) -> HardwareProfile:
    """Validate, write atomically, and return the profile as loaded back from `path`."""
    from vpu_core.files import SaveError, atomic_write

    path = Path(path)
    text = profile_to_toml(profile)
    parse_profile(text, path)                      # refuse before touching the file
    try:
        atomic_write(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))
    except OSError as exc:
        raise SaveError(f"Cannot write the profile to {path}: {exc.strerror or exc}.") from None
    return load_profile(path)


def same_profile(a: HardwareProfile, b: HardwareProfile) -> bool:
    """Equal in every key of the TOML (the file they came from does not matter)."""
    return all(field_value(a, f) == field_value(b, f) for _, _, f in TOML_KEYS)


def edit(profile: HardwareProfile, **changes: Any) -> HardwareProfile:
    """A copy with fields replaced; `constraints` may be a partial {rule id: bool} mapping, and
    `limits` a partial {"conv2d.kernel_max": (5, 5), …} mapping (None removes a limit)."""
    if "constraints" in changes:
        changes["constraints"] = {**profile.constraints, **changes["constraints"]}
    if "limits" in changes:
        merged = {**profile.limits, **changes["limits"]}
        changes["limits"] = {k: v for k, v in merged.items() if v is not None}
    return dataclasses.replace(profile, **changes)


def profile_diff(base: HardwareProfile, other: HardwareProfile) -> tuple[ProfileChange, ...]:
    """Every TOML key whose value differs, in file order."""
    out = []
    for sec, key, field in TOML_KEYS:
        old, new = field_value(base, field), field_value(other, field)
        if old == new:
            continue
        if _is_list(old) and _is_list(new):
            out.append(ProfileChange(f"{sec}.{key}", old, new, tuple(x for x in new if x not in old),
                                     tuple(x for x in old if x not in new)))
        else:
            out.append(ProfileChange(f"{sec}.{key}", old, new))
    return tuple(out)


def _is_list(value) -> bool:
    """An op list (a tuple of names), as opposed to a pair of numbers like a kernel_max."""
    return isinstance(value, tuple) and all(isinstance(x, str) for x in value)


def requantization_needed(old: HardwareProfile, new: HardwareProfile, quantizer: str,
                          model_ops: Iterable[str], symbolic: bool = False) -> tuple[str, ...]:
    """TOML keys whose change alters the quantized graph of a model with these ATen ops.

    Empty: re-analysing the existing Q/DQ graph with `new` gives exactly what re-running would
    (only the partition, the rule checks, the shift range or the economics move). The XNNPACK
    quantizer never reads the profile; the VPU quantizer reads the constraint switches (through
    what each rule relaxes; the refusal of symbolic shapes only matters for a graph that has
    them) and the op lists, but only for ops the model has.
    """
    if quantizer != "vpu":
        return ()
    ops = tuple(model_ops)
    keys = []
    for sec, key, field in TOML_KEYS:
        if field.startswith("constraints."):
            rule = field.split(".", 1)[1]
            if old.enabled(rule) != new.enabled(rule) and _requantizes(rule, symbolic):
                keys.append(f"{sec}.{key}")
        elif field in _OP_LISTS:
            before, after = getattr(old, field), getattr(new, field)
            if any(op_matches(op, before) != op_matches(op, after) for op in ops):
                keys.append(f"{sec}.{key}")
    return tuple(keys)


def _requantizes(rule_id: str, symbolic: bool) -> bool:
    """Switching the rule changes what the VPU quantizer does to this graph: it relaxes one of the
    quantizer's mechanisms (`Rule.relaxes`), and not only the refusal of symbolic shapes on a
    graph that has none."""
    # The rule registry imports torch (its checks read Q/DQ graphs): imported here, on an edit,
    # so that showing a result in the window's editor does not import torch on the GUI thread.
    from vpu_core.analysis.rules import RULES
    from vpu_core.analysis.rules.quantizer_choices import SYMBOLIC_ONLY

    relaxes = RULES.get(rule_id).relaxes
    return any(symbolic or knob not in SYMBOLIC_ONLY for knob in relaxes)


def model_ops(analysis: Analysis) -> tuple[ModelOp, ...]:
    """The op types an analysis' graph computes (no Q/DQ, getitem or guards), most frequent first."""
    from vpu_core.compare import is_compute_op

    count: dict[str, int] = {}
    on_vpu: dict[str, int] = {}
    assignment = analysis.partition.assignment
    for name, info in analysis.nodes.items():
        if not is_compute_op(info) or info.op in ("getitem", "_assert_tensor_metadata.default"):
            continue
        count[info.op] = count.get(info.op, 0) + 1
        placed = assignment.get(name)
        on_vpu[info.op] = on_vpu.get(info.op, 0) + (isinstance(placed, int) and not isinstance(placed, bool))
    return tuple(ModelOp(op, n, on_vpu[op]) for op, n in sorted(count.items(), key=lambda kv: (-kv[1], kv[0])))


def op_pattern(op: str) -> str:
    """The profile entry naming a model op: "relu_.default" is listed as "relu.default"."""
    packet, _, overload = op.partition(".")
    packet = packet.rstrip("_") if packet.endswith("_") and not packet.startswith("_") else packet
    return f"{packet}.{overload}" if overload else packet


def op_list_rows(listed: tuple[str, ...], uses: tuple[ModelOp, ...]) -> tuple[OpListRow, ...]:
    """The editor's op list: every entry of `listed` (with the model ops it covers), then each
    model op no entry covers (unlisted: it falls back to the CPU)."""
    rows: dict[str, list] = {name: [True, 0, 0] for name in listed}
    for m in uses:
        entry = next((n for n in listed if op_matches(m.op, (n,))), op_pattern(m.op))
        row = rows.setdefault(entry, [False, 0, 0])
        row[1] += m.count
        row[2] += m.on_vpu
    return tuple(OpListRow(name, *values) for name, values in rows.items())

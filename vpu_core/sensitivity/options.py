"""What a sensitivity analysis is asked for, and the checks that need no torch (the command line
runs them before any work)."""
from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from vpu_core.errors import InspectorError

if TYPE_CHECKING:
    from vpu_core.config import RunConfig
    from vpu_core.sensitivity.results import Fix

DEFAULT_FUNCTION = "evaluate"


@dataclass(frozen=True)
class SensitivityOptions:
    layers: int = 1                 # the worst layers whose fixes are predicted (each fix a re-quantization)
    goal_db: float | None = None    # also search the smallest set of fixes reaching this SQNR
    metric: str | None = None       # --eval FILE.py:fn
    fix_nodes: tuple[str, ...] = () # also predict the fixes of these layers (the window's "Predict fixes")
    targets: tuple[str, ...] = ()   # also judge the baseline and every fix by these targets (--target)


class MetricError(InspectorError):
    """--eval names a function that cannot measure the model."""


def split_spec(spec: str) -> tuple[Path, str]:
    """(file, function) of FILE.py[:fn]; the function is `evaluate` when none is named."""
    if os.path.exists(spec) or ":" not in spec:
        return Path(spec), DEFAULT_FUNCTION
    path, name = spec.rsplit(":", 1)
    return Path(path), name or DEFAULT_FUNCTION


def check_spec(spec: str) -> None:
    """The file of --eval exists and is a .py file."""
    from vpu_core.paths import MISSING, input_problem, refusal, shown

    path, _ = split_spec(spec)
    problem = refusal(path)
    if problem is None and path.suffix != ".py":
        raise MetricError(f"--eval {shown(spec)}: expected FILE.py:function (a Python file).")
    problem = problem or input_problem(path)
    if problem == MISSING:
        raise MetricError(f"--eval {shown(spec)}: {shown(path)} does not exist.")
    if problem:
        raise MetricError(f"--eval {shown(spec)}: {problem}.")


# -- the command line (argparse: no torch) ---------------------------------------------------------

def add_change_options(p: argparse.ArgumentParser) -> None:
    """The per-op changes of the quantization (vpu_core.quantizers.overrides): every command that
    quantizes takes them, and a fix's `args` are made of them."""
    p.add_argument("--keep-float", action="append", default=[], metavar="NODE",
                   help="leave this op (and the activation fused to it) in float: it runs on the CPU (repeatable)")
    p.add_argument("--per-channel", action="append", default=[], metavar="NODE",
                   help="per-channel weights for this op in a --per-tensor run (repeatable)")
    p.add_argument("--observer", action="append", default=[], metavar="NODE=KIND", type=_observer,
                   help="observe the tensor this op writes with another observer: vpu: minmax | histogram; "
                        "xnnpack: histogram | minmax (repeatable)")
    p.add_argument("--a16w8", action="append", default=[], metavar="NODE",
                   help="16-bit activations for this op, where the quantizer offers them (repeatable)")


def add_sensitivity_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sensitivity", action="store_true", help=(
        "also rank the quantized layers by error (local, cumulative, weight-only, activation-only) and "
        "predict the fixes of the worst (JSON \"sensitivity\")"))
    p.add_argument("--fix-layers", type=int, default=1, metavar="N",
                   help="--sensitivity: predict the fixes of the N worst layers (each fix is a re-quantization)")
    p.add_argument("--reach-db", type=_finite, default=None, metavar="DB",
                   help="--sensitivity: also search the smallest set of fixes reaching this SQNR")
    p.add_argument("--eval", metavar="FILE.py:fn", default=None, help=(
        "--sensitivity: your metric, fn(model) -> number (e.g. top-1 on your data), reported for the "
        "float model, the quantized one and every fix"))


def changes_from_args(args: argparse.Namespace) -> dict:
    """RunConfig fields of the per-op change options."""
    return {"keep_float": tuple(getattr(args, "keep_float", ()) or ()),
            "per_channel": tuple(getattr(args, "per_channel", ()) or ()),
            "observers": tuple(getattr(args, "observer", ()) or ()),
            "wide_activations": tuple(getattr(args, "a16w8", ()) or ())}


def options_from_args(args: argparse.Namespace, targets: tuple[str, ...] = ()) -> SensitivityOptions:
    if args.fix_layers < 0:
        raise InspectorError(f"--fix-layers must be 0 or more, got {args.fix_layers}.")
    if args.eval:
        check_spec(args.eval)
    if not args.sensitivity and (args.eval or args.reach_db is not None):
        raise InspectorError("--eval and --reach-db go with --sensitivity.")
    return SensitivityOptions(layers=args.fix_layers, goal_db=args.reach_db, metric=args.eval,
                              targets=tuple(t for t in targets if t != "vpu"))


def _finite(text: str) -> float:
    import math

    value = float(text)
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number of decibels, got {text}")
    return value


def _observer(text: str) -> tuple[str, str]:
    node, sep, kind = text.partition("=")
    if not sep or not node or not kind:
        raise argparse.ArgumentTypeError(f"expected NODE=KIND, e.g. conv2d_3=histogram, got {text!r}")
    return node, kind


def with_fix(config: RunConfig, fix: Fix) -> RunConfig:
    """`config` with `fix`'s change added (what its `args` say on the command line)."""
    import dataclasses

    if fix.change == "keep_float":
        return dataclasses.replace(config, keep_float=(*config.keep_float, *fix.nodes))
    if fix.change == "per_channel":
        return dataclasses.replace(config, per_channel=(*config.per_channel, *fix.nodes))
    if fix.change == "wide_activation":
        return dataclasses.replace(config, wide_activations=(*config.wide_activations, *fix.nodes))
    kind = fix.args[-1].split("=", 1)[1]
    taken = {n for n, _ in config.observers}
    return dataclasses.replace(config, observers=(*config.observers, *((n, kind) for n in fix.nodes if n not in taken)))

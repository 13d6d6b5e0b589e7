"""The command line's options shared by its commands (check, export, gui, render, report, sweep):
argparse only, no torch (the sweep's parser and app/cli.py build on them)."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vpu_core.config import QuantizerName, RunConfig


def add_run_options(p: argparse.ArgumentParser, model_required: bool = True) -> None:
    if model_required:
        p.add_argument("model", help="zoo name | path/to/file.py[:callable] | path/to/program.pt2")
    else:
        p.add_argument("model", nargs="?", default="resnet8", help="as for check (default resnet8)")
    from vpu_core.quantizers import QUANTIZERS

    from vpu_core.sensitivity.options import add_change_options

    p.add_argument("--quantizer", choices=QUANTIZERS, default=None, help=(
        "override the quantizer (default: the primary target's own: vpu for the VPU, xnnpack for "
        "XNNPACK, ethos-u for the Ethos-U and TOSA targets)"))
    add_shared_run_options(p)
    p.add_argument("--profile", metavar="FILE", help="hardware profile (TOML)")
    add_change_options(p)


def add_target_option(p: argparse.ArgumentParser, several: bool = True, what: str = "also judge the graph") -> None:
    """`--target NAME`, its choices from the target registry (vpu_core.targets: no torch)."""
    from vpu_core import targets

    listed = "; ".join(f"{i.name}: {i.description}" for i in targets.infos())
    p.add_argument("--target", action="append" if several else "store", default=[] if several else None,
                   choices=targets.names(), metavar="NAME",
                   help=f"{what} with this target{' (repeatable)' if several else ''}: {listed}")


# The targets whose `--run` is the run attached to the analysis (the converted graph lowered to
# XNNPACK and run on this CPU, with the VPU's timing model beside it); every other target runs its
# own program (Session.target_run), and under it the XNNPACK run and the VPU's model are not asked for.
ATTACHED_RUN = ("vpu", "xnnpack")


def attached_runs(targets: tuple[str, ...] | list[str], runs: int | None) -> int | None:
    """`runs` for the attached run when one of `targets` is read through it, else None."""
    return runs if runs and any(t in ATTACHED_RUN for t in targets) else None


def primary_target(args: argparse.Namespace) -> str:
    """The target the user ships to: the first `--target` (`check` and `report` take several, the
    others one), else the VPU (the seeds' story: today's commands keep their meaning)."""
    asked = getattr(args, "target", None)
    if isinstance(asked, list):
        asked = asked[0] if asked else None
    return asked or "vpu"


def resolve_quantizer(args: argparse.Namespace) -> QuantizerName:
    """`--quantizer` when given, else the primary target's own quantizer (TargetInfo.quantizer):
    `--target ethos-u55-128` alone quantizes with the Ethos-U quantizer."""
    from vpu_core import targets
    from vpu_core.quantizers.registry import is_quantizer

    name = getattr(args, "quantizer", None) or targets.info(primary_target(args)).quantizer or "vpu"
    if not is_quantizer(name):
        from vpu_core.errors import InspectorError

        raise InspectorError(f"The {primary_target(args)} target names the quantizer {name!r}, which is not installed.")
    return name


def config_from_args(args: argparse.Namespace) -> RunConfig:
    """The RunConfig the run options of `args` describe (check, export, diff, …)."""
    from vpu_core.config import RunConfig
    from vpu_core.sensitivity.options import changes_from_args

    return RunConfig(model=args.model, quantizer=resolve_quantizer(args), per_tensor=args.per_tensor,
                     dynamic_batch=args.dynamic_batch, calib_batches=args.calib_batches,
                     batch_size=args.batch_size, seed=args.seed, calib_data=args.calib_data,
                     profile=args.profile, reference_observers=args.reference_observers,
                     **changes_from_args(args))


def add_shared_run_options(p: argparse.ArgumentParser) -> None:
    """The run options of every command (`sweep` takes its quantizers and profiles as lists)."""
    p.add_argument("--per-tensor", action="store_true", help=(
        "XNNPACK weights per-tensor (the VPU quantizer ignores it, with a note: constraint 3)"))
    p.add_argument("--dynamic-batch", action="store_true", help="export the batch dim as dynamic")
    p.add_argument("--calib-batches", type=positive, default=4, metavar="N")
    p.add_argument("--batch-size", type=positive, default=None, metavar="B",
                   help="change the batch (default: the batch of the model's own example inputs)")
    p.add_argument("--seed", type=seed, default=0, metavar="S")
    p.add_argument("--calib-data", metavar="FILE", help="calibration samples (.pt or .npz)")
    p.add_argument("--no-cache", action="store_true", help=(
        "neither read nor write the result cache (VPU_INSPECTOR_CACHE_DIR moves it)"))
    p.add_argument("--reference-observers", action="store_true",
                   help="torchao's stock observers instead of the fast, identical ones")


def add_runtime_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--run", action="store_true", help=(
        "also lower the converted graph to an ExecuTorch XNNPACK program and run it on this CPU: "
        "latency, SQNR, per-op times (JSON \"runtime\")"))
    p.add_argument("--runs", type=positive, default=20, metavar="N",
                   help="timed runs of --run, after 3 warm-up runs (default 20)")


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


SEED_RANGE = (-(2**63), 2**63 - 1)     # torch's generators take a 64-bit seed (plus offsets below 2^64)


def seed(text: str) -> int:
    value = int(text)
    if not SEED_RANGE[0] <= value <= SEED_RANGE[1]:
        raise argparse.ArgumentTypeError(f"must be between -2^63 and 2^63-1 (a 64-bit seed), got {text}")
    return value


MAX_WINDOW_SIDE = 16384


def window_size(text: str) -> tuple[int, int]:
    """"1280x720" → (1280, 720)."""
    width, sep, height = text.lower().replace("×", "x").partition("x")
    if not sep or not width.isdecimal() or not height.isdecimal() or \
            not 200 <= min(int(width), int(height)) <= max(int(width), int(height)) <= MAX_WINDOW_SIDE:
        raise argparse.ArgumentTypeError(f"expected WIDTHxHEIGHT (each 200 to {MAX_WINDOW_SIDE}), e.g. 1280x720, "
                                         f"got {text!r}")
    return int(width), int(height)


def compare_spec(base: RunConfig, spec: str) -> tuple[RunConfig, str | None]:
    """Side B of `--compare` and the target B is coloured by (None: as A). `spec` is
    config_variant's, or a target's name that is no quantizer's ("ethos-u55-128": B is A coloured
    by it, the VPU beside an Ethos-U), or either with "target=NAME" among its settings."""
    from vpu_core import targets
    from vpu_core.compare import CompareSpecError, config_variant
    from vpu_core.quantizers import QUANTIZERS

    items = [part.strip() for part in spec.split(",") if part.strip()]
    target = None
    rest = []
    for item in items:
        key, sep, value = (x.strip() for x in item.partition("="))
        if sep and key == "target":
            target = value
        elif not sep and len(items) == 1 and item in targets.names() and item not in QUANTIZERS:
            target = item
        else:
            rest.append(item)
    if target is not None and target not in targets.names():
        raise CompareSpecError(f"Unknown target '{target}' in --compare: use {', '.join(targets.names())}.")
    config = config_variant(base, ",".join(rest)) if rest else base
    return config, (None if target in (None, "vpu") else target)

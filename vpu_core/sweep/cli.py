"""`vpu-inspector sweep MODELS... -o DIR`: the command line of the fleet sweep.

Exit codes: 1 when any run that finished broke a VPU rule, else 0 — crashed, failed and timed-out
runs are rows with their reason, never exit 2; 2 only when no run could finish at all (or the
sweep could not start: no models, an unwritable folder).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

DEFAULT_TIMEOUT_S = 1800.0


def _quantizers(text: str) -> tuple[str, ...]:
    from vpu_core.quantizers import QUANTIZERS

    names = tuple(dict.fromkeys(q.strip().lower() for q in text.split(",") if q.strip()))
    bad = [q for q in names if q not in QUANTIZERS]
    if not names or bad:
        raise argparse.ArgumentTypeError(f"expected {', '.join(QUANTIZERS)} or several, comma-separated, "
                                         f"got {text!r}")
    return names


def _targets(text: str) -> tuple[str, ...]:
    from vpu_core import targets

    names = tuple(dict.fromkeys(t.strip().lower() for t in text.split(",") if t.strip()))
    bad = [t for t in names if t not in targets.names()]
    if not names or bad:
        raise argparse.ArgumentTypeError(f"expected target names from {', '.join(targets.names())}, got {text!r}")
    return names


def _seconds(text: str) -> float | None:
    if text.lower() in ("none", "0", "off"):
        return None
    value = float(text)
    if not 0 < value < float("inf"):        # NaN too
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds (0 or none: no limit), got {text}")
    return value


def _workers(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_sweep_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    from vpu_core.arguments import add_shared_run_options

    p = sub.add_parser("sweep", help="many models x quantizers x profiles in parallel: per-run JSON, "
                                     "summary.json/.csv, index.html")
    p.add_argument("models", nargs="+", metavar="MODEL", help=(
        "zoo name | file.py[:callable] | program.pt2 | a folder of .py/.pt2 | a text file listing them"))
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="the sweep folder (created)")
    p.add_argument("--quantizer", type=_quantizers, default=None, metavar="vpu,xnnpack",
                   help="quantizers, comma-separated (default: the quantizer of each --target, else vpu)")
    p.add_argument("--target", type=_targets, default=(), metavar="NAME,...",
                   help="judge every run's graph with these targets, comma-separated, the first the "
                        "primary (vpu_core.targets; the run's JSON `targets`); without --quantizer each "
                        "target's own quantizer is swept")
    p.add_argument("--profile", action="append", default=[], metavar="FILE",
                   help="hardware profile (TOML), repeatable (default: the shipped profile)")
    p.add_argument("--workers", type=_workers, default=None, metavar="N",
                   help="runs at a time, each in its own process (default: this machine's cores; "
                        "with --ray: the cluster's CPUs)")
    p.add_argument("--timeout", type=_seconds, default=DEFAULT_TIMEOUT_S, metavar="S",
                   help=f"stop a run after S seconds (default {DEFAULT_TIMEOUT_S:g}; 0 = no limit)")
    p.add_argument("--ray", metavar="ADDRESS", help=(
        "run the runs as Ray tasks: 'local' starts a Ray cluster here, anything else is "
        "passed to ray.init(address=...) (e.g. auto, ray://head:10001)"))
    p.add_argument("--retry-failed", action="store_true",
                   help="run again the recorded errors and timeouts (finished runs are reused by default)")
    p.add_argument("--no-pages", action="store_true", help="no per-run HTML page (JSON and summary only)")
    add_shared_run_options(p)
    return p


def cmd_sweep(args: argparse.Namespace) -> int:
    from vpu_core.config import RunConfig
    from vpu_core.sweep.ledger import SweepOptions
    from vpu_core.sweep.plan import SweepError, plan_sweep
    from vpu_core.sweep.run import run_sweep

    from vpu_core.paths import output_problem, shown

    out = Path(args.output)
    problem = output_problem(args.output, "folder", parents=True)
    if problem:
        raise SweepError(f"Cannot write the sweep to {shown(out)}: {problem}.")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SweepError(f"Cannot create the sweep folder {out}: {exc.strerror or exc}.") from None
    profiles = sweep_profiles(args.profile)
    if args.calib_data:                     # one file for every run: refused once, before any
        from vpu_core.preflight import check_calibration_path

        check_calibration_path(args.calib_data)
    base = RunConfig(per_tensor=args.per_tensor, dynamic_batch=args.dynamic_batch,
                     calib_batches=args.calib_batches, batch_size=args.batch_size, seed=args.seed,
                     calib_data=_absolute(args.calib_data), reference_observers=args.reference_observers)
    plan = plan_sweep(args.models, sweep_quantizers(args.quantizer, args.target), profiles or (None,), base)
    options = SweepOptions(workers=args.workers or (0 if args.ray else os.cpu_count() or 1), timeout_s=args.timeout, no_cache=args.no_cache,
                           retry_failed=args.retry_failed, html=not args.no_pages, targets=args.target)
    _terminate_as_interrupt()
    result = run_sweep(plan, out, options, ray_address=args.ray, command=["vpu-inspector", "sweep", *args.models, "-o", str(out)])
    counts = result.summary["counts"]
    print(f"{len(result.rows)} runs: {counts['ok']} ok, {counts['error']} error, {counts['timeout']} timeout "
          f"in {result.summary['wall_seconds']:.0f} s; wrote {out / 'index.html'}, summary.json, summary.csv")
    if result.exit_code == 2:
        print("vpu-inspector: error: no run of the sweep finished (see the reasons in "
              f"{out / 'summary.csv'})", file=sys.stderr)
    return result.exit_code


def sweep_quantizers(asked: tuple[str, ...] | None, target_names: tuple[str, ...]) -> tuple[str, ...]:
    """The quantizers a sweep runs: --quantizer when given, else each target's own (`--target
    ethos-u55-128,xnnpack` sweeps the ethos-u and xnnpack quantizers), else the VPU's."""
    if asked:
        return asked
    from vpu_core import targets

    own = [targets.info(name).quantizer for name in target_names]
    return tuple(dict.fromkeys(q for q in own if q)) or ("vpu",)


def _terminate_as_interrupt() -> None:
    """SIGTERM (a batch scheduler, `kill`) stops the sweep as Ctrl+C does: the running workers are
    killed, the summary of what finished is written, the same command resumes."""
    import signal
    import threading

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, interrupt)


def sweep_profiles(specs: list[str]) -> tuple[str, ...]:
    """Each --profile as an absolute file path: a file, or a shipped profile by name ("edge_npu"),
    read as `check --profile` reads it; a missing one is refused before any run starts."""
    from vpu_core.profile import resolve_profile
    from vpu_core.sweep.plan import SweepError

    from vpu_core.paths import MISSING, input_problem, shown

    out = []
    for spec in specs:
        path = resolve_profile(spec)
        problem = input_problem(path)
        if problem == MISSING:
            raise SweepError(f"Cannot read the profile {shown(spec)}: no such file (nor a shipped profile's name).")
        if problem:
            raise SweepError(f"Cannot read the profile {shown(spec)}: {problem}.")
        out.append(str(path.resolve()))
    return tuple(out)


def _absolute(path: str | None) -> str | None:
    """Paths as the workers see them: absolute (a Ray worker or another cwd must find the file)."""
    return None if path is None else str(Path(path).resolve())

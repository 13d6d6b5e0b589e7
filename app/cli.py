"""The `vpu-inspector` entry point: headless commands from vpu_core.cli plus the Qt ones.

Qt is imported only inside the gui / render / report handlers, so `check` and `models` start
without it.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from vpu_core import cli as core_cli

if TYPE_CHECKING:
    from vpu_core.config import RunConfig


def cmd_gui(args: argparse.Namespace) -> int:
    from app.window.launch import GuiOptions, run_gui
    from vpu_core.arguments import compare_spec

    # the target is the first choice: its own quantizer unless --quantizer overrides it
    # (config_from_args: vpu_core.arguments.resolve_quantizer)
    config = core_cli.config_from_args(args)
    check_gui_paths(config, args)
    target = "xnnpack" if args.xnnpack_delegation and not args.target else args.target
    if target:                  # one sentence and exit 2 before the window, as `check` does
        from vpu_core.errors import InspectorError
        from vpu_core.targets import check_target

        missing = check_target(target, config.quantizer, config.dynamic_batch).unavailable()
        if missing:
            raise InspectorError(missing)
    compare = compare_spec(config, args.compare) if args.compare else None   # (B, B's target)
    options = GuiOptions(screenshot=args.screenshot, size=args.size,
                         compare=compare[0] if compare else None,
                         compare_colour_by=compare[1] if compare else None,
                         colour_by=None if target in (None, "vpu") else target, metric=args.metric, hide_qdq=args.hide_qdq,
                         select=args.select,
                         tabs=tuple(args.tab), sweep=args.sweep, focus=args.focus,
                         presentation=args.presentation, measure=args.run)
    return run_gui(config, options)


def check_gui_paths(config: RunConfig, args: argparse.Namespace) -> None:
    """Every path `gui` was given, one sentence and exit 2 before the window (as `check` does)."""
    from vpu_core.paths import input_problem, shown
    from vpu_core.preflight import check_paths
    from vpu_core.sweep.plan import SweepError

    check_paths(config)
    if args.screenshot:
        from vpu_core.files import check_output_path

        check_output_path(args.screenshot, (".png",), "a screenshot")
    problem = input_problem(args.sweep, "folder") if args.sweep else None
    if problem:
        raise SweepError(f"Cannot open the sweep folder {shown(args.sweep)}: {problem}.")


def cmd_render(args: argparse.Namespace) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from vpu_core.files import check_output_path
    from vpu_core.preflight import check_paths

    check_output_path(args.output, (".png", ".svg"), "an image")
    check_paths(core_cli.config_from_args(args))
    from app.export.render import render_model

    render_model(core_cli.config_from_args(args), args.output, fold_params=not args.unfold,
                 hide_qdq=args.hide_qdq, collapse=args.collapse)
    print(f"wrote {args.output}")
    return core_cli.EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from app.export.report import check_output, report_model
    from vpu_core.compare import config_variant

    from vpu_core.preflight import check_paths

    output = check_output(args.output)
    config = core_cli.config_from_args(args)
    check_paths(config)
    other = config_variant(config, args.compare) if args.compare else None
    report_model(config, output, compare_config=other, int_sim=args.int_sim, ablate=args.ablate,
                 runtime_runs=args.runs if args.run else None, targets=core_cli.targets_from_args(args))
    print(f"wrote {output}")
    return core_cli.EXIT_OK


def main(argv: list[str] | None = None) -> int:
    handlers = {"gui": cmd_gui, "render": cmd_render, "report": cmd_report}
    return core_cli.main(argv, handlers)


if __name__ == "__main__":
    sys.exit(main())
